"""Ordering conventions: ``rank_measure`` (a list with one figure reads largest first) and ``ranked_by``.

``ranked_by``: "Which company had the highest trading volume on the most recent trading day?" answered with
the company alone leaves the reader unable to see by how much, and a team whose answers always show the figure
a top-n pick is ranked by declares it. :func:`show_rank_key` appends the first ORDER BY key of a query with a
LIMIT to its SELECT list when the list does not show it (by expression, alias or position); keys with a
subquery or a window are left alone. Adding a projection never changes the rows (DISTINCT queries are never
touched, :func:`rewrites.answer_shape.apply_conventions`).

``rank_measure``:

"Number of stocks per exchange", "Market cap in USD of each Swiss-listed stock", "YTD performance of each index":
analysts read such lists as rankings, and a team that declares this convention orders them by the figure,
descending, ties by the first label. The 1.5B model often writes no ORDER BY at all. The rewrite applies to the
outermost SELECT when it has no ORDER BY, no LIMIT and no DISTINCT and has the shape of
:func:`knowledge.list_shape.ranked_figure` (exactly one computed figure, at least one label, no time axis: a
list per month reads in time order). Rows never change, only their order. Never raises.
"""

from __future__ import annotations

from sqlglot import exp

from knowledge.list_shape import ranked_figure


def rank_by_figure(select: exp.Select, dialect: str) -> bool:
    """Order ``select`` by its one computed figure, descending, then by its first label; True when changed."""
    if select.args.get("order") is not None or select.args.get("limit") is not None or select.args.get("distinct"):
        return False
    shape = ranked_figure(select)
    if shape is None:
        return False
    figure, first = shape
    key = exp.column(figure.alias) if figure.alias else figure.copy()
    select.order_by(exp.Ordered(this=key, desc=True), copy=False)
    tie = exp.column(first.alias) if first.alias else first.copy()
    if tie.sql(dialect=dialect) != key.sql(dialect=dialect):  # two projections of one name: no tie-break by it
        select.order_by(tie, append=True, dialect=dialect, copy=False)
    return True


def show_rank_key(select: exp.Select) -> bool:
    """Append the first ORDER BY key of a LIMITed ``select`` to its SELECT list when not shown; True if changed."""
    order = select.args.get("order")
    if order is None or not order.expressions or select.args.get("limit") is None:
        return False
    key = order.expressions[0].this
    if isinstance(key, exp.Literal) or key.find(exp.Select, exp.Window) is not None:
        return False  # ORDER BY 2 names a shown column; subqueries and windows are left as written
    shown: set[str] = set()
    for projection in select.expressions:
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        shown.add(_text(inner))
        if isinstance(inner, exp.Column):
            shown.add(inner.name.lower())
        if projection.alias:
            shown.add(projection.alias.lower())
    if _text(key) in shown or (isinstance(key, exp.Column) and not key.table and key.name.lower() in shown):
        return False
    select.set("expressions", [*select.expressions, key.copy()])
    return True


def _text(node: exp.Expr) -> str:
    return node.sql().lower()
