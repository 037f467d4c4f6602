"""Vector store abstraction and its Chroma implementation.

Four collections hold the retrieval indexes (all cosine space):

* ``description_index`` - one short description document per table (stage 1 of table retrieval);
* ``schemas_index`` - one DDL + sample-rows document per table, same ids (stage 2);
* ``examples_index`` - question/SQL few-shot pairs; the document is the question;
* ``values_index`` - distinct values of identifier and low-cardinality text columns (:mod:`retrieval.values`).

Several databases share the collections: every record carries metadata ``"db"`` (``Database.key``) and callers
filter on it with ``where={"db": key}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

import chromadb
from chromadb.api.types import EmbeddingFunction
from chromadb.config import Settings as ChromaSettings

from core.errors import IndexCorrupted
from retrieval.integrity import check_folder, ensure_present, open_error, probe_collections

DESCRIPTION_INDEX = "description_index"
SCHEMAS_INDEX = "schemas_index"
EXAMPLES_INDEX = "examples_index"
VALUES_INDEX = "values_index"
COLLECTIONS: tuple[str, ...] = (DESCRIPTION_INDEX, SCHEMAS_INDEX, EXAMPLES_INDEX, VALUES_INDEX)

Metadata = dict[str, str | int | float | bool | None]
Where = dict[str, Any]


@dataclass
class Hit:
    """One stored record; ``distance`` is the cosine distance (0 = identical, 2 = opposite), None for gets."""

    id: str
    document: str
    metadata: Metadata = field(default_factory=dict)
    distance: float | None = None

    @property
    def score(self) -> float:
        """Cosine similarity ``1 - distance`` in [-1, 1] (0.0 when there is no distance)."""
        return 0.0 if self.distance is None else 1.0 - self.distance


class VectorStore(Protocol):
    """Minimal document store with semantic search, keyed by collection name."""

    def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        documents: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        """Insert or replace records (three equal-length lists); each metadata must carry ``"db"``."""
        ...

    def query(self, collection: str, text: str, k: int, where: Where | None = None) -> list[Hit]:
        """The (at most) ``k`` records nearest to ``text``, closest first."""
        ...

    def get(self, collection: str, where: Where | None = None, ids: Sequence[str] | None = None) -> list[Hit]:
        """Records matching ``where`` and/or ``ids`` (all records when both are None); no order guaranteed."""
        ...

    def delete(self, collection: str, ids: Sequence[str] | None = None, where: Where | None = None) -> None:
        """Delete records matching ``ids`` and/or ``where``."""
        ...

    def count(self, collection: str, where: Where | None = None) -> int:
        """Number of records matching ``where`` (all when None)."""
        ...


def _check_collection(name: str) -> None:
    if name not in COLLECTIONS:
        raise ValueError(f"Unknown collection {name!r}; expected one of {COLLECTIONS}.")


class ChromaStore:
    """:class:`VectorStore` over a persistent Chroma directory (telemetry off).

    Args:
        path: the Chroma directory (``settings.retrieval.chroma_path``); created when missing.
        embedding_function: a Chroma embedding function, normally
            :func:`retrieval.embeddings.get_embedding_function`; it embeds documents on upsert and the query
            text on query.

    Raises:
        ValueError: unknown collection name, mismatched list lengths, metadata without ``"db"``, or a delete
            without ``ids`` and ``where``; Chroma's own errors pass through.
        core.errors.IndexCorrupted: the folder is damaged (on open) or was deleted while open (on use).
        core.errors.StorageError: the folder cannot be created or written (full or read-only disk).
    """

    def __init__(self, path: Path | None, embedding_function: EmbeddingFunction[Any], *, client: Any = None) -> None:
        """Open (creating it when missing) the Chroma directory ``path``; see the class docstring.

        With ``client`` (a ready Chroma client, e.g. ``chromadb.HttpClient`` from :mod:`retrieval.store_factory`)
        no folder is opened and ``path`` may be None: index manifests are then recomputed from the records.

        Raises:
            ValueError: neither ``path`` nor ``client`` given.
        """
        if client is not None:
            self.path: Path | None = None if path is None else Path(path)
            self.embedding_function, self.client = embedding_function, client
            self._collections: dict[str, Any] = {}
            return
        if path is None:
            raise ValueError("ChromaStore needs a folder path or a Chroma client.")
        self.path = Path(path)
        check_folder(self.path)  # IndexCorrupted before Chroma's own code meets a truncated file
        self.path.mkdir(parents=True, exist_ok=True)
        self.embedding_function = embedding_function
        try:
            self.client = chromadb.PersistentClient(
                path=str(self.path), settings=ChromaSettings(anonymized_telemetry=False)
            )
        except Exception as exc:  # a damaged chroma.sqlite3 that passed the cheap checks, a full disk...
            raise open_error(exc, self.path) from None
        try:
            probe_collections(self.client, self.path)
        except IndexCorrupted:
            self.close()
            raise
        self._collections = {}
        self._local = True  # a folder of this process: checked for deletion on every use

    def _collection(self, name: str) -> Any:
        """The Chroma collection ``name``, created on first use (cosine HNSW space).

        Raises:
            IndexCorrupted: the store's folder was deleted while it was open.
        """
        _check_collection(name)
        if getattr(self, "_local", False) and self.path is not None:
            ensure_present(self.path)
        if name not in self._collections:
            self._collections[name] = self.client.get_or_create_collection(
                name=name,
                embedding_function=self.embedding_function,
                configuration={"hnsw": {"space": "cosine"}},
            )
        return self._collections[name]

    def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        documents: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        """Insert or replace records; embeds ``documents`` with the store's embedding function.

        Raises:
            ValueError: lengths differ, duplicate ids, or a metadata lacks ``"db"``.
        """
        if not (len(ids) == len(documents) == len(metadatas)):
            raise ValueError("ids, documents and metadatas must have the same length.")
        if len(set(ids)) != len(ids):
            raise ValueError("Duplicate ids in one upsert.")
        if any("db" not in m for m in metadatas):
            raise ValueError('Every metadata must carry "db" (the Database.key).')
        if not ids:
            return
        self._collection(collection).upsert(
            ids=list(ids), documents=list(documents), metadatas=[dict(m) for m in metadatas]
        )

    def query(self, collection: str, text: str, k: int, where: Where | None = None) -> list[Hit]:
        """Nearest records to ``text``: at most ``k`` hits ordered by ascending cosine distance."""
        if k <= 0:
            return []
        n = min(k, self.count(collection, where))
        if n == 0:
            return []
        res = self._collection(collection).query(
            query_texts=[text],
            n_results=n,
            where=where or None,
            include=["documents", "metadatas", "distances"],
        )
        ids = res["ids"][0]
        docs = (res.get("documents") or [[]])[0]
        metas = (res.get("metadatas") or [[]])[0]
        dists = (res.get("distances") or [[]])[0]
        return [
            Hit(id=i, document=d or "", metadata=cast(Metadata, dict(m or {})), distance=float(dist))
            for i, d, m, dist in zip(ids, docs, metas, dists, strict=True)
        ]

    def get(self, collection: str, where: Where | None = None, ids: Sequence[str] | None = None) -> list[Hit]:
        """Records matching ``where`` and ``ids`` (``distance`` is None)."""
        if ids is not None and not ids:
            return []
        res = self._collection(collection).get(
            ids=list(ids) if ids is not None else None,
            where=where or None,
            include=["documents", "metadatas"],
        )
        docs = res.get("documents") or [None] * len(res["ids"])
        metas = res.get("metadatas") or [None] * len(res["ids"])
        return [
            Hit(id=i, document=d or "", metadata=cast(Metadata, dict(m or {})))
            for i, d, m in zip(res["ids"], docs, metas, strict=True)
        ]

    def delete(self, collection: str, ids: Sequence[str] | None = None, where: Where | None = None) -> None:
        """Delete records matching ``ids`` and/or ``where``.

        Raises:
            ValueError: both ``ids`` and ``where`` are None (refuses to empty a collection by accident).
        """
        if ids is None and not where:
            raise ValueError("delete needs ids or where.")
        if ids is not None and not ids:
            return
        self._collection(collection).delete(ids=list(ids) if ids is not None else None, where=where or None)

    def count(self, collection: str, where: Where | None = None) -> int:
        """Number of records matching ``where`` (the whole collection when None)."""
        col = self._collection(collection)
        if not where:
            return int(col.count())
        return len(col.get(where=where, include=[])["ids"])

    def close(self) -> None:
        """Release the Chroma client (its files are closed when no other client of the folder is open)."""
        close = getattr(self.client, "close", None)
        if callable(close):
            close()

    def db_keys(self) -> set[str]:
        """Database keys present in ``description_index``."""
        return {str(h.metadata.get("db")) for h in self.get(DESCRIPTION_INDEX)}


def db_filter(db_key: str, extra: Mapping[str, Any] | None = None) -> Where:
    """Chroma ``where`` for records of ``db_key``, and-ed with ``extra`` equality filters when given."""
    clauses: list[Where] = [{"db": db_key}, *({k: v} for k, v in (extra or {}).items())]
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
