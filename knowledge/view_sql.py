"""Checks of a knowledge view's SQL (:mod:`knowledge.views`): its name is an identifier, its query names its columns.

Kept apart from :mod:`knowledge.views` so that the record model (:mod:`knowledge.records`) can validate views
without importing the module that renders and expands them.
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


class ViewError(ValueError):
    """A view record's SQL does not parse, is not one query, or has an unnamed output column."""


def view_columns(sql: str, dialect: str = "sqlite") -> list[str]:
    """Output column names of a view's ``sql`` (one SELECT or WITH query), in order.

    Raises:
        ViewError: the SQL does not parse, is not a single query, or an output column has no name (``*`` or an
            expression without an alias).
    """
    try:
        trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
    except sqlglot.errors.SqlglotError as exc:
        raise ViewError(f"view SQL does not parse: {str(exc).splitlines()[0][:200]}") from exc
    if len(trees) != 1 or not isinstance(trees[0], exp.Query):
        raise ViewError("view SQL must be exactly one SELECT (or WITH ... SELECT) query")
    tree = trees[0]
    names = tree.named_selects
    if len(names) != len(tree.selects) or any(not n or n == "*" for n in names):
        raise ViewError("every output column of a view needs a name (no *; give expressions an alias)")
    return list(names)
