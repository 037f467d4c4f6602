"""Index side of referential search: indexed columns and their values, ``values_index``, candidate lists.

It writes the entries :mod:`retrieval.value_entries` reads (which columns, which values) to ``values_index`` and
keeps the per-store in-memory candidate lists (see :mod:`retrieval.values` for the record layout and the search
side). The database is read only through :mod:`retrieval.value_entries` (guarded, read-only statements).
"""

from __future__ import annotations

import contextlib
import weakref
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from database.connection import Database
from database.schema_reader import read_schema
from database.schema_types import TableInfo
from retrieval.manifest import read_manifest
from retrieval.store import VALUES_INDEX, VectorStore
from retrieval.value_entries import (
    BATCH,
    CREDENTIAL_PATTERNS,
    DEFAULT_SENSITIVE_PATTERNS,
    MAX_DISTINCT,
    ValueEntry,
    entry_from_metadata,
    read_entries,
)
from retrieval.value_matching import CandidateList

if TYPE_CHECKING:
    from core.settings import Settings
def write_value_index(
    db: Database,
    store: VectorStore,
    tables: Sequence[TableInfo],
    *,
    sensitive_patterns: Sequence[str] | None = None,
    max_distinct: int = MAX_DISTINCT,
    progress: bool = False,
) -> list[ValueEntry]:
    """Read the entries of ``tables`` and make ``values_index`` hold exactly them for ``db.key``.

    Columns matching ``sensitive_patterns`` (default :data:`DEFAULT_SENSITIVE_PATTERNS`) or
    :data:`CREDENTIAL_PATTERNS` are skipped. New or changed records (by content hash) are upserted in
    batches of :data:`BATCH` (the store embeds each value), unchanged ones are left alone, and records of this
    database that are no longer produced are deleted. Returns all current entries.

    Raises:
        The store's errors (e.g. :class:`retrieval.embeddings.EmbeddingModelMissingError`) and ``re.error``
        for an invalid sensitive pattern.
    """
    chosen = DEFAULT_SENSITIVE_PATTERNS if sensitive_patterns is None else tuple(sensitive_patterns)
    patterns = (*chosen, *CREDENTIAL_PATTERNS)
    entries = [e for t in tables for e in read_entries(db, t, patterns, max_distinct=max_distinct)]
    existing = {h.id: h.metadata.get("hash") for h in store.get(VALUES_INDEX, where={"db": db.key})}
    records = [(e.doc_id(db.key), e.value, e.metadata(db.key)) for e in entries]
    todo = [r for r in records if existing.get(r[0]) != r[2]["hash"]]
    with tqdm(total=len(todo), desc=f"Values {db.key}", unit="value", disable=not progress,
              leave=False) as bar:
        for start in range(0, len(todo), BATCH):
            chunk = todo[start : start + BATCH]
            store.upsert(VALUES_INDEX, [r[0] for r in chunk], [r[1] for r in chunk], [r[2] for r in chunk])
            bar.update(len(chunk))
    keep = {r[0] for r in records}
    stale = [i for i in existing if i not in keep]
    if stale:
        store.delete(VALUES_INDEX, ids=stale)
    return entries


@dataclass
class DbValues:
    """One database's value entries with their fuzzy candidate list and lookups (cached per store).

    ``position`` maps (table, column, value) to an entry index, ``by_value`` a value to its entries.
    """

    entries: list[ValueEntry]
    candidates: CandidateList
    position: dict[tuple[str, str, str], int]
    by_value: dict[str, list[int]]
    signature: tuple[int, str | None] = (0, None)

    def column_sizes(self) -> dict[tuple[str, str], int]:
        """Indexed values per ``(table, column)`` (computed once per instance)."""
        sizes = self.__dict__.get("_sizes")
        if sizes is None:
            sizes = dict(Counter((e.table, e.column) for e in self.entries))
            self.__dict__["_sizes"] = sizes
        return sizes

    @classmethod
    def of(cls, entries: list[ValueEntry], signature: tuple[int, str | None] = (0, None)) -> DbValues:
        """Build from ``entries`` (sorted by table, column, value so candidate order is stable)."""
        entries = sorted(entries, key=lambda e: (e.table, e.column, e.value))
        by_value: dict[str, list[int]] = defaultdict(list)
        for i, e in enumerate(entries):
            by_value[e.value].append(i)
        position = {(e.table, e.column, e.value): i for i, e in enumerate(entries)}
        return cls(entries, CandidateList([e.value for e in entries]), position, dict(by_value), signature)


_CACHE: weakref.WeakKeyDictionary[Any, dict[str, DbValues]] = weakref.WeakKeyDictionary()


def remember(store: VectorStore, db_key: str, entries: list[ValueEntry],
             signature: tuple[int, str | None] | None = None) -> None:
    """Cache ``entries`` as the candidate list of ``db_key`` for ``store`` (done by the index builder)."""
    with contextlib.suppress(TypeError):  # a store that cannot be weakly referenced: no cache
        _CACHE.setdefault(store, {})[db_key] = DbValues.of(entries, signature or _signature(store, db_key))


def _signature(store: VectorStore, db_key: str) -> tuple[int, str | None]:
    """Record count of ``db_key`` in ``values_index`` and its index snapshot id (when a manifest exists)."""
    manifest = read_manifest(store, db_key) or {}
    return store.count(VALUES_INDEX, {"db": db_key}), manifest.get("snapshot")


def load_values(store: VectorStore, db_key: str) -> DbValues:
    """The candidate list of ``db_key``, cached per store; empty when not indexed.

    It is re-read from ``values_index`` when the record count or the manifest's snapshot id changed (another
    process re-indexed).
    """
    signature = _signature(store, db_key)
    try:
        cached = _CACHE.get(store, {}).get(db_key)
    except TypeError:
        cached = None
    if cached is not None and cached.signature == signature:
        return cached
    hits = store.get(VALUES_INDEX, where={"db": db_key}) if signature[0] else []
    entries = [entry_from_metadata(h.metadata) for h in hits]
    remember(store, db_key, entries, signature)
    return DbValues.of(entries, signature)


def build_value_index(
    db: Database,
    store: VectorStore,
    tables: Sequence[TableInfo],
    *,
    sensitive_patterns: Sequence[str] | None = None,
    max_distinct: int = MAX_DISTINCT,
    progress: bool = False,
) -> int:
    """Index the distinct values of ``tables``' identifier and low-cardinality text columns.

    Values go into ``values_index`` (one record per table, column and value; see the module docstring) and
    the in-memory candidate list of ``db.key`` is refreshed.

    Args:
        db: the database (values are read through its guarded read-only path).
        store: the vector store; each value is embedded once (unchanged records are not re-embedded).
        tables: the schema (:func:`database.schema_reader.read_schema`).
        sensitive_patterns: column-name regexes never indexed (default :data:`DEFAULT_SENSITIVE_PATTERNS`);
            :data:`CREDENTIAL_PATTERNS` always apply as well.
        max_distinct: columns with more distinct values are skipped.
        progress: show a tqdm bar on stderr.

    Returns:
        Number of value records of ``db.key`` now in the index.

    Raises:
        The store's errors (e.g. a missing embedding model) and ``re.error`` for an invalid pattern.
    """
    entries = write_value_index(db, store, tables, sensitive_patterns=sensitive_patterns,
                                max_distinct=max_distinct, progress=progress)
    remember(store, db.key, entries)
    return len(entries)


def index_values(db: Database, store: VectorStore, *, settings: Settings | None = None,
                 progress: bool = False) -> int:
    """``nl2sql index`` entry point: read ``db``'s schema and :func:`build_value_index` all its tables.

    Uses ``settings.retrieval.sensitive_patterns`` when the settings define it, else
    :data:`DEFAULT_SENSITIVE_PATTERNS` (credential columns are always skipped). Returns the number of value
    records; errors as in :func:`build_value_index` plus the schema reader's.
    """
    patterns = getattr(settings.retrieval, "sensitive_patterns", None) if settings is not None else None
    tables = read_schema(db, sample_rows=0)
    return build_value_index(db, store, tables, sensitive_patterns=patterns, progress=progress)
