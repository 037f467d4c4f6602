"""Text documents and ids indexed for each table and few-shot example.

* :func:`description_document` - compact, natural-language-ish summary embedded in ``description_index``;
  short so it stays well under MiniLM's 256-token window even for wide tables.
* :func:`schema_document` - DDL plus a few sample rows, stored in ``schemas_index`` and handed to the SQL
  generator verbatim; columns with a data profile get a compact hint (:func:`profile_hint`) appended to
  their comment.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

from database.schema_reader import format_sample_rows, table_ddl
from database.schema_types import ColumnInfo, ForeignKey, TableInfo

UNDOCUMENTED = "(undocumented)"
NOTABLE_NULL_SHARE = 0.05
"""Null shares at or above this fraction (5%) are shown in profile hints."""
_MAX_VALUE_CHARS = 40
_MAX_VALUES_CHARS = 80


def table_doc_id(db_key: str, table: str) -> str:
    """Id of a table's documents in ``description_index`` and ``schemas_index``: ``"{db_key}:{table}"``."""
    return f"{db_key}:{table}"


def example_doc_id(db_key: str, question: str, sql: str) -> str:
    """Id of a few-shot example: ``"{db_key}:ex:"`` + first 12 hex digits of sha1(question + sql)."""
    digest = hashlib.sha1((question + sql).encode("utf-8")).hexdigest()[:12]
    return f"{db_key}:ex:{digest}"


def _fk_text(fk: ForeignKey) -> str:
    """``"COL -> T.COL"`` pairs of one (possibly composite) foreign key, comma-separated."""
    return ", ".join(f"{c} -> {fk.ref_table}.{r}" for c, r in zip(fk.columns, fk.ref_columns, strict=False))


def clip_words(text: str, limit: int) -> str:
    """``text`` stripped, and clipped to whole sentences when longer than ``limit`` words.

    A longer text is flattened and cut to whole sentences within ``limit`` words (at least the first
    sentence, itself cut to ``limit`` words plus "..." when longer). ``limit`` <= 0 disables clipping.
    """
    words = text.split()
    if limit <= 0 or len(words) <= limit:
        return text.strip()
    kept: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", " ".join(words)):
        if len(kept) + len(sentence.split()) > limit:
            break
        kept += sentence.split()
    return " ".join(kept) if kept else " ".join(words[:limit]) + "..."


def documented_description(document: str, max_words: int = 12) -> str | None:
    """The table description of a :func:`description_document`, short enough to stand next to a table name.

    Clipped to ``max_words`` words (whole sentences when they fit, see :func:`clip_words`), without a final
    period; None when the document has no description or the table is undocumented.
    """
    for line in document.splitlines():
        if line.startswith("Description:"):
            text = line.removeprefix("Description:").strip()
            if text in ("", UNDOCUMENTED):
                return None
            short = clip_words(text, max_words)
            return short if short.endswith("...") else short.removesuffix(".")
    return None


def _literal(value: object) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def profile_hint(column: ColumnInfo, max_values: int = 5) -> str:
    """Compact text of ``column.profile`` ("" when there is none or nothing notable).

    Parts, joined by "; ": ``"12% null"`` (or ``"all null"``) when the null share is at least
    :data:`NOTABLE_NULL_SHARE`; for dates ``"2023-01-02..2025-10-31"``; for low-cardinality text
    ``"9 distinct: 'USD','EUR','GBP'..."`` (up to ``max_values`` most frequent values as SQL literals,
    about 80 characters in all, "..." when more exist; values over 40 characters are left out; nothing
    when every value is unique and there are more than ``max_values``). Masked profiles show only nulls.
    """
    prof = column.profile
    if prof is None:
        return ""
    parts = []
    if prof.row_count and prof.null_share >= NOTABLE_NULL_SHARE:
        parts.append("all null" if prof.null_share >= 1 else f"{round(prof.null_share * 100)}% null")
    if prof.masked:
        return "; ".join(parts)
    if prof.kind == "date" and prof.min is not None and prof.max is not None:
        parts.append(str(prof.min) if prof.min == prof.max else f"{prof.min}..{prof.max}")
    elif prof.kind == "text" and prof.top_values and max_values > 0:
        distinct = prof.distinct_count or 0
        if distinct > max_values and max(n for _v, n in prof.top_values) <= 1:
            return "; ".join(parts)  # all values unique: a few arbitrary ones say nothing the sample rows don't
        shown: list[str] = []
        for value, _n in prof.top_values:
            literal = _literal(value)
            if len(str(value)) > _MAX_VALUE_CHARS:
                continue
            if len(shown) >= max_values or sum(map(len, shown)) + len(literal) > _MAX_VALUES_CHARS:
                break
            shown.append(literal)
        more = "..." if distinct > len(shown) else ""
        if shown:
            parts.append(f"{distinct} distinct: {','.join(shown)}{more}")
    return "; ".join(parts)


def description_document(table: TableInfo, *, max_description_words: int = 60) -> str:
    """Summary of ``table`` for semantic table search.

    Shape (one field per line)::

        Table: orders
        Description: One row per order. (or "(undocumented)")
        Columns: order_id, customer_id, order_date, total
        Primary key: order_id          (omitted when there is none)
        Foreign keys: customer_id -> customers.customer_id   (omitted when there are none)

    The description is clipped to ``max_description_words`` words (:func:`clip_words`), so long generated
    summaries leave room for the column list within MiniLM's 256-token window.
    """
    lines = [
        f"Table: {table.name}",
        f"Description: {clip_words(table.comment or '', max_description_words) or UNDOCUMENTED}",
        f"Columns: {', '.join(c.name for c in table.columns)}",
    ]
    pk = table.primary_key or [c.name for c in table.columns if c.primary_key]
    if pk:
        lines.append(f"Primary key: {', '.join(pk)}")
    if table.foreign_keys:
        lines.append(f"Foreign keys: {'; '.join(_fk_text(fk) for fk in table.foreign_keys)}")
    return "\n".join(lines)


def schema_document(
    table: TableInfo,
    dialect: str,
    sample_rows: int = 3,
    *,
    profile_hints: bool = True,
    max_values: int = 5,
    max_table_words: int = 40,
) -> str:
    """DDL of ``table`` in ``dialect`` followed by up to ``sample_rows`` sample rows.

    The DDL comes from :func:`database.schema_reader.table_ddl`, the rows from
    :func:`database.schema_reader.format_sample_rows`; rows are omitted when ``sample_rows`` is 0 or the
    table has none. With ``profile_hints``, each profiled column's :func:`profile_hint` (``max_values``
    values at most) is appended to its comment after " | " (e.g. ``-- Trading currency | 8 distinct:
    'USD','EUR'...``). The table description is clipped to ``max_table_words`` words (:func:`clip_words`;
    0 keeps it whole), since every word costs prompt tokens.
    """
    columns = table.columns
    if profile_hints:
        columns = []
        for col in table.columns:
            hint = profile_hint(col, max_values)
            text = " | ".join(t for t in ((col.comment or "").strip(), hint) if t)
            columns.append(dataclasses.replace(col, comment=text or None))
    comment = clip_words(table.comment, max_table_words) if table.comment else table.comment
    parts = [table_ddl(dataclasses.replace(table, columns=columns, comment=comment), dialect).rstrip()]
    if sample_rows > 0 and table.sample_rows:
        rows = format_sample_rows(table, sample_rows).rstrip()
        if rows:
            parts.append(
                f"/* {min(sample_rows, len(table.sample_rows))} sample rows of {table.name}:\n{rows}\n*/"
            )
    return "\n".join(parts)
