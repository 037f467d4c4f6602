"""The ``series`` answer convention: a series computed by a window over a date shows the date and its input.

"Running total of Nvidia's traded volume during October 2025" answered with the running totals alone (no day, no
daily volume) cannot be read; the team's examples show such series as (day, value read, value computed):
``TRD_DT, PX_LST, ma10``. For a knowledge record ``convention: series`` whose ``columns`` are date columns,
:func:`show_series_inputs` adds to a query's SELECT list, when missing, the window's ORDER BY date and the column
its function reads (``SUM(p.PX_VOL) OVER (ORDER BY p.TRD_DT)`` -> ``p.TRD_DT``, ``p.PX_VOL``). The window may be
in the outermost SELECT or in its one derived table (``FROM (SELECT ..., AVG(..) OVER (..) AS ma FROM ..) AS w``;
then the columns are added to both levels). Not applied to a series pinned to one day (``WHERE d = '...'``:
one value answers), grouped, DISTINCT or LIMITed queries. Rows never change. Never raises.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from database.sql_sources import sources


def show_series_inputs(select: exp.Select, dates: Sequence[tuple[str, str]]) -> bool:
    """Add the window's date and input columns to ``select`` (see the module); True when changed.

    ``dates`` are the convention's ``(table, column)`` date columns (case-insensitive; the table is not checked,
    the window's ORDER BY column name must be one of them).
    """
    if select.args.get("group") or select.args.get("distinct") or select.args.get("limit"):
        return False
    inner, alias = _window_select(select)
    if inner is None:
        return False
    window = next(w for p in inner.expressions for w in p.find_all(exp.Window))
    order = window.args.get("order")
    keys = order.expressions if order is not None else []
    date = keys[0].this if keys and isinstance(keys[0].this, exp.Column) else None
    read = window.this.find(exp.Column) if isinstance(window.this, exp.Func) else None
    if date is None or date.name.lower() not in {c.lower() for _, c in dates}:
        return False
    if _pinned(select, date.name) or (inner is not select and _pinned(inner, date.name)):
        return False
    wanted = [c for c in (date, read) if c is not None]
    wanted = [c for i, c in enumerate(wanted) if c.name.lower() not in {w.name.lower() for w in wanted[:i]}]
    added: list[exp.Expr] = []
    for column in wanted:
        if inner is not select and not _shows(inner, column.name):
            inner.set("expressions", [*inner.expressions, column.copy()])
        if not _shows(select, column.name):
            added.append(exp.column(column.name, table=alias) if inner is not select else column.copy())
    select.set("expressions", [*added, *select.expressions])
    return bool(added)


def _window_select(select: exp.Select) -> tuple[exp.Select | None, str | None]:
    """The SELECT holding the window (``select`` or its one derived table) and that table's alias."""
    if any(p.find(exp.Window) for p in select.expressions):
        return select, None
    found = sources(select)
    if len(found) == 1 and isinstance(found[0], exp.Subquery) and isinstance(found[0].this, exp.Select):
        inner = found[0].this
        if any(p.find(exp.Window) for p in inner.expressions) and not inner.args.get("group"):
            return inner, found[0].alias or None
    return None, None


def _shows(select: exp.Select, name: str) -> bool:
    """Does ``select`` show a column (or an alias) called ``name``?"""
    lower = name.lower()
    for projection in select.expressions:
        if projection.alias_or_name.lower() == lower:
            return True
        if isinstance(projection, exp.Star) or (isinstance(projection, exp.Column) and projection.is_star):
            return True
    return False


def _pinned(select: exp.Select, date: str) -> bool:
    """Does ``select``'s WHERE fix the date column to one value (``d = ...``)?"""
    where = select.args.get("where")
    if where is None:
        return False
    return any(isinstance(side, exp.Column) and side.name.lower() == date.lower()
               for eq in where.find_all(exp.EQ) for side in (eq.this, eq.expression))
