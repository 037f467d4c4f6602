"""Integrity of a persistent Chroma folder: cheap checks on open, a probe of every collection, and the rebuild.

A Chroma folder holds ``chroma.sqlite3`` (collections, records, the write-ahead log) and one folder per HNSW
vector segment (``header.bin``, ``data_level0.bin``, ``length.bin``, ``link_lists.bin``). A crash, a full
disk or a careless copy can leave them truncated; Chroma may then fail deep inside its Rust/C++ code (or read
garbage). So, before the client opens the folder:

* :func:`check_folder` checks that ``chroma.sqlite3`` is a SQLite file whose size matches the page count in
  its header, and that every HNSW segment's files are present, ``header.bin`` is whole and ``data_level0.bin``
  is non-empty, made of whole element slots and as long as the element count in ``header.bin`` needs;

and once it is open, :func:`probe_collections` reads one record of every non-empty collection and runs a
nearest-neighbour query with that record's own vector. Every failure raises
:class:`core.errors.IndexCorrupted`, whose remedy is ``nl2sql index --rebuild``: :func:`move_aside` renames
the damaged folder to ``<name>.broken-<timestamp>`` (nothing is deleted) so the indexes are built afresh.
"""

from __future__ import annotations

import struct
import time
from pathlib import Path
from typing import Any

from core.errors import IndexCorrupted, NL2SQLError, StorageError, classify

SQLITE_FILE = "chroma.sqlite3"
SQLITE_HEADER = b"SQLite format 3\x00"
HNSW_FILES = ("header.bin", "data_level0.bin", "length.bin", "link_lists.bin")
_HEADER_FIELDS = struct.Struct("<QQQQ")  # offsetLevel0, max_elements, cur_element_count, size_data_per_element
_HEADER_SIZES = {100: 4, 96: 0}
"""``header.bin`` length -> offset of the fields above: Chroma's hnswlib writes a 4-byte format version first
(100 bytes in all); plain hnswlib has no version (96 bytes)."""


def _sqlite_problem(path: Path) -> str | None:
    """Why ``path`` is not a whole SQLite file (bad header, size not matching its page count), or None."""
    size = path.stat().st_size
    if size == 0:
        return f"{path} is empty"
    with path.open("rb") as handle:
        header = handle.read(100)
    if len(header) < 100 or not header.startswith(SQLITE_HEADER):
        return f"{path} is not a SQLite file (truncated or overwritten)"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    valid_for, change_counter = header[92:96], header[24:28]
    if page_size < 512 or size % page_size:
        return f"{path} is truncated ({size} bytes is not a whole number of {page_size}-byte pages)"
    if pages and valid_for == change_counter and size < pages * page_size:
        return f"{path} is truncated ({size} bytes; its header says {pages * page_size})"
    return None


def _segment_problem(folder: Path) -> str | None:
    """Why the HNSW segment in ``folder`` cannot be loaded (missing, empty or short files), or None."""
    sizes = {name: (folder / name).stat().st_size if (folder / name).is_file() else -1 for name in HNSW_FILES}
    missing = [name for name, size in sizes.items() if size < 0]
    if missing:
        return f"vector segment {folder.name} lacks {', '.join(missing)}"
    if sizes["header.bin"] < min(_HEADER_SIZES):
        return f"vector segment {folder.name}: header.bin is truncated ({sizes['header.bin']} bytes)"
    start = _HEADER_SIZES.get(sizes["header.bin"])
    if start is None:  # a header format this check does not know: leave it to the probe
        return None
    with (folder / "header.bin").open("rb") as handle:
        handle.seek(start)
        _offset, max_elements, count, per_element = _HEADER_FIELDS.unpack(handle.read(_HEADER_FIELDS.size))
    if count > max_elements or per_element == 0 or per_element > 1 << 20:
        return f"vector segment {folder.name}: header.bin is damaged"
    data = sizes["data_level0.bin"]
    if data == 0 or data % per_element or data < count * per_element:  # Chroma writes whole element slots
        return (f"vector segment {folder.name}: data_level0.bin is truncated ({data} bytes for {count} vectors "
                f"of {per_element} bytes)")
    if count and sizes["length.bin"] < 4 * count:
        return f"vector segment {folder.name}: length.bin is truncated"
    return None


def check_folder(path: Path) -> None:
    """Cheap checks of the Chroma folder ``path`` before it is opened (a missing folder is fine: it is new).

    Raises:
        IndexCorrupted: ``chroma.sqlite3`` is not a whole SQLite file, or an HNSW segment is incomplete.
    """
    path = Path(path)
    if not path.is_dir():
        return
    problems: list[str] = []
    db_file = path / SQLITE_FILE
    if db_file.exists():
        problem = _sqlite_problem(db_file)
        if problem:
            problems.append(problem)
    elif any(child.is_dir() and (child / "header.bin").exists() for child in path.iterdir()):
        problems.append(f"{db_file} is missing but vector segments are there")
    for child in sorted(path.iterdir()):
        if child.is_dir() and any((child / name).exists() for name in HNSW_FILES):
            problem = _segment_problem(child)
            if problem:
                problems.append(problem)
    if problems:
        raise IndexCorrupted(f"The index folder {path} is damaged: {'; '.join(problems[:3])}")


def probe_collections(client: Any, path: Path) -> None:
    """Read one record of every non-empty collection of ``client`` and query with its vector.

    Raises:
        IndexCorrupted: Chroma fails on any of them (including panics of its Rust core).
    """
    try:
        for collection in client.list_collections():
            if not collection.count():
                continue
            first = collection.get(limit=1, include=["embeddings"])
            vectors = first.get("embeddings")
            if vectors is None or len(vectors) == 0:
                raise RuntimeError(f"collection {collection.name} returned no vector")
            collection.query(query_embeddings=[list(vectors[0])], n_results=1, include=["distances"])
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - Rust panics (pyo3 PanicException) derive from BaseException
        text = " ".join(str(exc).split())[:300] or type(exc).__name__
        raise IndexCorrupted(f"The index folder {path} cannot be read ({type(exc).__name__}: {text})") from None


def ensure_present(path: Path) -> None:
    """Raise :class:`IndexCorrupted` when the open Chroma folder ``path`` (or its database file) vanished."""
    if not (Path(path) / SQLITE_FILE).is_file():
        raise IndexCorrupted(f"The index folder {path} was deleted or emptied while the app was running",
                             remedy="Run `nl2sql index` (or `nl2sql index --rebuild`) to build it again.")


_STORAGE_MARKERS = {"no space left": "the disk is full", "os error 28": "the disk is full",
                    "disk is full": "the disk is full", "read-only file system": "the file system is read-only",
                    "os error 30": "the file system is read-only", "readonly database": "the file system is read-only"}


def open_error(exc: BaseException, path: Path) -> NL2SQLError:
    """What Chroma's failure to open ``path`` means: a full or read-only disk, else a damaged folder."""
    known = classify(exc)
    if isinstance(known, StorageError):
        return known
    text = " ".join(str(exc).split())[:300] or type(exc).__name__
    cause = next((c for marker, c in _STORAGE_MARKERS.items() if marker in text.lower()), None)
    if cause:
        return StorageError(f"The index folder {path} cannot be written: {cause} ({text})")
    return IndexCorrupted(f"The index folder {path} cannot be opened ({type(exc).__name__}: {text})")


def move_aside(path: Path) -> Path | None:
    """Rename the Chroma folder ``path`` to ``<name>.broken-<YYYYmmdd-HHMMSS>`` beside it; None when absent.

    Nothing is deleted: the old folder stays for inspection. Raises OSError when it cannot be renamed.
    """
    path = Path(path)
    if not path.exists():
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.broken-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.broken-{stamp}-{n}")
    path.rename(target)
    return target
