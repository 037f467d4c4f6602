"""The ``rank_measure`` answer convention: a list of labels with one computed figure, largest first.

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
    select.order_by(tie, append=True, dialect=dialect, copy=False)
    return True
