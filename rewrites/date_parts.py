"""Date functions over columns that hold no dates read the column itself (SQLite).

Small models write ``strftime('%Y', Year)`` for a column that already stores the year as a number, and
``strftime('%A', day_of_week)`` for one that stores 'Monday'. SQLite does not fail on either: it reads the number
2004 as a Julian day (year -4707) and a weekday name as no date at all (NULL), so the query runs and answers
wrongly or with nothing - the repair never sees an error. :func:`fix_date_parts` probes the column's stored
values and, when they are not dates, puts the column in place of the call:

- every sampled value is one SQLite's ``DATE()`` cannot read (weekday or month names, seasons, codes): the call
  becomes the column, whatever its format;
- every sampled value is a whole number or four-digit text between 1000 and 2999 (a year) and the format is
  ``'%Y'``: the call becomes the column;
- such a column of years compared with a date literal (``compatible_since_year > '1998-01-01'``, which SQLite
  answers by comparing a number with text: always false or always true) is compared with the literal's year
  (``> 1998``), as a number or as text the way the column stores it.

Real dates, Julian day numbers, timestamps and calls with modifiers (``'unixepoch'``) are left alone, as are
columns the query does not resolve to one table. No model call; each probe is one guarded read-only
``SELECT DISTINCT`` of at most :data:`SAMPLE` values. Idea: execution-guided correction without a model (the
value probes of RAISE, Granado et al. 2025), applied to functions whose misuse the engine does not report.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeGuard

from sqlglot import exp

from database.connection import Database
from database.sql_sources import parse_query

SAMPLE = 50
"""At most this many distinct non-NULL values are read per probed column."""

_YEAR_TEXT = re.compile(r"^\s*\d{4}\s*$")
_DATE_TEXT = re.compile(r"^\s*(\d{4})-\d{2}(-\d{2})?([ T][\d:.]+)?\s*$")
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def _year_like(value: object) -> bool:
    """A whole number (or four-digit text) between 1000 and 2999."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return 1000 <= int(value) <= 2999
    return isinstance(value, str) and bool(_YEAR_TEXT.match(value)) and 1000 <= int(value) <= 2999


def _table_of(column: exp.Column, tables: dict[str, exp.Table],
              columns: Mapping[str, set[str]]) -> exp.Table | None:
    """The table ``column`` reads: its qualifier's, else the one table of the query that has the column."""
    if column.table:
        return tables.get(column.table.lower())
    distinct = {t.name.lower(): t for t in tables.values()}
    if len(distinct) == 1:
        return next(iter(distinct.values()))
    having = [t for name, t in distinct.items() if column.name.lower() in columns.get(name, set())]
    return having[0] if len(having) == 1 else None


def _probe(db: Database, table: exp.Table, column: exp.Column) -> list[tuple[object, object]]:
    """(value, ``DATE(value)``) for up to :data:`SAMPLE` distinct non-NULL stored values ([] when it fails)."""
    bare = exp.Table(this=table.this.copy(), db=table.args["db"].copy() if table.args.get("db") else None)
    col = exp.Column(this=column.this.copy())
    query = (exp.select(col.copy(), exp.Date(this=col.copy())).distinct().from_(bare)
             .where(exp.Not(this=exp.Is(this=col.copy(), expression=exp.Null()))).limit(SAMPLE))
    res = db.run_query(query.sql(dialect="sqlite"), row_cap=SAMPLE)
    return [(r[0], r[1]) for r in res.rows] if res.ok else []


def _holds_no_dates(values: list[tuple[object, object]], fmt: str) -> bool:
    """Do the sampled values say the column is not a date (see the module docstring)?"""
    if not values:
        return False
    if all(date is None for _, date in values):
        return True
    return fmt == "%Y" and all(_year_like(value) for value, _ in values)


def fix_date_parts(sql: str, dialect: str, db: Database, columns: Mapping[str, set[str]]) -> str | None:
    """``sql`` with date functions and date literals fitted to columns that hold no dates (module docstring).

    ``strftime(fmt, column)`` becomes ``column`` where the column holds no dates; a date literal compared with a
    column of years becomes its year. ``columns`` maps lower-cased table names to lower-cased column names (resolves unqualified columns when the
    query reads several tables). Only SQLite (``dialect == "sqlite"``): other engines raise an error a repair
    sees. Returns None when nothing changes or ``sql`` does not parse. Never raises.
    """
    if dialect != "sqlite":
        return None
    tree = parse_query(sql, "sqlite")
    if tree is None:
        return None
    tables = {t.alias_or_name.lower(): t for t in tree.find_all(exp.Table) if t.name}
    seen: dict[tuple[str, str], list[tuple[object, object]]] = {}

    def probe(column: exp.Column) -> list[tuple[object, object]] | None:
        table = _table_of(column, tables, columns)
        if table is None:
            return None
        key = (table.name.lower(), column.name.lower())
        if key not in seen:
            seen[key] = _probe(db, table, column)
        return seen[key]

    changed = False
    for call in list(tree.find_all(exp.TimeToStr)):
        inner = call.this.this if isinstance(call.this, exp.TsOrDsToTimestamp) else call.this
        fmt = call.args.get("format")
        if not isinstance(inner, exp.Column) or not isinstance(fmt, exp.Literal) or not fmt.is_string:
            continue
        values = probe(inner)
        if values is not None and _holds_no_dates(values, str(fmt.this)):
            call.replace(inner.copy())
            changed = True
    for column, literal in _dates_compared(tree):
        values = probe(column)
        if not values or not all(_year_like(value) for value, _ in values):
            continue
        year = _DATE_TEXT.match(str(literal.this)).group(1)  # type: ignore[union-attr]
        as_text = all(isinstance(value, str) for value, _ in values)
        literal.replace(exp.Literal.string(year) if as_text else exp.Literal.number(int(year)))
        changed = True
    return tree.sql(dialect="sqlite") if changed else None


def _dates_compared(tree: exp.Expr) -> list[tuple[exp.Column, exp.Literal]]:
    """(column, date literal) pairs of the comparisons and BETWEEN bounds of ``tree`` (a parsed query)."""
    def is_date(node: object) -> TypeGuard[exp.Literal]:
        return isinstance(node, exp.Literal) and node.is_string and bool(_DATE_TEXT.match(str(node.this)))

    pairs: list[tuple[exp.Column, exp.Literal]] = []
    for node in tree.find_all(*_COMPARISONS):
        left, right = node.this, node.expression
        if isinstance(left, exp.Column) and is_date(right):
            pairs.append((left, right))
        elif isinstance(right, exp.Column) and is_date(left):
            pairs.append((right, left))
    for between in tree.find_all(exp.Between):
        if isinstance(between.this, exp.Column):
            for bound in (between.args.get("low"), between.args.get("high")):
                if is_date(bound):
                    pairs.append((between.this, bound))
    return pairs
