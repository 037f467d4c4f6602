"""Build (or refresh) the retrieval indexes of one database.

:func:`build_indexes` reads the live schema, embeds one description and one schema document per table,
removes documents of tables that no longer exist and, when given, replaces the database's few-shot examples
(each validated by running its SQL first). Re-running it is cheap and idempotent: ids are deterministic.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from retrieval.documents import description_document, example_doc_id, schema_document, table_doc_id
from retrieval.schema_reader import read_schema
from retrieval.schema_types import TableInfo
from retrieval.store import DESCRIPTION_INDEX, EXAMPLES_INDEX, SCHEMAS_INDEX, Metadata, VectorStore

if TYPE_CHECKING:
    from retrieval.database import Database

BATCH = 32
"""Documents per upsert call (one progress-bar step)."""


@dataclass
class IndexReport:
    """Outcome of :func:`build_indexes`.

    Attributes:
        db_key: the database's key (the ``"db"`` metadata of its records).
        tables: number of tables indexed.
        examples: number of examples indexed (0 when none were given).
        seconds: wall time of the whole build.
        removed_tables: tables whose documents were deleted because they no longer exist.
        skipped_examples: examples whose SQL failed, each ``{"question", "sql", "error"}``.
    """

    db_key: str
    tables: int
    examples: int
    seconds: float
    removed_tables: list[str] = field(default_factory=list)
    skipped_examples: list[dict[str, str]] = field(default_factory=list)


def load_examples(path: Path) -> list[dict[str, str]]:
    """Read a JSONL file of ``{"question": ..., "sql": ...}`` objects (blank lines and ``#`` lines skipped).

    Extra keys are dropped; surrounding whitespace is stripped.

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not JSON or lacks a non-empty ``question`` or ``sql`` (message has the line no.).
    """
    examples: list[dict[str, str]] = []
    with Path(path).open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: invalid JSON: {exc}") from exc
            question = str(obj.get("question", "")).strip() if isinstance(obj, dict) else ""
            sql = str(obj.get("sql", "")).strip() if isinstance(obj, dict) else ""
            if not question or not sql:
                raise ValueError(f'{path}:{lineno}: expected an object with non-empty "question" and "sql".')
            examples.append({"question": question, "sql": sql})
    return examples


def _batches(n: int) -> Iterator[slice]:
    for start in range(0, n, BATCH):
        yield slice(start, min(start + BATCH, n))


def _upsert_batched(
    store: VectorStore,
    collection: str,
    ids: Sequence[str],
    docs: Sequence[str],
    metas: Sequence[Metadata],
    bar: Any,
) -> None:
    for sl in _batches(len(ids)):
        store.upsert(collection, ids[sl], docs[sl], metas[sl])
        bar.update(sl.stop - sl.start)


def _validate_examples(
    db: Database, examples: Sequence[dict[str, str]]
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """Split ``examples`` into (runnable, skipped-with-error) by running each SQL (``db.run_query(sql, row_cap=1)``).

    An example fails when ``run_query`` raises or returns a result with ``ok`` False / a truthy ``error``.
    Exact duplicates are dropped.
    """
    good: list[dict[str, str]] = []
    bad: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for ex in examples:
        question, sql = ex["question"].strip(), ex["sql"].strip()
        if (question, sql) in seen:
            continue
        seen.add((question, sql))
        try:
            result = db.run_query(sql, row_cap=1)
        except Exception as exc:  # any driver / validation error means the example is unusable
            bad.append({"question": question, "sql": sql, "error": f"{type(exc).__name__}: {exc}"})
            continue
        if getattr(result, "error", None) or getattr(result, "ok", True) is False:
            bad.append({"question": question, "sql": sql, "error": str(getattr(result, "error", "failed"))})
        else:
            good.append({"question": question, "sql": sql})
    return good, bad


def index_tables(
    store: VectorStore,
    db_key: str,
    dialect: str,
    tables: Sequence[TableInfo],
    *,
    sample_rows: int = 3,
    bar: Any = None,
) -> list[str]:
    """Upsert description + schema documents of ``tables`` and delete those of other tables of ``db_key``.

    Returns:
        Names of the tables whose documents were removed.
    """
    ids = [table_doc_id(db_key, t.name) for t in tables]
    metas: list[Metadata] = [{"db": db_key, "table": t.name} for t in tables]
    descriptions = [description_document(t) for t in tables]
    schemas = [schema_document(t, dialect, sample_rows=sample_rows) for t in tables]
    bar = bar if bar is not None else tqdm(disable=True)
    _upsert_batched(store, DESCRIPTION_INDEX, ids, descriptions, metas, bar)
    _upsert_batched(store, SCHEMAS_INDEX, ids, schemas, metas, bar)

    keep = set(ids)
    removed: list[str] = []
    for collection in (DESCRIPTION_INDEX, SCHEMAS_INDEX):
        stale = [h for h in store.get(collection, where={"db": db_key}) if h.id not in keep]
        if stale:
            store.delete(collection, ids=[h.id for h in stale])
            removed.extend(str(h.metadata.get("table", h.id.split(":", 1)[-1])) for h in stale)
    return sorted(set(removed))


def index_examples(
    store: VectorStore, db_key: str, examples: Sequence[dict[str, str]], *, bar: Any = None
) -> int:
    """Replace ``db_key``'s few-shot examples with ``examples`` (already validated); returns how many.

    The embedded document is the question; metadata carries ``db``, ``question`` and ``sql``.
    """
    ids = [example_doc_id(db_key, ex["question"], ex["sql"]) for ex in examples]
    docs = [ex["question"] for ex in examples]
    metas: list[Metadata] = [{"db": db_key, "question": ex["question"], "sql": ex["sql"]} for ex in examples]
    _upsert_batched(store, EXAMPLES_INDEX, ids, docs, metas, bar if bar is not None else tqdm(disable=True))
    keep = set(ids)
    stale = [h.id for h in store.get(EXAMPLES_INDEX, where={"db": db_key}) if h.id not in keep]
    if stale:
        store.delete(EXAMPLES_INDEX, ids=stale)
    return len(ids)


def build_indexes(
    db: Database,
    store: VectorStore,
    *,
    examples: list[dict[str, str]] | None = None,
    sample_rows: int = 3,
    metadata_path: Path | None = None,
    progress: bool = True,
) -> IndexReport:
    """Index ``db``'s tables (and optionally its few-shot examples) into ``store``.

    Args:
        db: the database; uses ``db.key``, ``db.dialect`` and ``db.run_query`` (to validate examples).
        store: the vector store (normally a :class:`retrieval.store.ChromaStore`).
        examples: ``{"question", "sql"}`` dicts (see :func:`load_examples`). None leaves the database's
            existing examples untouched; a list (even empty) replaces them. Examples whose SQL fails
            (``run_query`` raises or returns ``ok=False``) are skipped and listed in the report.
        sample_rows: sample rows per table in the schema documents.
        metadata_path: YAML of table/column descriptions for :func:`retrieval.schema_reader.read_schema`
            (default: the SQLite sidecar ``<stem>.metadata.yaml`` when present).
        progress: show a tqdm progress bar (documents embedded) on stderr.

    Returns:
        An :class:`IndexReport`.

    Raises:
        Errors of the schema reader (e.g. connection failures) and of the store (e.g.
        :class:`retrieval.embeddings.EmbeddingModelMissingError`) pass through.
    """
    started = time.perf_counter()
    tables = read_schema(db, sample_rows=sample_rows, metadata_path=metadata_path)
    good: list[dict[str, str]] = []
    skipped: list[dict[str, str]] = []
    if examples is not None:
        good, skipped = _validate_examples(db, examples)

    total = 2 * len(tables) + len(good)
    with tqdm(total=total, desc=f"Indexing {db.key}", unit="doc", disable=not progress, leave=False) as bar:
        removed = index_tables(store, db.key, db.dialect, tables, sample_rows=sample_rows, bar=bar)
        n_examples = index_examples(store, db.key, good, bar=bar) if examples is not None else 0

    return IndexReport(
        db_key=db.key,
        tables=len(tables),
        examples=n_examples,
        seconds=time.perf_counter() - started,
        removed_tables=removed,
        skipped_examples=skipped,
    )
