"""Joins the examples' SQL states: relations a database does not declare, read from queries people approved.

A database that declares no foreign key gives the agent no join hint (:mod:`retrieval.inferred_joins` finds some
in the data). Its few-shot examples (the examples file, approved feedback) are queries a person wrote or
approved, and their join conditions name the relations the team actually uses: ``FROM ORD o JOIN CUST c ON
o.CUST_ID = c.CUST_ID``. :func:`example_foreign_keys` reads every equality between columns of two different
tables in the examples' ``JOIN ... ON`` and ``WHERE`` clauses (aliases resolved, names matched to the schema
case-insensitively) and turns each into a foreign key (``origin="examples"``) pointing at the side that is a key
of its table (:func:`retrieval.onboarding.profile.summarise`: the primary key or a column with no NULLs and one
row per value); when both sides are keys (one-to-one), at the table with more rows, whose rows the other's are a
subset of (gymnasts of people); when neither is, the pair is a many-to-many match and is left out.

Model-free on the spider-wide abbreviated copies with their keys dropped, each question given 40 other questions
of its database as examples: the examples' keys hold 86.4% of the gold queries' 3,718 join conditions, the data's
76.3%, both 92.7% (the declared keys 95.3%); ``benchmarks/results/2026-12-07-example-joins/``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

from database.guard import sqlglot_dialect
from database.schema_types import ForeignKey

__all__ = ["example_foreign_keys", "joined_columns"]

Side = tuple[str, str]
"""``(table, column)`` as the schema spells them."""


def _equalities(select: exp.Select) -> Iterable[exp.EQ]:
    for join in select.args.get("joins") or []:
        on = join.args.get("on")
        if on is not None:
            yield from on.find_all(exp.EQ)
    where = select.args.get("where")
    if where is not None:
        yield from where.find_all(exp.EQ)


def joined_columns(sql: str, dialect: str, columns: Mapping[str, Mapping[str, str]]) -> set[frozenset[Side]]:
    """The pairs of columns of two different tables that ``sql`` equates, as unordered pairs of :data:`Side`.

    ``columns`` maps each lower-cased table name to ``{lower-cased column: column}`` and the table's own spelling
    under the key ``""``. Only qualified columns (``o.CUST_ID``, ``ORD.CUST_ID``) of tables in the schema count;
    SQL that does not parse gives nothing.
    """
    try:
        tree = sqlglot.parse_one(sql, read=sqlglot_dialect(dialect))
    except SqlglotError:
        return set()
    found: set[frozenset[Side]] = set()
    for select in tree.find_all(exp.Select):
        alias = {(t.alias or t.name).lower(): t.name.lower() for t in select.find_all(exp.Table)}
        for eq in _equalities(select):
            left, right = eq.this, eq.expression
            if not (isinstance(left, exp.Column) and isinstance(right, exp.Column) and left.table and right.table):
                continue
            sides = []
            for col in (left, right):
                table = columns.get(alias.get(col.table.lower(), col.table.lower()))
                name = table.get(col.name.lower()) if table is not None else None
                if table is None or name is None:
                    break
                sides.append((table[""], name))
            if len(sides) == 2 and sides[0][0] != sides[1][0]:
                found.add(frozenset(sides))
    return found


def example_foreign_keys(sqls: Iterable[str], dialect: str,
                         summaries: Mapping[str, Mapping[str, Any]]) -> dict[str, list[ForeignKey]]:
    """Foreign keys (``origin="examples"``) for the joins that the SQL ``sqls`` states, by child table name.

    ``summaries`` are the profiled tables as :func:`retrieval.onboarding.profile.summarise` writes them (``rows``,
    ``columns``, ``keys``); the direction rule is the module docstring's. One key per child column: the pair the
    examples use most often, then the first by name. Never raises.
    """
    columns = {t.lower(): {"": t, **{c.lower(): c for c in s["columns"]}} for t, s in summaries.items()}
    uses: Counter[frozenset[Side]] = Counter()
    for sql in sqls:
        uses.update(joined_columns(sql, dialect, columns))
    found: dict[str, list[ForeignKey]] = {}
    taken: set[Side] = set()
    for pair, _n in sorted(uses.items(), key=lambda item: (-item[1], sorted(item[0]))):
        a, b = sorted(pair)
        a_key, b_key = (side[1] in summaries[side[0]]["keys"] for side in (a, b))
        if not (a_key or b_key):
            continue
        if a_key and b_key:
            child, parent = (a, b) if summaries[a[0]]["rows"] <= summaries[b[0]]["rows"] else (b, a)
        else:
            child, parent = (b, a) if a_key else (a, b)
        if child in taken:
            continue
        taken.add(child)
        found.setdefault(child[0], []).append(ForeignKey([child[1]], parent[0], [parent[1]], origin="examples"))
    return found
