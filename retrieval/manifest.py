"""Content hashes of indexed documents and the per-database index snapshot id.

Every record written by :mod:`retrieval.indexing` and :mod:`retrieval.examples_store` carries metadata
``"hash"``: a short hash of its document and the metadata that shapes retrieval. The *snapshot id* of a database
is a hash over all of its records' ``(collection, id, hash)`` triples, so it changes exactly when some document
of that database is added, changed or removed. Answers record it in their trace (which index answered them),
and the retrievers key their in-memory caches (BM25 model, FK graph) on it.

The snapshot is computed at index time and kept in a small JSON manifest beside the Chroma files
(``<chroma_path>/nl2sql_manifests/<db_key>.json``) so that reading it at query time costs one tiny file read.
Stores without a ``path`` attribute get it recomputed from their records on each call.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from retrieval.store import COLLECTIONS, VectorStore

HASH_KEY = "hash"
"""Metadata key of a record's content hash."""

MANIFEST_DIR = "nl2sql_manifests"
"""Folder (inside the Chroma directory) holding one ``<db_key>.json`` manifest per database."""


def content_hash(*parts: str) -> str:
    """First 16 hex digits of sha256 over ``parts`` (joined by a unit separator); deterministic across runs."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


def _manifest_path(store: VectorStore, db_key: str) -> Path | None:
    base = getattr(store, "path", None)
    return None if base is None else Path(base) / MANIFEST_DIR / f"{db_key}.json"


def compute_snapshot(store: VectorStore, db_key: str) -> str | None:
    """Snapshot id from the records themselves: 12 hex digits over sorted ``collection:id:hash`` lines.

    Records indexed before hashes existed are hashed from their document text. Returns None when ``db_key``
    has no records. Reads every record of the database (use :func:`snapshot_id` at query time).
    """
    lines = []
    for collection in COLLECTIONS:
        for hit in store.get(collection, where={"db": db_key}):
            digest = hit.metadata.get(HASH_KEY) or content_hash(hit.document)
            lines.append(f"{collection}:{hit.id}:{digest}")
    if not lines:
        return None
    return hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()[:12]


def read_manifest(store: VectorStore, db_key: str) -> dict[str, Any] | None:
    """The manifest of ``db_key`` (``{"db", "snapshot", "updated_at", ...}``), or None when absent/unreadable."""
    path = _manifest_path(store, db_key)
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def refresh_snapshot(store: VectorStore, db_key: str, **info: Any) -> str | None:
    """Recompute ``db_key``'s snapshot id and write its manifest (atomically).

    ``info`` (JSON values) is added to what the manifest already holds.

    Returns:
        The snapshot id, or None when the database has no records (its manifest is then removed).

    Raises:
        OSError: the manifest cannot be written.
    """
    snap = compute_snapshot(store, db_key)
    path = _manifest_path(store, db_key)
    if path is None:
        return snap
    if snap is None:
        path.unlink(missing_ok=True)
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {**(read_manifest(store, db_key) or {}), **info}
    payload.update(db=db_key, snapshot=snap, updated_at=time.strftime("%Y-%m-%dT%H:%M:%S"))
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(payload, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)
    return snap


def snapshot_id(store: VectorStore, db_key: str) -> str | None:
    """The index snapshot id of ``db_key`` (12 hex digits), or None when the database is not indexed.

    Read from the manifest when the store has one (one small file read); otherwise computed from the
    records (:func:`compute_snapshot`).
    """
    manifest = read_manifest(store, db_key)
    if manifest is not None and manifest.get("snapshot"):
        return str(manifest["snapshot"])
    return compute_snapshot(store, db_key)
