"""One helper for the product's small SQLite files.

A short-lived connection per operation (safe with several Streamlit sessions and threads), WAL journaling and
a busy timeout.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def connect(path: Path, schema: str) -> Iterator[sqlite3.Connection]:
    """Open ``path`` (folder created), apply ``schema`` and yield a connection whose rows are ``sqlite3.Row``.

    ``schema`` is idempotent DDL. Commits on success, rolls back on error, always closes.

    Raises:
        sqlite3.Error: the file cannot be opened or written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=10.0)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(schema)
        with conn:
            yield conn
    finally:
        conn.close()
