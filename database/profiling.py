"""Column profiles: null share, distinct count, min/max, top values of low-cardinality text columns.

Min/max are computed for numbers and dates.

Per table, :func:`profile_table` counts the rows, runs one aggregate statement over all columns (``COUNT(*)``, and
per column ``COUNT(c)``, ``COUNT(DISTINCT c)``, ``MIN(c)``, ``MAX(c)``) and then one ``GROUP BY`` per
low-cardinality text column. A table of more than :data:`SAMPLE_ROWS` rows counts distinct values over a sample
of that many rows (the sort ``COUNT(DISTINCT)`` needs does not fit the query timeout on a table of millions). Statements are built with sqlglot expressions (every identifier quoted) and run through
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


SAMPLE_ROWS = 200_000
"""Tables with more rows get their distinct counts from a sample of this many rows (:func:`sample_of`).

``COUNT(DISTINCT c)`` sorts every value of the column; on 2 cores SQLite took 9.7 s for three text columns of a
2-million-row table (2026-12-07), so a fact table of a few million rows and ten columns exceeds the 15 s query
timeout and used to lose its whole profile. ``COUNT``, ``MIN`` and ``MAX`` need no sort and still cover the whole
table (1.3 s for that table)."""


def sample_of(table: str, rows: int, alias: str = "profiled", *, step: int | None = None,
              dialect: str = "sqlite") -> exp.Subquery:
    """``(SELECT * FROM table [spread] LIMIT rows) AS profiled`` (or ``alias``): a sample of at most ``rows`` rows.

    Without ``step`` (or ``step`` <= 1) the sample is the first ``rows`` rows the engine returns: portable and one
    short scan, but on a table filled in time order these are its oldest rows, so a value that only appears later
    is missing. With ``step`` (see :func:`spread_step`) it is spread over the whole table: on SQLite every
    ``step``-th row by ``rowid`` (``WHERE rowid % step = 0``: deterministic, one scan without a sort); on
    PostgreSQL ``TABLESAMPLE SYSTEM`` of ``110 / step`` percent of the pages with a fixed ``REPEATABLE`` seed
    (pages picked at random, so the sample is the same for an unchanged table; SQL:2003 ``TABLESAMPLE``).
    """
    source = _table(table)
    query = exp.select("*")
    if step is not None and step > 1 and dialect in ("postgres", "postgresql"):
        percent = min(100.0, round(110.0 / step, 4))
        source.set("sample", exp.TableSample(method=exp.var("SYSTEM"), percent=exp.Literal.number(percent),
                                             seed=exp.Literal.number(0)))
    elif step is not None and step > 1:
        query = query.where(exp.EQ(this=exp.Mod(this=exp.column("rowid"), expression=exp.Literal.number(step)),
                                   expression=exp.Literal.number(0)))
    return query.from_(source).limit(rows).subquery(alias)


def spread_step(db: Database, table: str, total: int | None, rows: int) -> int | None:
    """The ``step`` of :func:`sample_of` for a sample of ``rows`` rows of ``table`` (``total`` rows), or None.

    None (the first rows) when the total is unknown or at most ``rows``, and where this module cannot write a
    spread sample: SQLite tables without a ``rowid`` (``WITHOUT ROWID``, views; probed with one guarded
    ``SELECT rowid ... LIMIT 1``), PostgreSQL relations that refuse ``TABLESAMPLE`` (views, foreign tables; probed
    with ``TABLESAMPLE SYSTEM (0)``) and engines other than SQLite and PostgreSQL. Never raises.
    """
    if total is None or total <= rows or rows <= 0:
        return None
    step = -(-total // rows)
    if db.dialect in ("postgres", "postgresql"):  # views and foreign tables refuse TABLESAMPLE: probe with 0%
        source = _table(table)
        source.set("sample", exp.TableSample(method=exp.var("SYSTEM"), percent=exp.Literal.number(0)))
        probe = db.run_query(exp.select(exp.Literal.number(1)).from_(source).limit(1).sql(dialect="postgres"),
                             row_cap=1)
        return step if probe.ok else None
    if db.dialect != "sqlite":
        return None
    probe = db.run_query(exp.select(exp.column("rowid")).from_(_table(table)).limit(1).sql(dialect="sqlite"),
                         row_cap=1)
    return step if probe.ok and probe.rows and isinstance(probe.rows[0][0], int) else None


def aggregate_query(table: TableInfo, dialect: str, *, distinct: bool = True, sample: int | None = None,
                    step: int | None = None) -> str:
    """The aggregate SELECT of :func:`profile_table` for ``table`` in sqlglot ``dialect``.

    Output columns, in order: ``COUNT(*)``, then per column ``COUNT(c)`` and, unless the column is binary/LOB,
    ``COUNT(DISTINCT c)`` (only when ``distinct``), ``MIN(c)``, ``MAX(c)``. ``sample``: read a sample of that many
    rows (:func:`sample_of`, spread by ``step`` when given) instead of the whole table.
    """
    selects: list[exp.Expression] = [exp.Count(this=exp.Star())]
    for column in table.columns:
        ident = _ident(column.name)
        selects.append(exp.Count(this=ident))
        if not _opaque(column):
            if distinct:
                selects.append(exp.Count(this=exp.Distinct(expressions=[_ident(column.name)])))
            selects += [exp.Min(this=_ident(column.name)), exp.Max(this=_ident(column.name))]
    source = sample_of(table.name, sample, step=step, dialect=dialect) if sample is not None else _table(table.name)
    return exp.select(*selects).from_(source).sql(dialect=dialect)


def distinct_query(table: TableInfo, dialect: str, sample: int, step: int | None = None) -> str:
    """``SELECT COUNT(*), COUNT(DISTINCT c), ...`` over a sample of at most ``sample`` rows.

    The sample is :func:`sample_of` (spread by ``step``); the output is the rows the sample holds, then one count
    per column that is not binary/LOB.
    """
    counts = [exp.Count(this=exp.Distinct(expressions=[_ident(c.name)])) for c in table.columns if not _opaque(c)]
    source = sample_of(table.name, sample, step=step, dialect=dialect)
    return exp.select(exp.Count(this=exp.Star()), *counts).from_(source).sql(dialect=dialect)


def retry_sample(rows: int) -> int:
    """Rows to sample after a whole-table statement over ``rows`` rows timed out: a tenth, at least 1,000."""
    return max(1_000, rows // 10)


def row_count(db: Database, table: TableInfo) -> int | None:
    """``COUNT(*)`` of ``table`` through the guarded path; None when it fails (e.g. a timeout) and no estimate exists.

    On PostgreSQL a ``COUNT(*)`` that does not finish (a scan of a table of hundreds of millions of rows) falls back
    to the planner's estimate, ``pg_class.reltuples`` as of the table's last ``ANALYZE`` (None when never analysed),
    so the table is still sampled spread over its pages rather than read from its first rows.
    """
    res = db.run_query(exp.select(exp.Count(this=exp.Star())).from_(_table(table.name)).sql(dialect=db.dialect),
                       row_cap=1)
    if res.ok and res.rows:
        return int(res.rows[0][0] or 0)
    if db.dialect not in ("postgres", "postgresql"):
        return None
    name = exp.Literal.string(table.name).sql(dialect="postgres")
    estimate = db.run_query("SELECT c.reltuples FROM pg_class c WHERE c.relname = " + name + " AND c.relkind IN "
                            "('r', 'p', 'm') AND pg_table_is_visible(c.oid)", row_cap=1)
    if estimate.ok and estimate.rows and estimate.rows[0][0] is not None and float(estimate.rows[0][0]) >= 0:
        return int(float(estimate.rows[0][0]))
    return None


def top_values_query(table: TableInfo, column: str, top_n: int, dialect: str, *, sample: int | None = None,
                     step: int | None = None) -> str:
    """Top-values statement of one column, capped at ``top_n`` rows, in sqlglot ``dialect``.

    ``SELECT c, COUNT(*) FROM t WHERE c IS NOT NULL GROUP BY c ORDER BY COUNT(*) DESC, c``; ``sample``: over a
    sample of that many rows (:func:`sample_of`, spread by ``step``).
    """
    count = exp.Count(this=exp.Star())
    query = (
        exp.select(_ident(column), count)
        .from_(sample_of(table.name, sample, step=step, dialect=dialect) if sample is not None
               else _table(table.name))
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
    db: Database, table: TableInfo, *, top_n: int = 10, low_cardinality: int = 50, sample_rows: int = SAMPLE_ROWS
) -> dict[str, ColumnProfile]:
    """Profile every column of ``table``: ``{column name: ColumnProfile}`` (see :class:`ColumnProfile`).

    A table of at most ``sample_rows`` rows is profiled whole in one aggregate statement. A larger one (or one
    whose whole-table statement failed, e.g. timed out; its sample is then :func:`retry_sample` rows) gets its row count, null shares and ranges from one
    statement without ``DISTINCT`` over the whole table and its distinct counts from a sample of ``sample_rows``
    rows spread over the table where the engine allows (:func:`spread_step`; ``ColumnProfile.distinct_sample``: the
    rows the sample held); when even that whole-table statement fails, the null shares come
    from the sample as well and the ranges are left unknown (a sample's range is too narrow for the range check
    of tools.number_ranges).

    Args:
        db: the database; statements go through ``db.run_query`` (guarded, read-only, timed out).
        table: the table (its ``columns`` and ``name`` are used).
        top_n: at most this many ``(value, count)`` pairs per low-cardinality text column.
        low_cardinality: text columns with at most this many distinct values get ``top_values`` (counted over
            the whole table, or over the sample when that statement fails).
        sample_rows: the size from which a table is sampled (:data:`SAMPLE_ROWS`).

    Returns:
        The profiles; ``{}`` when the table cannot be read at all (error logged). A failed ``GROUP BY`` leaves
        that column's ``top_values`` empty. Never raises for database errors.
    """
    if not table.columns:
        return {}
    total = row_count(db, table)
    if total is not None and total <= sample_rows:
        whole = db.run_query(aggregate_query(table, db.dialect), row_cap=1)
        if whole.ok and whole.rows:
            profiles = _profiles(table, list(whole.rows[0]), None, distinct=True)
            _top_values(db, table, profiles, top_n, low_cardinality, sampled=False)
            return profiles
        sample_rows = retry_sample(total)  # a sample as large as the table would time out again
    step = spread_step(db, table.name, total, sample_rows)
    counts = db.run_query(distinct_query(table, db.dialect, sample_rows, step), row_cap=1)
    if step is not None and counts.ok and counts.rows and not counts.rows[0][0]:  # no page drawn: the first rows
        step = None
        counts = db.run_query(distinct_query(table, db.dialect, sample_rows), row_cap=1)
    stats = db.run_query(aggregate_query(table, db.dialect, distinct=False), row_cap=1)
    ranges = stats.ok and bool(stats.rows)
    if not ranges:
        stats = db.run_query(aggregate_query(table, db.dialect, distinct=False, sample=sample_rows, step=step),
                             row_cap=1)
    if not counts.ok or not counts.rows or not stats.ok or not stats.rows:
        log.warning("profiling %s failed: %s", table.name, counts.error or stats.error)
        return {}
    sampled_rows, *distinct_counts = counts.rows[0]
    profiles = _profiles(table, list(stats.rows[0]), distinct_counts, distinct=False)
    for profile in profiles.values():
        profile.distinct_sample = int(sampled_rows or 0)
        if total is not None:
            profile.row_count = total
        if not ranges:
            profile.min = profile.max = None
    _top_values(db, table, profiles, top_n, low_cardinality, sampled=True, sample_rows=sample_rows, step=step)
    return profiles


def _profiles(table: TableInfo, values: list[Any], distinct_counts: list[Any] | None, *, distinct: bool
              ) -> dict[str, ColumnProfile]:
    """Profiles from one row of :func:`aggregate_query`.

    Without ``distinct`` the distinct counts come from ``distinct_counts``, the row of :func:`distinct_query`.
    """
    row_count = int(values[0] or 0)
    pos, k = 1, 0
    profiles: dict[str, ColumnProfile] = {}
    for column in table.columns:
        non_null = int(values[pos] or 0)
        pos += 1
        profile = ColumnProfile(row_count=row_count,
                                null_share=(row_count - non_null) / row_count if row_count else 0.0)
        if not _opaque(column):
            if distinct:
                count, lo, hi = values[pos : pos + 3]
                pos += 3
            else:
                count, (lo, hi) = (distinct_counts or [])[k], values[pos : pos + 2]
                pos += 2
                k += 1
            profile.distinct_count = int(count or 0)
            profile.kind = _kind(column, lo, hi)
            if profile.kind in ("number", "date"):
                profile.min, profile.max = lo, hi
        profiles[column.name] = profile
    return profiles


def _top_values(db: Database, table: TableInfo, profiles: dict[str, ColumnProfile], top_n: int,
                low_cardinality: int, *, sampled: bool, sample_rows: int = SAMPLE_ROWS, step: int | None = None
                ) -> None:
    """Fill ``top_values`` of the low-cardinality text columns, counted over the whole table.

    A ``sampled`` profile falls back to the sample when the whole-table ``GROUP BY`` fails.
    """
    for column in table.columns:
        profile = profiles[column.name]
        if profile.kind == "text" and 0 < (profile.distinct_count or 0) <= low_cardinality and top_n > 0:
            top = db.run_query(top_values_query(table, column.name, top_n, db.dialect), row_cap=top_n)
            if not top.ok and sampled:
                top = db.run_query(top_values_query(table, column.name, top_n, db.dialect, sample=sample_rows, step=step),
                                   row_cap=top_n)
            if top.ok:
                profile.top_values = [(value, int(count)) for value, count in top.rows]
            else:
                log.warning("top values of %s.%s failed: %s", table.name, column.name, top.error)


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
