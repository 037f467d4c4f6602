"""Date bounds copied from a few-shot example, re-aligned with the one period the question names.

Asked for a ranking by return over a half year next to a few-shot example that computes a return over a
quarter (last close before ``'2024-07-01'``, last close on or before ``'2024-09-30'``), the 1.5B model can keep
the example's quarter, moved into the question's year: it writes ``< '2025-06-30'`` and ``<= '2025-09-30'`` for
January to June 2025, although the definitions block showed that half year as 2025-01-01 to 2025-06-30.
:func:`align_period_dates` re-aligns the bounds when all of these hold:

- the question names exactly one period, a span of days (a month, quarter, half, year; not one day, not
  year-to-date), resolved by :func:`knowledge.periods.resolve_periods`, and that period is closed: "since 2020",
  "until March 2024" or "2020 onwards" name one end of an open range, and a query bounded on the other side is
  left as written;
- every ISO date literal of the SQL bounds a range (``<``, ``<=``, ``>``, ``>=``, ``BETWEEN``; an equality such
  as ``VLD_FR = '2023-04-03'`` names a day on purpose and leaves the query alone) and there are exactly two
  distinct ones, a lower and an upper;
- a bound is off: the lower is neither the period's first day nor the day before, the upper neither its last day
  nor the day after.

An off lower bound becomes the first day (the day before with ``>``); an off upper bound the last day (the day
after with ``<``). Before the query runs, no model call; never raises.
"""

from __future__ import annotations

import datetime as dt
import re

from sqlglot import exp

from database.sql_sources import parse_select
from knowledge.periods import resolve_periods

ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_RANGE = (exp.LT, exp.LTE, exp.GT, exp.GTE)


def align_period_dates(sql: str, dialect: str, question: str) -> str | None:
    """``sql`` with its two date bounds moved onto the question's one period (see the module); None if unchanged."""
    periods = resolve_periods(question)
    if len(periods) != 1 or periods[0].to_latest or periods[0].open_ended or periods[0].start == periods[0].end:
        return None
    start, end = dt.date.fromisoformat(periods[0].start), dt.date.fromisoformat(periods[0].end)
    tree = parse_select(sql, dialect)
    if tree is None:
        return None
    literals = [lit for lit in tree.find_all(exp.Literal) if lit.is_string and ISO_DAY.match(str(lit.this))]
    if not literals or not all(_bounds_a_range(lit) for lit in literals):
        return None
    days = sorted({str(lit.this) for lit in literals})
    if len(days) != 2:
        return None
    low, high = (dt.date.fromisoformat(d) for d in days)
    day = dt.timedelta(days=1)
    changed = False
    for lit in literals:
        value = dt.date.fromisoformat(str(lit.this))
        if value == low and low not in (start, start - day):
            new = start - day if isinstance(lit.parent, exp.GT) and lit.parent.expression is lit else start
        elif value == high and high not in (end, end + day):
            new = end + day if isinstance(lit.parent, exp.LT) and lit.parent.expression is lit else end
        else:
            continue
        lit.replace(exp.Literal.string(new.isoformat()))
        changed = True
    return tree.sql(dialect=dialect) if changed else None


def _bounds_a_range(literal: exp.Literal) -> bool:
    """Is ``literal`` one side of a range comparison or a BETWEEN bound?"""
    parent = literal.parent
    if isinstance(parent, exp.Between):
        return literal is not parent.this
    return isinstance(parent, _RANGE)
