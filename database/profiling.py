"""Column profiles: null share, distinct count, min/max, top values of low-cardinality text columns.

Min/max are computed for numbers and dates.

Per table, :func:`profile_table` runs one aggregate statement over all columns (``COUNT(*)``, and per column
``COUNT(c)``, ``COUNT(DISTINCT c)``, ``MIN(c)``, ``MAX(c)``) and then one ``GROUP BY`` per low-cardinality text
column. Statements are built with sqlglot expressions (every identifier quoted) and run through
:meth:`database.connection.Database.run_query`, i.e. the guarded read-only path with its timeout.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

import sqlglot.expressions as exp

from database.connection import Database
from database.schema_types import ColumnInfo, ColumnProfile, TableInfo

log = logging.getLogger(__name__)

_OPAQUE_TYPE_RE = re.compile(r"BLOB|CLOB|BYTEA|BINARY|\bRAW\b|\bLONG\b|IMAGE|JSON|XML|BFILE|GEOMETRY|\[\]|ARRAY")
_DATE_TYPE_RE = re.compile(r"DATE|TIME")
_DATE_TEXT_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$")


def _ident(name: str) -> exp.Column:
    return exp.Column(this=exp.to_identifier(name, quoted=True))


def _table(name: str) -> exp.Table:
    return exp.Table(this=exp.to_identifier(name, quoted=True))


def _opaque(column: ColumnInfo) -> bool:
    """True for binary/LOB/structured types where only NULLs are counted (MIN/DISTINCT fail or mean nothing)."""
    return bool(_OPAQUE_TYPE_RE.search(column.type.upper()))


def aggregate_query(table: TableInfo, dialect: str) -> str:
    """The single aggregate SELECT of :func:`profile_table` for ``table`` in sqlglot ``dialect``.

    Output columns, in order: ``COUNT(*)``, then per column ``COUNT(c)`` and, unless the column is
    binary/LOB, ``COUNT(DISTINCT c)``, ``MIN(c)``, ``MAX(c)``.
    """
    selects: list[exp.Expression] = [exp.Count(this=exp.Star())]
    for column in table.columns:
        ident = _ident(column.name)
        selects.append(exp.Count(this=ident))
        if not _opaque(column):
            selects += [
                exp.Count(this=exp.Distinct(expressions=[_ident(column.name)])),
                exp.Min(this=_ident(column.name)),
                exp.Max(this=_ident(column.name)),
            ]
    return exp.select(*selects).from_(_table(table.name)).sql(dialect=dialect)


def top_values_query(table: TableInfo, column: str, top_n: int, dialect: str) -> str:
    """Top-values statement of one column, capped at ``top_n`` rows, in sqlglot ``dialect``.

    ``SELECT c, COUNT(*) FROM t WHERE c IS NOT NULL GROUP BY c ORDER BY COUNT(*) DESC, c``.
    """
    count = exp.Count(this=exp.Star())
    query = (
        exp.select(_ident(column), count)
        .from_(_table(table.name))
        .where(exp.Not(this=exp.Is(this=_ident(column), expression=exp.Null())))
        .group_by(_ident(column))
        .order_by(exp.Ordered(this=count.copy(), desc=True), exp.Ordered(this=_ident(column)))
        .limit(top_n)
    )
    return query.sql(dialect=dialect)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_date_text(value: Any) -> bool:
    return isinstance(value, str) and bool(_DATE_TEXT_RE.match(value))


def _kind(column: ColumnInfo, lo: Any, hi: Any) -> str:
    """"number", "date" or "text" from the observed min/max (and the declared type when all are NULL)."""
    if lo is None and hi is None:
        declared = column.type.upper()
        if _DATE_TYPE_RE.search(declared):
            return "date"
        if any(t in declared for t in ("INT", "REAL", "NUM", "DEC", "FLOA", "DOUB")):
            return "number"
        return "text"
    if _is_number(lo) and _is_number(hi):
        return "number"
    if _is_date_text(lo) and _is_date_text(hi):
        return "date"
    return "text"


def profile_table(
    db: Database, table: TableInfo, *, top_n: int = 10, low_cardinality: int = 50
) -> dict[str, ColumnProfile]:
    """Profile every column of ``table``: ``{column name: ColumnProfile}`` (see :class:`ColumnProfile`).

    Args:
        db: the database; statements go through ``db.run_query`` (guarded, read-only, timed out).
        table: the table (its ``columns`` and ``name`` are used).
        top_n: at most this many ``(value, count)`` pairs per low-cardinality text column.
        low_cardinality: text columns with at most this many distinct values get ``top_values``.

    Returns:
        The profiles; ``{}`` when the aggregate statement fails (error logged, e.g. a timeout). A failed
        ``GROUP BY`` leaves that column's ``top_values`` empty. Never raises for database errors.
    """
    if not table.columns:
        return {}
    result = db.run_query(aggregate_query(table, db.dialect), row_cap=1)
    if not result.ok or not result.rows:
        log.warning("profiling %s failed: %s", table.name, result.error)
        return {}
    values = list(result.rows[0])
    row_count = int(values[0] or 0)
    pos = 1
    profiles: dict[str, ColumnProfile] = {}
    for column in table.columns:
        non_null = int(values[pos] or 0)
        pos += 1
        profile = ColumnProfile(row_count=row_count,
                                null_share=(row_count - non_null) / row_count if row_count else 0.0)
        if not _opaque(column):
            distinct, lo, hi = values[pos : pos + 3]
            pos += 3
            profile.distinct_count = int(distinct or 0)
            profile.kind = _kind(column, lo, hi)
            if profile.kind in ("number", "date"):
                profile.min, profile.max = lo, hi
        profiles[column.name] = profile
    for column in table.columns:
        profile = profiles[column.name]
        if profile.kind == "text" and 0 < (profile.distinct_count or 0) <= low_cardinality and top_n > 0:
            top = db.run_query(top_values_query(table, column.name, top_n, db.dialect), row_cap=top_n)
            if top.ok:
                profile.top_values = [(value, int(count)) for value, count in top.rows]
            else:
                log.warning("top values of %s.%s failed: %s", table.name, column.name, top.error)
    return profiles


def attach_profiles(
    db: Database, tables: Sequence[TableInfo], *, top_n: int = 10, low_cardinality: int = 50
) -> None:
    """Set ``column.profile`` of every column of ``tables`` in place via :func:`profile_table`.

    Columns of a table whose profiling failed keep ``profile=None``.
    """
    for table in tables:
        profiles = profile_table(db, table, top_n=top_n, low_cardinality=low_cardinality)
        for column in table.columns:
            column.profile = profiles.get(column.name)
