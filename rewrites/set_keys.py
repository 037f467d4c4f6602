"""Set operations whose two sides return different things compare keys instead.

"Which teachers did not teach?" is often written ``SELECT name FROM instructor EXCEPT SELECT id FROM teaches``:
the model meant "the instructors whose id is not in teaches" but the set difference compares names with ids, so
every name comes back and the database reports nothing wrong. :func:`fix_set_keys` turns such an ``EXCEPT``
(or ``INTERSECT``) into the filter it stands for::

    SELECT name FROM instructor WHERE id NOT IN (SELECT id FROM teaches)

It fires only when the left side reads one table and shows columns other than the right side's one column, and
that column is tied to the left table by a declared foreign key (either direction) or by a column of the same
name in the left table. The left side's own filter is kept (``AND``); the right side is kept as written. One row
per left-table row comes back (the filter form), not the distinct rows of the set operation; an ``ORDER BY`` or
``LIMIT`` of the whole operation moves onto the filter. No model call;
the idea is the anti-join / semi-join that set-difference questions ask for (Spider's ``NOT IN`` / ``EXCEPT``
pairs, Yu et al. 2018).
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from database.joins import JoinGraph
from database.sql_sources import parse_query


def _single_table(select: exp.Select) -> exp.Table | None:
    """The one plain table ``select`` reads (no joins, no grouping), or None."""
    source = select.args.get("from_") or select.args.get("from")
    table = source.this if isinstance(source, exp.From) else None
    if not isinstance(table, exp.Table) or not table.name or select.args.get("joins"):
        return None
    if select.args.get("group") or select.args.get("having"):
        return None
    return table


def _column_table(select: exp.Select, column: exp.Column, columns: Mapping[str, set[str]]) -> str | None:
    """The lower-cased name of the table ``column`` of ``select`` reads (its qualifier's, or the one having it)."""
    tables = [t for t in select.find_all(exp.Table) if t.name and t.find_ancestor(exp.Select) is select]
    if column.table:
        named = [t.name.lower() for t in tables if t.alias_or_name.lower() == column.table.lower()]
        return named[0] if len(named) == 1 else None
    having = {t.name.lower() for t in tables if column.name.lower() in columns.get(t.name.lower(), set())}
    if len(tables) == 1:
        return tables[0].name.lower()
    return having.pop() if len(having) == 1 else None


def _key(left: str, right: str, column: str, graph: JoinGraph | None,
         columns: Mapping[str, set[str]]) -> str | None:
    """The left table's column that ``right.column`` stands for: along a foreign key, else the same name."""
    if graph is not None:
        a, b = graph.canonical(left), graph.canonical(right)
        pairs: set[str] = set()
        for edge in graph.adj.get(a or "", []) if a and b else []:
            if edge.other != b or " AND " in edge.condition:
                continue
            ends = [s.strip().split(".", 1) for s in edge.condition.split(" = ")]
            if len(ends) != 2 or any(len(end) != 2 for end in ends):
                continue
            (t1, c1), (t2, c2) = ends
            if t1.lower() == right and c1.lower() == column and t2.lower() == left:
                pairs.add(c2)
            elif t2.lower() == right and c2.lower() == column and t1.lower() == left:
                pairs.add(c1)
        if len(pairs) == 1:
            return pairs.pop()
    return column if column in columns.get(left, set()) else None


def fix_set_keys(sql: str, dialect: str, columns: Mapping[str, set[str]], graph: JoinGraph | None) -> str | None:
    """``sql`` with each mismatched ``EXCEPT`` / ``INTERSECT`` turned into ``NOT IN`` / ``IN`` on a key.

    ``columns``: lower-cased table -> lower-cased column names; ``graph``: the database's foreign keys (None:
    same-named columns only). Returns None when nothing changes or ``sql`` does not parse. Never raises.
    """
    low = sql.lower()
    if "except" not in low and "intersect" not in low:
        return None
    tree = parse_query(sql, dialect)
    if tree is None:
        return None
    changed = False
    for op in list(tree.find_all(exp.Except, exp.Intersect)):
        new = _as_filter(op, columns, graph)
        if new is not None:
            if op is tree:
                tree = new
            else:
                op.replace(new)
            changed = True
    return tree.sql(dialect=dialect) if changed else None


def _as_filter(op: exp.SetOperation, columns: Mapping[str, set[str]],
               graph: JoinGraph | None) -> exp.Select | None:
    """The filter form of one set operation, or None when it does not qualify (module docstring)."""
    left, right = op.left, op.right
    if not isinstance(left, exp.Select) or not isinstance(right, exp.Select) or len(right.expressions) != 1:
        return None
    column = right.expressions[0].unalias()
    table = _single_table(left)
    if not isinstance(column, exp.Column) or table is None:
        return None
    shown = [e.alias_or_name.lower() for e in left.expressions]
    if column.name.lower() in shown or any(isinstance(e, exp.Star) for e in left.expressions):
        return None
    other = _column_table(right, column, columns)
    if other is None:
        return None
    key = _key(table.name.lower(), other, column.name.lower(), graph, columns)
    if key is None:
        return None
    target = exp.column(key, table=table.alias_or_name) if table.alias else exp.column(key)
    test: exp.Expr = exp.In(this=target, query=exp.Subquery(this=right.copy()))
    if isinstance(op, exp.Except):
        test = exp.Not(this=test)
    new = left.copy().where(test)
    for part in ("order", "limit", "offset"):
        if op.args.get(part):
            new.set(part, op.args[part].copy())
    return new
