"""Build (or refresh) the retrieval indexes of one database, incrementally, with a schema drift report.

:func:`build_indexes` reads the live schema and makes ``description_index`` / ``schemas_index`` hold exactly one
document of each kind per current table. Each record's metadata carries a content ``hash`` (plus, for
descriptions, the table's ``columns`` and ``fks`` as JSON), so a refresh re-embeds only new or changed documents,
deletes those of vanished tables, and reports the drift against what was indexed: added/dropped tables and
added/dropped columns. Few-shot examples go through :mod:`retrieval.examples_store` (status filter, duplicate
merge, re-validation). Finally the database's index *snapshot id* is recomputed (:mod:`retrieval.manifest`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from core.errors import IndexCorrupted
from database.descriptions import default_enriched_path
from database.schema_reader import read_schema
from database.schema_types import TableInfo
from retrieval.documents import description_document, schema_document, table_doc_id
from retrieval.examples_store import (
    Example,
    from_feedback,
    index_examples,
    load_examples_file,
    prepare_examples,
)
from retrieval.manifest import HASH_KEY, content_hash, refresh_snapshot, snapshot_id
from retrieval.opaque_hints import hinted_tables
from retrieval.store import DESCRIPTION_INDEX, SCHEMAS_INDEX, Metadata, VectorStore

if TYPE_CHECKING:
    from core.settings import Settings
    from database.connection import Database

__all__ = [
    "BATCH", "IndexReport", "TableSync", "build_indexes", "index_examples", "index_tables", "load_examples",
    "snapshot_id", "sync_tables",
]

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


@dataclass
class IndexReport(TableSync):
    """Outcome of :func:`build_indexes`: the :class:`TableSync` fields plus the attributes below.

    Attributes:
        db_key: the database's key (the ``"db"`` metadata of its records).
        tables: number of tables indexed; ``examples``: examples indexed (0 when none were given).
        seconds: wall time of the whole build.
        removed_tables: same as ``dropped_tables`` (kept for older callers).
        skipped_examples: examples flagged because their SQL no longer executes, each
            ``{"question", "sql", "error", "source", "id"}``.
        duplicate_examples: examples merged into an equal one; ``snapshot`` / ``previous_snapshot``: index
            snapshot id after / before the build (None when nothing was indexed).
    """

    db_key: str = ""
    tables: int = 0
    examples: int = 0
    seconds: float = 0.0
    removed_tables: list[str] = field(default_factory=list)
    skipped_examples: list[dict[str, str]] = field(default_factory=list)
    duplicate_examples: int = 0
    snapshot: str | None = None
    previous_snapshot: str | None = None
    values: int = 0

    @property
    def drift(self) -> bool:
        """True when tables or columns were added or dropped since the previous index (never on a first build)."""
        return not self.first_build and bool(
            self.added_tables or self.dropped_tables or self.added_columns or self.dropped_columns
        )

    def summary(self) -> str:
        """Multi-line human-readable report (counts, drift, flagged examples, snapshot ids)."""
        lines = [
            f"Indexed '{self.db_key}': {self.tables} tables, {self.examples} examples, {self.values} values "
            f"in {self.seconds:.1f} s; "
            f"{self.changed_docs} documents embedded, {self.unchanged_docs} unchanged; "
            f"snapshot {self.previous_snapshot or '-'} -> {self.snapshot or '-'}"
        ]
        if self.first_build:
            lines.append("  first build of this database")
        for label, names in (("added tables", self.added_tables), ("dropped tables", self.dropped_tables),
                             ("changed tables", self.changed_tables)):
            if names and not (self.first_build and label == "added tables"):
                lines.append(f"  {label}: {', '.join(names)}")
        for label, cols in (("added columns", self.added_columns), ("dropped columns", self.dropped_columns)):
            for table, names in cols.items():
                lines.append(f"  {label} in {table}: {', '.join(names)}")
        if self.duplicate_examples:
            lines.append(f"  merged {self.duplicate_examples} duplicate examples")
        for ex in self.skipped_examples:
            lines.append(f"  flagged example (does not execute): {ex['question']!r}: {ex['error']}")
        return "\n".join(lines)


def load_examples(path: Path) -> list[dict[str, str]]:
    """Read a JSONL file of ``{"question", "sql"}`` objects.

    Optional keys: ``id``, ``source``, ``status``, ``added``. Blank lines and ``#`` lines are skipped, other
    keys dropped, values stripped.

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not JSON or lacks a non-empty ``question`` or ``sql`` (message has the line no.).
    """
    return [ex.to_dict() for ex in load_examples_file(path, default_source=None)]


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


def build_indexes(
    db: Database,
    store: VectorStore,
    *,
    examples: Sequence[Mapping[str, Any] | Example] | None = None,
    sample_rows: int = 3,
    metadata_path: Path | None = None,
    progress: bool = True,
    feedback: Sequence[Mapping[str, Any]] | None = None,
    profile: bool = False,
    sensitive_patterns: list[str] | None = None,
    with_values: bool = False,
    bar: Any = None,
    enriched_path: Path | None = None,
    use_drafts: bool = False,
    value_hints: bool = False,
) -> IndexReport:
    """Index ``db``'s tables (and optionally its few-shot examples) into ``store``, incrementally.

    Args:
        db: the database; uses ``db.key``, ``db.dialect`` and ``db.run_query`` (to validate examples).
        store: the vector store (normally a :class:`retrieval.store.ChromaStore`).
        examples: ``{"question", "sql", ...}`` dicts or :class:`~retrieval.examples_store.Example` (see
            :func:`load_examples`). None (and no ``feedback``) leaves the database's existing examples
            untouched; a list (even empty) replaces them. Excluded statuses are left out, duplicates merged,
            and examples whose SQL fails are flagged (``skipped_examples``), not indexed.
        sample_rows: sample rows per table in the schema documents.
        metadata_path: YAML of table/column descriptions for :func:`database.schema_reader.read_schema`
            (default: the SQLite sidecar ``<stem>.metadata.yaml`` when present).
        progress: show a tqdm progress bar (documents processed) on stderr.
        feedback: approved feedback records (``{"question", "sql", ...}``) added to ``examples``.
        profile: attach column profiles (distinct values, ranges, null share) to the schema documents.
        sensitive_patterns: column-name regexes whose sample values and profiles are masked (and which the
            value index skips).
        with_values: also (re)build ``values_index`` for referential search.
        bar: a progress object with ``total`` and ``update(n)`` (tqdm-like, e.g. the app's Streamlit bar)
            used instead of the stderr bar; documents processed.
        enriched_path: the enrichment file (default: the SQLite sidecar ``<stem>.enriched.yaml``).
        use_drafts: also use its pending entries (see :func:`database.schema_reader.read_schema`) and pending
            examples (:func:`retrieval.examples_store.prepare_examples`).
        value_hints: opaque undocumented columns get their stored values' range or most frequent values as
            comment in the schema documents (:func:`retrieval.opaque_hints.hinted_tables`).

    Returns:
        An :class:`IndexReport` (use ``report.summary()`` for display).

    Raises:
        IndexCorrupted: the store is damaged, vanished during the run, or lacks documents after writing.
        Errors of the schema reader (e.g. connection failures) and of the store (e.g.
        :class:`retrieval.embeddings.EmbeddingModelMissingError`) pass through.
    """
    started = time.perf_counter()
    previous = snapshot_id(store, db.key)
    tables = read_schema(db, sample_rows=sample_rows, metadata_path=metadata_path, profile=profile,
                         sensitive_patterns=sensitive_patterns, enriched_path=enriched_path, use_drafts=use_drafts)
    replace_examples = examples is not None or feedback is not None
    good: list[Example] = []
    ex_report = None
    if replace_examples:
        items = [e if isinstance(e, Example) else Example.from_dict(e, source="file") for e in examples or []]
        good, ex_report = prepare_examples(db, items + from_feedback(feedback or []), use_drafts=use_drafts)

    total = 2 * len(tables) + len(good)
    own_bar = bar is None
    if own_bar:
        bar = tqdm(total=total, desc=f"Indexing {db.key}", unit="doc", disable=not progress, leave=False)
    else:
        bar.total = total
    try:
        shown = hinted_tables(db, tables, sensitive_patterns or ()) if value_hints else tables
        sync = sync_tables(store, db.key, db.dialect, shown, sample_rows=sample_rows, bar=bar)
        n_examples = index_examples(store, db.key, good, bar=bar) if replace_examples else 0
    finally:
        if own_bar:
            bar.close()
    n_values = 0
    if with_values:
        from retrieval.values import build_value_index

        n_values = build_value_index(db, store, tables, sensitive_patterns=sensitive_patterns, progress=progress)
    verify_tables(store, db.key, len(tables))
    info = {"tables": len(tables), **({"examples": n_examples} if replace_examples else {})}
    snapshot = refresh_snapshot(store, db.key, **info)
    return IndexReport(
        **vars(sync),
        db_key=db.key,
        tables=len(tables),
        examples=n_examples,
        seconds=time.perf_counter() - started,
        removed_tables=list(sync.dropped_tables),
        skipped_examples=ex_report.flagged if ex_report else [],
        duplicate_examples=ex_report.duplicates if ex_report else 0,
        snapshot=snapshot,
        previous_snapshot=previous,
        values=n_values,
    )


def index_database(db: Database, store: VectorStore, settings: Settings, *,
                   examples: Sequence[Mapping[str, Any] | Example] | None = None,
                   progress: bool = True, feedback: Sequence[Mapping[str, Any]] | None = None,
                   bar: Any = None) -> IndexReport:
    """Index ``db`` the way the agent expects: profiled, masked schema documents, examples, value index.

    The one entry point used by ``nl2sql index``, the evaluation and the tests (settings decide sample rows
    and sensitive-column patterns, the enrichment file's place and ``knowledge.use_drafts`` whether its pending
    descriptions are indexed). ``feedback``: approved feedback examples added to ``examples``; ``bar``: see
    :func:`build_indexes`.
    """
    cfg = settings.retrieval
    return build_indexes(db, store, examples=examples, sample_rows=cfg.sample_rows, progress=progress,
                         profile=True, sensitive_patterns=cfg.sensitive_patterns, with_values=True,
                         feedback=feedback, bar=bar, enriched_path=default_enriched_path(db, settings.state_dir),
                         use_drafts=settings.knowledge.use_drafts, value_hints=cfg.opaque_value_hints)
