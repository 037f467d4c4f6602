"""Look-back windows computed before the date filter: "the 50-day average on 2025-10-31" needs the 49 days before.

SQL filters rows (WHERE) before it computes window functions, so ``AVG(close) OVER (ORDER BY day ROWS BETWEEN
49 PRECEDING AND CURRENT ROW)`` with ``WHERE day = '2025-10-31'`` averages one row, and ``LAG(close)`` on the
first day of a filtered range is NULL. A small model writes it that way nearly every time, even with a rule
saying otherwise. :func:`lift_window_filters` moves the outer WHERE's conditions on the window's ORDER BY
column(s) to an enclosing query, so the window sees the history and only the shown rows are filtered:

    SELECT d, ma FROM (SELECT d, AVG(..) OVER (..) AS ma FROM .. WHERE <other conditions>) AS w
    WHERE <date conditions> ORDER BY .. LIMIT ..

Only windows that look back a fixed distance are lifted: LAG/LEAD/FIRST_VALUE, or a frame with ``n
PRECEDING``/``n FOLLOWING``. A running total (``SUM(..) OVER (ORDER BY day)`` without a bounded frame) starts
where the period starts, so its filter stays. Never raises; None when nothing applies.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp

LOOK_BACK = (exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue)


def lift_window_filters(sql: str, dialect: str) -> str | None:
    """``sql`` with its date conditions applied after its look-back windows (see the module docstring)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return None
    if not isinstance(tree, exp.Select) or tree.args.get("where") is None or tree.args.get("group") is not None \
            or tree.args.get("distinct") or tree.args.get("with_") or tree.args.get("with"):
        return None
    windows = [w for p in tree.expressions for w in p.find_all(exp.Window) if _looks_back(w)]
    if not windows:
        return None
    ordering = {c.name.lower() for w in windows for c in (w.args.get("order") or exp.Order()).find_all(exp.Column)}
    names = [p.alias_or_name for p in tree.expressions]
    if not ordering or any(not n for n in names) or len({n.lower() for n in names}) != len(names):
        return None
    condition = tree.args["where"].this
    conjuncts: list[Any] = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    lifted = [c for c in conjuncts if _only_on(c, ordering)]
    kept = [c for c in conjuncts if not _only_on(c, ordering)]
    if not lifted:
        return None
    return _rebuild(tree, lifted, kept, names, ordering, dialect)


def _looks_back(window: exp.Window) -> bool:
    if isinstance(window.this, LOOK_BACK):
        return True
    spec = window.args.get("spec")
    if not isinstance(spec, exp.WindowSpec):
        return False
    bounds = [spec.args.get("start"), spec.args.get("end")]
    return any(b is not None and str(b).upper() not in ("UNBOUNDED", "CURRENT ROW") for b in bounds)


def _only_on(condition: exp.Expression, ordering: set[str]) -> bool:
    """Does ``condition`` read only the window ordering column(s), and no subquery?"""
    columns = list(condition.find_all(exp.Column))
    return bool(columns) and all(c.name.lower() in ordering for c in columns) and not condition.find(exp.Select)


def _rebuild(tree: exp.Select, lifted: list[exp.Expression], kept: list[exp.Expression], names: list[str],
             ordering: set[str], dialect: str) -> str | None:
    inner = tree.copy()
    inner.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
    order, limit, offset = inner.args.get("order"), inner.args.get("limit"), inner.args.get("offset")
    for key in ("order", "limit", "offset"):
        inner.set(key, None)
    shown = {n.lower() for n in names}
    extra = []
    for column in sorted({c.name: c for cond in lifted for c in cond.find_all(exp.Column)}.values(),
                         key=lambda c: c.name):
        if column.name.lower() not in shown:
            extra.append(column.copy())
            shown.add(column.name.lower())
    inner.set("expressions", list(inner.expressions) + extra)
    used = {t.alias_or_name.lower() for t in tree.find_all(exp.Table)} | {
        s.alias_or_name.lower() for s in tree.find_all(exp.Subquery) if s.alias_or_name}
    alias = next(a for a in ("w", *(f"w{i}" for i in range(1, 100))) if a not in used)
    outer = exp.select(*[exp.column(n, table=alias) for n in names]).from_(inner.subquery(alias))
    outer = outer.where(exp.and_(*[_requalify(c, alias) for c in lifted]))
    if order is not None:
        for item in order.expressions:
            if not (isinstance(item.this, exp.Column) and item.this.name.lower() in shown):
                return None
        outer.set("order", _requalify(order, alias))
    if limit is not None:
        outer.set("limit", limit)
    if offset is not None:
        outer.set("offset", offset)
    return outer.sql(dialect=dialect)


def _requalify(node: exp.Expression, alias: str) -> exp.Expression:
    """A copy of ``node`` whose columns read the derived table ``alias``."""
    copy = node.copy()
    for column in copy.find_all(exp.Column):
        column.set("table", exp.to_identifier(alias))
    return copy
