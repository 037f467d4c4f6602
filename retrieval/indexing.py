"""Build (or refresh) the retrieval indexes of one database, incrementally, with a schema drift report.

:func:`build_indexes` reads the live schema and makes ``description_index`` / ``schemas_index`` hold exactly one
document of each kind per current table (:func:`retrieval.table_sync.sync_tables`: only new or changed documents
are embedded, vanished tables' documents deleted, and the drift against what was indexed reported: added/dropped
tables and added/dropped columns). Few-shot examples go through :mod:`retrieval.examples_store` (status filter, duplicate
merge, re-validation). Finally the database's index *snapshot id* is recomputed (:mod:`retrieval.manifest`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from database.descriptions import default_enriched_path, rejected_references
from database.schema_reader import read_schema
from retrieval.examples_store import (
    Example,
    from_feedback,
    index_examples,
    load_examples_file,
    prepare_examples,
)
from retrieval.inferred_joins import with_inferred_joins
from retrieval.manifest import refresh_snapshot, snapshot_id
from retrieval.opaque_hints import hinted_tables
from retrieval.store import EXAMPLES_INDEX, VectorStore
from retrieval.table_sync import BATCH, TableSync, index_tables, sync_tables, verify_tables

if TYPE_CHECKING:
    from core.settings import Settings
    from database.connection import Database

__all__ = [
    "BATCH", "IndexReport", "TableSync", "build_indexes", "index_examples", "index_tables", "load_examples",
    "snapshot_id", "sync_tables", "verify_tables",
]


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
        values: stored values indexed for value retrieval.
        inferred_joins: foreign keys indexed because the database declares none
            (:func:`retrieval.inferred_joins.with_inferred_joins`), ``example_joins`` of them read from the
            examples' SQL (:mod:`retrieval.example_joins`), the others found in the data.
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
    inferred_joins: int = 0
    example_joins: int = 0

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
        if self.inferred_joins:
            found = self.inferred_joins - self.example_joins
            lines.append(f"  no foreign key declared: {found} joins inferred from the data"
                         + (f", {self.example_joins} read from the examples" if self.example_joins else ""))
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
    infer_joins: bool = False,
    example_joins: bool = False,
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
        infer_joins: when the database declares no foreign key, index the joins found in its data as its foreign
            keys (:func:`retrieval.inferred_joins.with_inferred_joins`), except the joins a reviewer rejected in the
            enrichment file.
        example_joins: with ``infer_joins``, the joins the examples' SQL states come first
            (:mod:`retrieval.example_joins`): the SQL of ``examples`` and ``feedback`` when given, else of the
            examples already indexed for the database.

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
        inferred = from_examples = 0
        if infer_joins:
            rejected = rejected_references(enriched_path or default_enriched_path(db))
            stated = ([e.sql for e in good] if replace_examples else indexed_example_sql(store, db.key)) \
                if example_joins else []
            shown, inferred = with_inferred_joins(db, shown, rejected, stated)
            from_examples = sum(fk.origin == "examples" for t in shown for fk in t.foreign_keys)
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
        inferred_joins=inferred,
        example_joins=from_examples,
    )


def indexed_example_sql(store: VectorStore, db_key: str) -> list[str]:
    """The SQL of the examples indexed for ``db_key`` (metadata ``sql`` of its example records)."""
    return [str(h.metadata["sql"]) for h in store.get(EXAMPLES_INDEX, where={"db": db_key}) if h.metadata.get("sql")]


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
                         use_drafts=settings.knowledge.use_drafts, value_hints=cfg.opaque_value_hints,
                         infer_joins=cfg.infer_joins, example_joins=cfg.example_joins and cfg.use_examples)
