"""Which columns' values referential search indexes, and the entries read from them (one per stored value).

Read side of :mod:`retrieval.value_index`: column choice (text-typed, not date-named, not sensitive, few distinct
short values), one ``GROUP BY`` per kept column, and the row's other identifying columns as siblings. All
statements are built with sqlglot (identifiers quoted) and run through
:meth:`database.connection.Database.run_query`, the guarded read-only path with its timeout and row cap.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot.expressions as exp

from database.connection import Database
from database.masking import is_sensitive, snake_case
from database.profiling import SAMPLE_ROWS, retry_sample, row_count, sample_of, spread_step
from database.schema_types import ColumnInfo, TableInfo
from retrieval.store import Metadata

MAX_DISTINCT = 5000
"""Columns with more distinct values than this are not indexed."""
MAX_AVG_CHARS = 40.0
"""Columns whose values average more characters than this are free text and are not indexed."""
MAX_VALUE_CHARS = 80
"""Longer single values are skipped."""
MAX_SIBLINGS = 3
"""At most this many sibling identifying columns are stored per value."""
BATCH = 128
"""Records per upsert (one embedding batch run)."""

DEFAULT_SENSITIVE_PATTERNS: tuple[str, ...] = (
    r"e_?mail", r"phone|mobile|(^|_)(fax|cell)($|_)", r"(first|last|full|given|family|sur|nick)_?name",
    r"(^|_)dob($|_)|birth", r"address|street|postal|zip", r"(^|_)(ssn|sin|nin)($|_)|social_?sec|passport",
    r"(credit_?)?card_?(no|num|number)|(^|_)iban($|_)|tax_?id", r"salary|wage|income",
)
"""Personal-data regexes (case-insensitive ``re.search`` on the column name and its snake_case form) used when
the settings give no ``retrieval.sensitive_patterns``."""

CREDENTIAL_PATTERNS: tuple[str, ...] = (
    r"pass(word|wd)?($|_)|(^|_)pwd($|_)", r"secret", r"token", r"api_?key", r"(^|_)(salt|hash)($|_)",
)
"""Always excluded on top of the sensitive patterns: credentials are never values worth resolving."""

_NON_TEXT_TYPE = re.compile(r"^(BIG|SMALL|TINY|MEDIUM)?INT|INTEGER|^NUM|^DEC|REAL|FLOA|DOUB|BOOL|^BIT|MONEY|"
                            r"DATE|TIME|INTERVAL|BLOB|CLOB|BYTEA|BINARY|\bRAW\b|\bLONG\b|IMAGE|JSON|XML|"
                            r"BFILE|GEOMETRY|UUID|ARRAY|\[\]")
"""Declared types whose values are never names or codes (numbers, dates, binary and structured data)."""
_DATE_NAME = re.compile(r"(^|_)(date|time|datetime|timestamp|dt|ts|at)($|_)")
"""Date-like column names in snake_case form (date columns with other names are caught on their values)."""
_DATE_OR_NUMBER = re.compile(r"^\s*(\d{4}-\d{2}-\d{2}([ T][\d:.]+)?|[-+]?[\d.,\s%]+)\s*$")


@dataclass(frozen=True)
class ValueEntry:
    """One indexed value: ``value`` stored in ``table.column``.

    ``id`` is the row's ``id_column`` value when the value is unique in its column (else None); ``siblings``
    are ``(column, value)`` pairs of the row's other identifying columns; ``rows`` is the table's row count
    (smaller tables win ties: master data first).
    """

    value: str
    table: str
    column: str
    id: str | int | float | None = None
    id_column: str | None = None
    siblings: tuple[tuple[str, str], ...] = ()
    rows: int = 0

    def doc_id(self, db_key: str) -> str:
        """Deterministic record id: ``"<db>:<table>.<column>:<sha1(value)[:16]>"``."""
        digest = hashlib.sha1(self.value.encode("utf-8")).hexdigest()[:16]
        return f"{db_key}:{self.table}.{self.column}:{digest}"

    def metadata(self, db_key: str) -> Metadata:
        """Chroma metadata (``id`` and ``id_column`` are ``""`` when absent; ``siblings`` is JSON)."""
        siblings = json.dumps(dict(self.siblings), ensure_ascii=False)
        body = f"{self.value}\x1f{self.table}\x1f{self.column}\x1f{self.id}\x1f{siblings}\x1f{self.rows}"
        return {
            "db": db_key, "table": self.table, "column": self.column, "value": self.value,
            "id": "" if self.id is None else self.id, "id_column": self.id_column or "",
            "siblings": siblings, "rows": self.rows,
            "hash": hashlib.sha256(body.encode("utf-8")).hexdigest()[:16],
        }


def entry_from_metadata(meta: Metadata) -> ValueEntry:
    """Inverse of :meth:`ValueEntry.metadata`."""
    raw_id = meta.get("id")
    siblings = json.loads(str(meta.get("siblings") or "{}"))
    return ValueEntry(
        value=str(meta.get("value", "")), table=str(meta.get("table", "")),
        column=str(meta.get("column", "")),
        id=None if raw_id in (None, "") else raw_id, id_column=str(meta.get("id_column") or "") or None,
        siblings=tuple((str(k), str(v)) for k, v in siblings.items()), rows=int(meta.get("rows") or 0),
    )


def indexable_columns(table: TableInfo, patterns: Sequence[str]) -> list[ColumnInfo]:
    """Columns of ``table`` whose values may be indexed: text-typed or untyped, not date-named, not sensitive.

    Cardinality and length are checked later on the data (:func:`read_entries`).
    """
    return [
        c for c in table.columns
        if not _NON_TEXT_TYPE.search(c.type.upper().strip()) and not _DATE_NAME.search(snake_case(c.name))
        and not is_sensitive(c.name, patterns)
    ]


def _col(name: str) -> exp.Column:
    return exp.Column(this=exp.to_identifier(name, quoted=True))


def _from(table: TableInfo) -> exp.Table:
    return exp.Table(this=exp.to_identifier(table.name, quoted=True))


def _run(db: Database, query: exp.Select, cap: int) -> list[tuple[Any, ...]] | None:
    """The rows of ``query`` (at most ``cap``), or None when it fails (e.g. a timeout)."""
    result = db.run_query(query.sql(dialect=db.dialect), row_cap=cap)
    return result.rows if result.ok else None


def read_entries(
    db: Database, table: TableInfo, patterns: Sequence[str], *, max_distinct: int = MAX_DISTINCT,
    sample_rows: int = SAMPLE_ROWS,
) -> list[ValueEntry]:
    """The value entries of ``table`` (see module docstring); ``[]`` for tables without indexable columns.

    Per table: the row count (from the table's profile when it has one, else one ``COUNT(*)``), one aggregate statement (per column COUNT, COUNT DISTINCT, AVG LENGTH), one
    ``GROUP BY`` per kept column, and one statement reading the sibling columns of keyed rows. On a table of more
    than ``sample_rows`` rows (or whose aggregate failed, e.g. timed out: then the first
    :func:`database.profiling.retry_sample` rows) the aggregate reads a sample of ``sample_rows`` rows, spread over
    the table where the engine allows (:func:`database.profiling.sample_of`, :func:`database.profiling.spread_step`: ``COUNT(DISTINCT)`` sorts, and on a table of
    millions of rows it does not fit the query timeout), the ``GROUP BY`` still reads the whole table (the
    sample's when that fails), a column found to hold more than ``max_distinct`` values there is skipped, and
    no sibling columns are read (a column unique in a sample need not be unique). A failed statement skips what
    it would have read; database errors never raise.
    """
    columns = indexable_columns(table, patterns)
    if not columns:
        return []
    stats: list[exp.Expression] = [exp.Count(this=exp.Star())]
    for c in columns:
        stats += [exp.Count(this=_col(c.name)), exp.Count(this=exp.Distinct(expressions=[_col(c.name)])),
                  exp.Avg(this=exp.Length(this=_col(c.name)))]
    profiled = next((c.profile.row_count for c in table.columns if c.profile is not None), None)
    total = profiled if profiled is not None else row_count(db, table)  # the profile of this read already counted
    sampled = total is None or total > sample_rows
    step = spread_step(db, table.name, total, sample_rows) if sampled else None

    def sample() -> exp.Subquery:
        return sample_of(table.name, sample_rows, step=step, dialect=db.dialect)

    rows = _run(db, exp.select(*stats).from_(sample() if sampled else _from(table)), 1)
    if not rows and not sampled:  # the whole table did not fit the timeout: a smaller sample
        sampled, sample_rows = True, retry_sample(total or 0)
        step = spread_step(db, table.name, total, sample_rows)
        rows = _run(db, exp.select(*stats).from_(sample()), 1)
    if not rows:
        return []
    counted, *agg = rows[0]
    total = int(counted or 0) if total is None else total
    kept: list[tuple[ColumnInfo, bool, float]] = []
    for k, c in enumerate(columns):
        non_null, distinct, avg_len = agg[3 * k], agg[3 * k + 1], agg[3 * k + 2]
        if distinct and distinct <= max_distinct and float(avg_len or 0) <= MAX_AVG_CHARS:
            kept.append((c, distinct == non_null and not sampled, float(avg_len or 0)))
    pk = table.primary_key[0] if len(table.primary_key) == 1 else None
    entries: list[ValueEntry] = []
    indexed: list[tuple[ColumnInfo, bool, float]] = []
    for c, _unique, _avg in kept:
        select = [_col(c.name), exp.Count(this=exp.Star())] + ([exp.Min(this=_col(pk))] if pk else [])
        not_null = exp.Not(this=exp.Is(this=_col(c.name), expression=exp.Null()))
        query = exp.select(*select).from_(_from(table)).where(not_null).group_by(_col(c.name))
        grouped = _run(db, query, max_distinct + 1)
        if grouped is None and sampled:
            grouped = _run(db, query.from_(sample()), max_distinct + 1)
        if grouped is None or len(grouped) > max_distinct:
            continue
        found = [r for r in grouped if isinstance(r[0], str)]
        texts = [r for r in found if len(r[0]) <= MAX_VALUE_CHARS and not _DATE_OR_NUMBER.match(r[0])]
        if len(texts) * 2 < len(found):  # mostly dates or numbers stored as text
            continue
        indexed.append((c, _unique, _avg))
        for r in texts:
            row_id = (r[0] if c.name == pk else r[2]) if pk and r[1] == 1 else None
            entries.append(ValueEntry(r[0], table.name, c.name, row_id, pk if row_id is not None else None,
                                      rows=total))
    return _attach_siblings(db, table, pk, indexed, entries, total)


def _attach_siblings(
    db: Database, table: TableInfo, pk: str | None, kept: list[tuple[ColumnInfo, bool, float]],
    entries: list[ValueEntry], total: int,
) -> list[ValueEntry]:
    """Add the values of the table's other unique indexed columns to every keyed entry.

    These are the unique indexed columns other than the key, shortest first.
    """
    unique = [c.name for c, is_unique, _avg in sorted(kept, key=lambda k: k[2]) if is_unique and c.name != pk]
    if not pk or not unique or not any(e.id is not None for e in entries):
        return entries
    unique = unique[: MAX_SIBLINGS + 1]
    keyed = exp.Not(this=exp.Is(this=_col(unique[0]), expression=exp.Null()))  # at most max_distinct rows
    rows = _run(db, exp.select(_col(pk), *map(_col, unique)).from_(_from(table)).where(keyed), max(total, 1))
    by_id = {r[0]: dict(zip(unique, r[1:], strict=True)) for r in rows or []}
    out = []
    for e in entries:
        row = by_id.get(e.id, {}) if e.id is not None else {}
        pairs = tuple((col, str(v)) for col, v in row.items() if col != e.column and v is not None)
        out.append(ValueEntry(e.value, e.table, e.column, e.id, e.id_column, pairs[:MAX_SIBLINGS], e.rows))
    return out
