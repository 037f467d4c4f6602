"""Entities copied from a few-shot example swapped for the one the question names.

Asked "Where is Tencent incorporated ...?" next to the example "On which exchange does Shopify trade?", the
1.5B model writes ``WHERE EQ_MSTR.TICKER = 'SHOP'``: the example's entity, although value linking resolved
"Tencent" to ``CO_NM = 'Tencent Holdings Ltd.'`` (``TICKER '0700'``) and showed it. The query runs and answers
about the wrong company. :func:`swap_copied_entities` replaces the literal of such a filter when

- the literal is not named by the question (:func:`rewrites.literals.named_in`, value matches included),
- exactly one confident value match of the question lives in the same table and is used nowhere in the SQL,
- and the filtered column is that match's column, its key column or one of its identifying siblings (the
  replacement is the match's value, key or sibling value for that column).

Before the query runs, with no model call. Never raises; None when nothing is swapped.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from database.sql_sources import parse_select
from database.sql_sources import tables as plain_tables
from rewrites.literals import named_in


def swap_copied_entities(sql: str, dialect: str, question: str, matches: list[dict[str, Any]]) -> str | None:
    """``sql`` with each copied entity filter pointed at the question's own entity (see the module docstring)."""
    if not matches:
        return None
    tree = parse_select(sql, dialect)
    if tree is None or tree.args.get("where") is None:
        return None
    used = {str(lit.this).casefold() for lit in tree.find_all(exp.Literal)}
    tables = {t.alias_or_name.lower(): t.name.lower() for t in plain_tables(tree)}
    changed = False
    condition = tree.args["where"].this
    for part in (condition.flatten() if isinstance(condition, exp.And) else [condition]):
        if not isinstance(part, exp.EQ):
            continue
        column, literal = part.this, part.expression
        if isinstance(literal, exp.Column):
            column, literal = literal, column
        if not (isinstance(column, exp.Column) and isinstance(literal, exp.Literal) and literal.is_string):
            continue
        if named_in(question, str(literal.this), matches=matches):
            continue
        table = tables.get(column.table.lower()) if column.table else (next(iter(tables.values()))
                                                                       if len(tables) == 1 else None)
        if table is None:
            continue
        options = [value for m in matches if str(m.get("table", "")).lower() == table
                   and not _mentioned(m, used) and (value := _value_for(m, column.name)) is not None]
        if len(options) != 1:
            continue
        literal.replace(exp.Literal.string(options[0]))
        changed = True
    return tree.sql(dialect=dialect) if changed else None


def _mentioned(match: dict[str, Any], used: set[str]) -> bool:
    """Is the match's value, key or a sibling already a literal of the SQL?"""
    siblings = match.get("siblings") or {}
    names = [match.get("value"), match.get("id"), *siblings.values()]
    return any(n is not None and str(n).casefold() in used for n in names)


def _value_for(match: dict[str, Any], column: str) -> str | None:
    """The match's value for ``column``: its value, its key or an identifying sibling (None otherwise)."""
    col = column.lower()
    if str(match.get("column", "")).lower() == col:
        return str(match["value"])
    if str(match.get("id_column") or "").lower() == col and match.get("id") is not None:
        return str(match["id"])
    for name, value in (match.get("siblings") or {}).items():
        if str(name).lower() == col:
            return str(value)
    return None
