"""Text documents and ids indexed for each table and few-shot example.

* :func:`description_document` - compact, natural-language-ish summary embedded in ``description_index``;
  short so it stays well under MiniLM's 256-token window even for wide tables.
* :func:`schema_document` - DDL plus a few sample rows, stored in ``schemas_index`` and handed to the SQL
  generator verbatim.
"""

from __future__ import annotations

import hashlib

from retrieval.schema_reader import format_sample_rows, table_ddl
from retrieval.schema_types import ForeignKey, TableInfo

UNDOCUMENTED = "(undocumented)"


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


def description_document(table: TableInfo) -> str:
    """Summary of ``table`` for semantic table search.

    Shape (one field per line)::

        Table: orders
        Description: One row per order. (or "(undocumented)")
        Columns: order_id, customer_id, order_date, total
        Primary key: order_id          (omitted when there is none)
        Foreign keys: customer_id -> customers.customer_id   (omitted when there are none)
    """
    lines = [
        f"Table: {table.name}",
        f"Description: {(table.comment or '').strip() or UNDOCUMENTED}",
        f"Columns: {', '.join(c.name for c in table.columns)}",
    ]
    pk = table.primary_key or [c.name for c in table.columns if c.primary_key]
    if pk:
        lines.append(f"Primary key: {', '.join(pk)}")
    if table.foreign_keys:
        lines.append(f"Foreign keys: {'; '.join(_fk_text(fk) for fk in table.foreign_keys)}")
    return "\n".join(lines)


def schema_document(table: TableInfo, dialect: str, sample_rows: int = 3) -> str:
    """DDL of ``table`` in ``dialect`` followed by up to ``sample_rows`` sample rows.

    The DDL comes from :func:`retrieval.schema_reader.table_ddl`, the rows from
    :func:`retrieval.schema_reader.format_sample_rows`; rows are omitted when ``sample_rows`` is 0 or the
    table has none.
    """
    parts = [table_ddl(table, dialect).rstrip()]
    if sample_rows > 0 and table.sample_rows:
        rows = format_sample_rows(table, sample_rows).rstrip()
        if rows:
            parts.append(
                f"/* {min(sample_rows, len(table.sample_rows))} sample rows of {table.name}:\n{rows}\n*/"
            )
    return "\n".join(parts)
