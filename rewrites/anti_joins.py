"""An inner join filtered on its own join key being NULL is the anti-join the question asked for: a LEFT JOIN.

"Which semesters have no student enrolled?" is often written::

    SELECT s.name FROM semesters AS s JOIN enrolments AS e ON s.id = e.semester_id WHERE e.semester_id IS NULL

The inner join keeps only pairs whose ``e.semester_id`` equals a semester's id, so it is never NULL there and the
query returns nothing on every database. The NULL test is the outer-join idiom for "has no matching row" (the
anti-join; Spider's ``NOT IN`` questions, Yu et al. 2018), so :func:`open_anti_join` makes that join a ``LEFT
JOIN``::

    SELECT s.name FROM semesters AS s LEFT JOIN enrolments AS e ON s.id = e.semester_id WHERE e.semester_id IS NULL

It fires on a plain SELECT (or each side of a set operation) where a top-level ``AND`` condition of the WHERE is
``t.col IS NULL`` (or ``t.col = NULL``, which is never true, read the same way) and ``col`` is a column of ``t``
that an equality of ``t``'s own inner ``JOIN ... ON`` compares with another table, or ``t``'s primary key. It does nothing when the
SELECT shows a column of ``t`` (it would be NULL on every row), when another join's condition or any other part
of the query reads ``t`` (a chain through it needs more than one outer join), or when the column is not
qualified with ``t``'s name or alias. No model call.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from database.sql_sources import conjuncts, parse_query


def _null_test(cond: exp.Expr) -> exp.Column | None:
    """The column of ``t.col IS NULL`` or ``t.col = NULL`` (qualified), else None."""
    if isinstance(cond, exp.Is) and isinstance(cond.expression, exp.Null) or isinstance(cond, exp.EQ) and isinstance(cond.expression, exp.Null):
        column = cond.this
    else:
        return None
    return column if isinstance(column, exp.Column) and column.table else None


def _key_columns(on: exp.Expr | None, name: str) -> set[str]:
    """Lower-cased columns of the table called ``name`` that an equality of ``on`` compares with another table."""
    keys: set[str] = set()
    for eq in (on.find_all(exp.EQ) if on is not None else []):
        left, right = eq.this, eq.expression
        if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
            continue
        for mine, other in ((left, right), (right, left)):
            if mine.table.lower() == name and other.table.lower() != name:
                keys.add(mine.name.lower())
    return keys


def _reads(node: exp.Expr, name: str) -> bool:
    """Does ``node`` read a column qualified with ``name``?"""
    return any(c.table.lower() == name for c in node.find_all(exp.Column))


def _open(select: exp.Select, keys: Mapping[str, list[str]]) -> bool:
    """Make the join of ``select`` that its WHERE asks to be NULL a LEFT JOIN; True when one was changed."""
    where = select.args.get("where")
    joins = select.args.get("joins") or []
    if where is None or not joins or any(isinstance(e, exp.Star) for e in select.expressions):
        return False
    conds = conjuncts(where.this)
    for cond in conds:
        column = _null_test(cond)
        if column is None:
            continue
        name = column.table.lower()
        for join in joins:
            table = join.this
            if not isinstance(table, exp.Table) or table.alias_or_name.lower() != name:
                continue
            never_null = _key_columns(join.args.get("on"), name) | {
                k.lower() for k in keys.get(table.name.lower(), [])}
            if join.side or join.kind not in ("", "INNER") or column.name.lower() not in never_null:
                return False
            others = [j.args.get("on") for j in joins if j is not join and j.args.get("on") is not None]
            rest = [c for c in conds if c is not cond]
            if any(_reads(e, name) for e in [*select.expressions, *others, *rest]) or any(
                    _reads(select.args[part], name) for part in ("group", "having", "order")
                    if select.args.get(part) is not None):
                return False
            join.set("side", "LEFT")
            join.set("kind", None)
            if isinstance(cond, exp.EQ):
                cond.replace(exp.Is(this=column.copy(), expression=exp.Null()))
            return True
    return False


def open_anti_join(sql: str, dialect: str, primary_keys: Mapping[str, list[str]] | None = None) -> str | None:
    """``sql`` with its inner join made a LEFT JOIN where the WHERE asks its join key to be NULL (module docstring).

    ``primary_keys``: lower-cased table -> primary-key columns (a joined table's primary key is never NULL either).
    Returns None when nothing changes or ``sql`` does not parse. Never raises.
    """
    tree = parse_query(sql, dialect)
    if tree is None:
        return None
    selects = [tree] if isinstance(tree, exp.Select) else [
        s for s in (tree.left, tree.right) if isinstance(s, exp.Select)] if isinstance(
        tree, exp.SetOperation) else []
    changed = [_open(select, primary_keys or {}) for select in selects]
    return tree.sql(dialect=dialect) if any(changed) else None
