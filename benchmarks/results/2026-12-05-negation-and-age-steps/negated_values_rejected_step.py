"""'Publishers which do not have a book in 1989' over one table: the values that never occur with it (EXCEPT).

When the thing asked about is not a table of its own but a column that repeats in one (``book_club.publisher``,
one row per book), a small model answers a negated relation with a row filter::

    SELECT publisher FROM book_club WHERE year != 1989

which lists every publisher with *some* book outside 1989 - those with a 1989 book included. The question asks
for the publishers that have no such row at all::

    SELECT publisher FROM book_club EXCEPT SELECT publisher FROM book_club WHERE year = 1989

:func:`fix_negated_values` makes that change only when all of these hold:

- the question negates *having* a related thing: "do not have", "doesn't own", "never had", "without"
  (:data:`HAVE_NOT`); a negated attribute ("an award that is not the Tony", "not of type X") is a plain row
  filter and is left alone;
- the query is one ``SELECT`` of plain columns from one table (no join, grouping, limit or subquery), and its
  ``WHERE`` is a conjunction with exactly one condition to negate: a column ``<>`` a constant, or a comparison
  with the number the question states after its negation (``membership_amount >= 100`` for "without a branch
  having more than 100 memberships": the subtracted rows keep the stated ``> 100``,
  :func:`rewrites.negated_joins.negated_comparisons`);
- the selected values repeat in the table (the database is asked): when each row is its own entity, the row
  filter is the right answer.

The other conditions stay on the first part. No model call; the single-table converse of
:mod:`rewrites.negated_joins` (Spider's ``EXCEPT`` gold queries, Yu et al. 2018).
"""

from __future__ import annotations

import re

from sqlglot import exp

from database.connection import Database
from database.sql_sources import conjuncts, parse_select
from rewrites.negated_joins import negated_comparisons

HAVE_NOT = re.compile(
    r"\b(?:(?:do|does|did)\s+not|(?:do|does|did)n['\u2019]t|never)\s+(?:have|has|had|own|hold|contain|include)\b"
    r"|\bwithout\b", re.IGNORECASE)
"""A negated having: the relation the anti-join negates."""

_COMPARISONS = (exp.GT, exp.GTE, exp.LT, exp.LTE)


def _number(node: exp.Expr) -> float | None:
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.this)
        except ValueError:
            return None
    return None


def _subtracted(condition: exp.Expr, stated: list[tuple[type[exp.Binary], float]]) -> exp.Expr | None:
    """The condition the rows to subtract meet, when ``condition`` is the one to negate (else None)."""
    if not isinstance(condition, exp.Binary) or not isinstance(condition.left, exp.Column):
        return None
    if isinstance(condition, exp.NEQ) and isinstance(condition.right, exp.Literal):
        return exp.EQ(this=condition.left.copy(), expression=condition.right.copy())
    if isinstance(condition, _COMPARISONS):
        value = _number(condition.right)
        ops = [op for op, n in stated if n == value]
        if value is not None and len(ops) == 1:
            return ops[0](this=condition.left.copy(), expression=condition.right.copy())
    return None


def _repeats(db: Database, table: exp.Table, columns: list[exp.Column], dialect: str) -> bool:
    """Do the selected columns' values repeat in ``table`` (more rows than distinct values)? False on error."""
    shown = ", ".join(c.sql(dialect=dialect) for c in columns)
    source = table.sql(dialect=dialect)
    res = db.run_query(f"SELECT COUNT(*) FROM (SELECT {shown} FROM {source}) AS t", row_cap=1)
    distinct = db.run_query(f"SELECT COUNT(*) FROM (SELECT DISTINCT {shown} FROM {source}) AS t", row_cap=1)
    if not (res.ok and distinct.ok and res.rows and distinct.rows):
        return False
    return bool(res.rows[0][0] > distinct.rows[0][0])


def fix_negated_values(sql: str, dialect: str, question: str, db: Database) -> str | None:
    """``sql`` as ``... EXCEPT ...`` when a negated having was answered by a row filter on one table.

    ``db`` is asked whether the selected values repeat. Returns None when the question does not negate a
    having, the query does not have the shape of the module docstring, the values do not repeat, or ``sql``
    does not parse. Never raises on bad SQL (a failing probe leaves the query alone).
    """
    if not HAVE_NOT.search(question.replace("\u2019", "'")):
        return None
    select = parse_select(sql, dialect)
    if select is None or any(select.args.get(k) for k in ("joins", "group", "having", "limit", "with")):
        return None
    source = select.args.get("from_") or select.args.get("from")
    where = select.args.get("where")
    if not isinstance(source, exp.From) or not isinstance(source.this, exp.Table) or where is None:
        return None
    if select.find(exp.Subquery) is not None or not all(isinstance(e, exp.Column) for e in select.expressions):
        return None
    conditions = conjuncts(where.this)
    stated = negated_comparisons(question)
    found = [(c, s) for c in conditions if (s := _subtracted(c, stated)) is not None]
    if len(found) != 1 or not _repeats(db, source.this, list(select.expressions), dialect):
        return None
    negated, subtracted = found[0]
    rest = [c.copy() for c in conditions if c is not negated]
    keep = select.copy()
    keep.set("distinct", None)
    keep.set("order", None)
    keep.set("where", exp.Where(this=exp.and_(*rest)) if rest else None)
    drop = keep.copy()
    drop.set("where", exp.Where(this=subtracted))
    result = exp.Except(this=keep, expression=drop, distinct=True)
    order = select.args.get("order")
    if order is not None:
        result.set("order", order.copy())
    return result.sql(dialect=dialect)
