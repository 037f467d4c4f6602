"""What an opaque column holds, said beside its name: stored-value hints for ``c14``-style columns in every schema listing.

A column named ``c10`` or ``t_fed_rev``'s ``x2`` says nothing a model can read; the sample rows under the
``CREATE TABLE`` show three of its values, far from the name and easy to overlook, and a small model reaches for a
readable look-alike instead (``PPL.DSTRCT`` for "the names of people" while ``PPL.c3`` holds 'Luther C. Carter').
:func:`opaque_hints` puts the evidence on the column's own line, as the comment a human would have written:

* numbers (or text that is all numbers): ``values 26 to 60``, the stored range, which tells an age (26..60) from
  a height (188..200) or a year (1998..2014), and whether a condition's number can be in this column at all;
* anything else: ``e.g. 'Various locations', 'Hemkade 48 Zaandam', 'Heineken Music Hall Amsterdam'``, the most
  frequent values (at most :data:`MAX_EXAMPLES`, each up to :data:`MAX_VALUE_CHARS` characters).

Only opaque (:func:`knowledge.abbreviations.is_opaque_name`), undocumented (no comment from the database, the
metadata file or an approved description) and non-sensitive columns get a hint, so a schema with readable names
renders exactly as before and a description, once written or approved, replaces the hint. A drafted description
nobody reviewed (``knowledge.use_drafts``) does not: on an opaque column it is the model's guess from the same
values, often wrong ("chromosome location" for an OMIM number), and a wrong description misleads more than the
values themselves. On 80 abbreviated questions whose databases have such drafts (2026-12-06), showing the draft
instead of the hint cost 15.0 points [-25.0, -5.0] and showing both 16.2 [-26.2, -7.5]; so the hint is shown and
the draft waits in the review queue. Values of sensitive columns
(``retrieval.sensitive_patterns``) never reach a hint. One ``GROUP BY`` per opaque column, read-only through
the guarded path, cached per database URL and table. Placing value evidence in the schema line follows the
value-augmented listings of CodeS (Li et al. 2024) and M-Schema (XiYan-SQL, Gao et al. 2024).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from database.connection import Database
from database.masking import is_sensitive
from database.profiling import SAMPLE_ROWS, row_count, sample_of, spread_step
from database.results import QueryResult
from database.schema_reader import quote_identifier
from database.schema_types import ColumnInfo, TableInfo
from knowledge.abbreviations import is_opaque_name

__all__ = ["MAX_EXAMPLES", "MAX_VALUE_CHARS", "hinted_tables", "opaque_hints", "value_hint"]

MAX_EXAMPLES = 3
"""Most frequent values shown for a non-numeric opaque column."""
MAX_VALUE_CHARS = 30
"""Longer values are left out of the examples (a sentence says less than a short value and costs more)."""
MAX_DISTINCT = 5000
"""Distinct values read per column (most frequent first) to decide whether it is numeric."""

_CACHE: dict[tuple[str, str, tuple[str, ...]], dict[str, str]] = {}
_LOCK = threading.Lock()


def _number(value: Any) -> float | None:
    """``value`` as a float when it is a number or a text of one (booleans are not), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def _fmt(x: float) -> str:
    return str(int(x)) if x.is_integer() else f"{x:g}"


def value_hint(values: Sequence[Any]) -> str | None:
    """The hint for a column whose distinct non-null values are ``values``, most frequent first.

    ``"values LO to HI"`` (``"always X"`` when one value) when every value is a number or the text of one;
    otherwise ``"e.g. 'A', 'B', 'C'"`` (SQL literals, quotes doubled); None when there is no value to show.
    """
    if not values:
        return None
    numbers = [_number(v) for v in values]
    if all(n is not None for n in numbers):
        lo, hi = min(n for n in numbers if n is not None), max(n for n in numbers if n is not None)
        return f"values {_fmt(lo)} to {_fmt(hi)}" if lo != hi else f"always {_fmt(lo)}"
    shown = [str(v) for v in values if len(str(v)) <= MAX_VALUE_CHARS][:MAX_EXAMPLES]
    if not shown:
        return None
    return "e.g. " + ", ".join("'" + s.replace("'", "''") + "'" for s in shown)


def _needs_hint(column: ColumnInfo, patterns: Iterable[str]) -> bool:
    undocumented = column.drafted or not (column.comment or "").strip()
    return is_opaque_name(column.name) and undocumented and not is_sensitive(column.name, patterns)


def opaque_hints(db: Database, table: TableInfo, sensitive_patterns: Iterable[str] = ()) -> dict[str, str]:
    """``{column name: hint}`` for ``table``'s opaque, undocumented, non-sensitive columns ({} when none).

    Undocumented: no comment, or only a drafted one (``ColumnInfo.drafted``).

    On a table too large to group within the query timeout the values are those of a sample of
    :data:`database.profiling.SAMPLE_ROWS` rows, spread over the table where the engine allows
    (:func:`database.profiling.spread_step`) (a number range may then be narrower than the stored one).
    A column whose values cannot be read (an error or timeout of the guarded query) or that holds only NULLs
    gets no hint. Cached per database URL, table and the set of columns asked; never raises for database errors.
    """
    patterns = tuple(sensitive_patterns)
    wanted = tuple(c.name for c in table.columns if _needs_hint(c, patterns))
    if not wanted:
        return {}
    key = (db.url, table.name, wanted)
    with _LOCK:
        if key in _CACHE:
            return dict(_CACHE[key])
    q = lambda name: quote_identifier(name, db.dialect)  # noqa: E731
    hints: dict[str, str] = {}
    sample: str | None = None
    for column in wanted:
        result = _grouped(db, q(table.name), q(column))
        if not result.ok:  # the whole table does not group in time: a sample spread over it where possible
            if sample is None:
                step = spread_step(db, table.name, row_count(db, table), SAMPLE_ROWS)
                sample = sample_of(table.name, SAMPLE_ROWS, step=step, dialect=db.dialect).sql(dialect=db.dialect)
            result = _grouped(db, sample, q(column))
        if not result.ok:
            continue
        hint = value_hint([row[0] for row in result.rows])
        if hint:
            hints[column] = hint
    with _LOCK:
        _CACHE[key] = hints
    return dict(hints)


def _grouped(db: Database, source: str, column: str) -> QueryResult:
    """``column``'s stored values by frequency in ``source`` (quoted identifiers or a sample subquery)."""
    return db.run_query(f"SELECT {column}, COUNT(*) FROM {source} WHERE {column} IS NOT NULL "
                        f"GROUP BY {column} ORDER BY COUNT(*) DESC", row_cap=MAX_DISTINCT)


def hinted_tables(db: Database, tables: Sequence[TableInfo], sensitive_patterns: Iterable[str] = ()) -> list[TableInfo]:
    """Copies of ``tables`` whose opaque undocumented columns carry their :func:`opaque_hints` as comment.

    A drafted, unreviewed comment (``ColumnInfo.drafted``) is replaced by the hint as well.

    For rendering only (``table_ddl``, ``schema_document``): code that asks whether a column is documented must
    keep reading the original tables, where these columns still have no comment. A hinted column's profile
    loses its ``top_values`` in the copy (the hint already lists the most frequent ones, and
    :func:`retrieval.documents.profile_hint` would repeat them). Tables without hints are returned as they are.
    """
    patterns = tuple(sensitive_patterns)
    out = []
    for table in tables:
        hints = opaque_hints(db, table, patterns)
        if not hints:
            out.append(table)
            continue
        columns = [dataclasses.replace(c, comment=hints[c.name],
                                       profile=c.profile and dataclasses.replace(c.profile, top_values=[]))
                   if c.name in hints else c for c in table.columns]
        out.append(dataclasses.replace(table, columns=columns))
    return out
