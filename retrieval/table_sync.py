"""Table documents of one database in the vector store, made to match its live schema, with the drift report.

:func:`sync_tables` makes ``description_index`` / ``schemas_index`` hold exactly one document of each kind per
current table. Each record's metadata carries a content ``hash`` (plus, for descriptions, the table's
``columns`` and ``fks`` as JSON), so a refresh re-embeds only new or changed documents, deletes those of vanished
tables, and reports the drift against what was indexed: added/dropped tables and added/dropped columns
(:class:`TableSync`). :func:`index_tables` adds the snapshot refresh; :func:`verify_tables` checks the counts
after writing. The whole build (examples, values, report) is :mod:`retrieval.indexing`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tqdm.auto import tqdm

from core.errors import IndexCorrupted
from database.schema_types import TableInfo
from retrieval.documents import description_document, schema_document, table_doc_id
from retrieval.manifest import HASH_KEY, content_hash, refresh_snapshot
from retrieval.store import DESCRIPTION_INDEX, SCHEMAS_INDEX, Metadata, VectorStore

__all__ = ["BATCH", "TableSync", "index_tables", "sync_tables", "verify_tables"]

BATCH = 32
"""Documents per upsert call (one progress-bar step)."""


@dataclass
class TableSync:
    """What :func:`sync_tables` changed.

    Table lists are sorted; column dicts map table -> column names in schema order (only tables present
    before and after, and only when the old index recorded columns).

    ``changed_tables``: tables present before whose documents changed; ``changed_docs`` / ``unchanged_docs``:
    documents (both collections) re-embedded / left untouched; ``first_build``: nothing was indexed before.
    """

    added_tables: list[str] = field(default_factory=list)
    dropped_tables: list[str] = field(default_factory=list)
    added_columns: dict[str, list[str]] = field(default_factory=dict)
    dropped_columns: dict[str, list[str]] = field(default_factory=dict)
    changed_tables: list[str] = field(default_factory=list)
    changed_docs: int = 0
    unchanged_docs: int = 0
    first_build: bool = False


def _upsert_batched(
    store: VectorStore, collection: str, records: Sequence[tuple[str, str, Metadata]], bar: Any
) -> None:
    for start in range(0, len(records), BATCH):
        chunk = records[start : start + BATCH]
        store.upsert(collection, [r[0] for r in chunk], [r[1] for r in chunk], [r[2] for r in chunk])
        bar.update(len(chunk))


def _table_records(
    db_key: str, dialect: str, table: TableInfo, sample_rows: int
) -> tuple[tuple[str, str, Metadata], tuple[str, str, Metadata]]:
    """(description, schema) records ``(id, document, metadata)`` of one table, hashes included."""
    doc_id = table_doc_id(db_key, table.name)
    columns = json.dumps([c.name for c in table.columns])
    fks = json.dumps(
        [[",".join(fk.columns), f"{fk.ref_table}.{','.join(fk.ref_columns)}"] for fk in table.foreign_keys]
    )
    desc = description_document(table)
    schema = schema_document(table, dialect, sample_rows=sample_rows)
    d_meta: Metadata = {"db": db_key, "table": table.name, "columns": columns, "fks": fks,
                        HASH_KEY: content_hash(desc, columns, fks)}
    s_meta: Metadata = {"db": db_key, "table": table.name, HASH_KEY: content_hash(schema)}
    return (doc_id, desc, d_meta), (doc_id, schema, s_meta)


def _column_drift(
    old: Mapping[str, list[str] | None], new: Mapping[str, list[str]]
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    added: dict[str, list[str]] = {}
    dropped: dict[str, list[str]] = {}
    for table in sorted(set(old) & set(new)):
        before = old[table]
        if before is None:  # indexed before columns were recorded: unknown
            continue
        if plus := [c for c in new[table] if c not in before]:
            added[table] = plus
        if minus := [c for c in before if c not in new[table]]:
            dropped[table] = minus
    return added, dropped


def sync_tables(
    store: VectorStore,
    db_key: str,
    dialect: str,
    tables: Sequence[TableInfo],
    *,
    sample_rows: int = 3,
    bar: Any = None,
) -> TableSync:
    """Make ``db_key``'s description/schema records match ``tables``, embedding only new or changed documents.

    Returns:
        A :class:`TableSync` (drift against the previously indexed tables and columns, documents embedded).
    """
    bar = bar if bar is not None else tqdm(disable=True)
    planned = [_table_records(db_key, dialect, t, sample_rows) for t in tables]
    new_cols = {t.name: [c.name for c in t.columns] for t in tables}
    sync = TableSync()
    changed: set[str] = set()
    old_cols: dict[str, list[str] | None] = {}
    for pos, collection in enumerate((DESCRIPTION_INDEX, SCHEMAS_INDEX)):
        old = {h.id: h.metadata for h in store.get(collection, where={"db": db_key})}
        if collection == DESCRIPTION_INDEX:
            sync.first_build = not old
            for doc_id, meta in old.items():
                raw = meta.get("columns")
                name = str(meta.get("table") or doc_id.split(":", 1)[-1])
                old_cols[name] = json.loads(raw) if isinstance(raw, str) else None
        records = [p[pos] for p in planned]
        todo = [r for r in records if old.get(r[0], {}).get(HASH_KEY) != r[2][HASH_KEY]]
        changed.update(str(r[2]["table"]) for r in todo if r[0] in old)
        bar.update(len(records) - len(todo))
        _upsert_batched(store, collection, todo, bar)
        keep = {r[0] for r in records}
        stale = [i for i in old if i not in keep]
        if stale:
            store.delete(collection, ids=stale)
        sync.changed_docs += len(todo)
        sync.unchanged_docs += len(records) - len(todo)
    sync.added_tables = sorted(set(new_cols) - set(old_cols))
    sync.dropped_tables = sorted(set(old_cols) - set(new_cols))
    sync.added_columns, sync.dropped_columns = _column_drift(old_cols, new_cols)
    sync.changed_tables = sorted(changed)
    return sync


def verify_tables(store: VectorStore, db_key: str, tables: int) -> None:
    """Check that ``store`` holds one description and one schema document per table of ``db_key``.

    Raises:
        IndexCorrupted: the counts differ (records lost while writing, e.g. the folder changed under the run).
    """
    found = {c: store.count(c, where={"db": db_key}) for c in (DESCRIPTION_INDEX, SCHEMAS_INDEX)}
    if any(n != tables for n in found.values()):
        raise IndexCorrupted(f"The index of {db_key!r} is incomplete after writing: {tables} tables, but "
                             f"{found[DESCRIPTION_INDEX]} descriptions and {found[SCHEMAS_INDEX]} schema documents")


def index_tables(
    store: VectorStore,
    db_key: str,
    dialect: str,
    tables: Sequence[TableInfo],
    *,
    sample_rows: int = 3,
    bar: Any = None,
) -> list[str]:
    """:func:`sync_tables`, then refresh the snapshot id; returns the names of the tables removed."""
    sync = sync_tables(store, db_key, dialect, tables, sample_rows=sample_rows, bar=bar)
    refresh_snapshot(store, db_key, tables=len(tables))
    return sync.dropped_tables
