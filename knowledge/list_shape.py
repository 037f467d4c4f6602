"""The shape of a "list with one computed figure" query, shared by the ``rank_measure`` convention and mining.

A query lists labels with one figure when its SELECT has at least one label and exactly one computed figure:
an aggregate of its own (``COUNT(*)``, ``SUM(x)``) or arithmetic over columns (``SHR_OUT * PX_LST / FX_RT``);
plain columns (a price, a weight) are labels. It is a list over time, not a ranking, when a label or a group key
is a time axis: a function (``strftime``, ``substr(date, 1, 7)``) or a column named like a date (``*date*``,
``*_dt``, ``month``, ``year``...). Used by :mod:`rewrites.answer_order` (apply) and :mod:`knowledge.mining`
(propose from a workload).
"""

from __future__ import annotations

import re

from sqlglot import exp

TIME_NAME = re.compile(r"(date|_dt$|^dt_|^dt$|time|day|week|month|quarter|year|period)", re.IGNORECASE)
"""Column names read as a time axis."""

_ARITHMETIC = (exp.Mul, exp.Div, exp.Add, exp.Sub)


def ranked_figure(select: exp.Select) -> tuple[exp.Expr, exp.Expr] | None:
    """(figure, first label) of a list with one computed figure and no time axis (see the module); else None."""
    figures = [p for p in select.expressions if _figure(p, select)]
    labels = [p for p in select.expressions if p not in figures]
    if len(figures) != 1 or not labels or any(time_axis(p) for p in labels):
        return None
    group = select.args.get("group")
    if group is not None and any(time_axis(g) for g in group.expressions):
        return None
    return figures[0], labels[0]


def _figure(projection: exp.Expr, select: exp.Select) -> bool:
    """Is ``projection`` computed: an aggregate of ``select`` itself, or arithmetic over columns (no window)?"""
    inner = projection.this if isinstance(projection, exp.Alias) else projection
    if inner.find(exp.Window) is not None or inner.find(exp.Select) is not None:
        return False
    if any(agg.find_ancestor(exp.Select) is select for agg in inner.find_all(exp.AggFunc)):
        return True
    return isinstance(inner, _ARITHMETIC) and inner.find(exp.Column) is not None


def time_axis(node: exp.Expr) -> bool:
    """Is ``node`` (a projection, group or order key) a date function or a column named like a date?"""
    inner = node.this if isinstance(node, exp.Alias) else node
    alias = node.alias if isinstance(node, exp.Alias) else ""
    if isinstance(inner, exp.Column):
        return bool(TIME_NAME.search(inner.name)) or bool(alias and TIME_NAME.search(alias))
    if isinstance(inner, exp.Func):
        return True  # strftime(...), substr(date, 1, 7), date_trunc(...): labels computed by a function
    return bool(alias and TIME_NAME.search(alias))
