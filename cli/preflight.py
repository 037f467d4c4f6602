"""Checks the CLI runs before a command does its work, and ``index --rebuild``'s move of the old folder.

Each raises the matching :class:`core.errors.NL2SQLError` (exit code 2) naming the cause and the remedy.
"""

from __future__ import annotations

import sqlite3
import sys
from contextlib import closing
from pathlib import Path

from core.errors import ConfigurationError, DatabaseUnavailable, classify
from core.settings import Settings


def check_database(settings: Settings, *, deep: bool = False) -> None:
    """Raise :class:`DatabaseUnavailable` when the configured SQLite file is missing, empty or not SQLite.

    ``deep`` (used by ``index``, which reads the whole schema anyway) also runs SQLite's ``quick_check``
    read-only, so a truncated or damaged file, or one locked by another program, is named before indexing.
    """
    from database.connection import sqlite_file_problem

    url = settings.database_url
    if not url.startswith("sqlite:///") or "mode=memory" in url:
        return
    path = Path(url.removeprefix("sqlite:///").split("?", 1)[0])
    problem = sqlite_file_problem(path)
    if problem is None and path.stat().st_size == 0:
        problem = f"The database file {path} is empty (0 bytes)"
    if problem:
        raise DatabaseUnavailable(problem)
    if deep:
        try:
            with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2.0)) as conn:
                verdict = str(conn.execute("PRAGMA quick_check(1)").fetchone()[0])
        except sqlite3.Error as exc:
            known = classify(exc)
            raise (known or DatabaseUnavailable(f"The database file {path} cannot be read ({exc})")) from None
        if verdict != "ok":
            raise DatabaseUnavailable(f"The database file {path} is damaged (SQLite quick_check: {verdict[:200]})",
                                      remedy="Restore the file from a backup or point the app at another one.")


def approved_feedback(settings: Settings, db_key: str) -> list[dict[str, str]]:
    """Approved feedback examples of ``db_key``; a record store that cannot be read is a StateStoreError."""
    from core.errors import state_store_error
    from records.feedback import FeedbackStore
    from records.paths import feedback_path

    path = feedback_path(settings)
    try:
        return FeedbackStore(path).approved_examples(db_key)
    except Exception as exc:  # sqlite3 / SQLAlchemy / OS errors of the record store
        raise state_store_error(exc, path) from None


def move_index_aside(settings: Settings) -> None:
    """``index --rebuild``: rename the local Chroma folder out of the way (the old copy is kept)."""
    from retrieval.integrity import move_aside

    if getattr(settings.retrieval, "chroma_url", None):
        raise ConfigurationError("--rebuild moves a local index folder aside, but retrieval.chroma_url points at a "
                                 "Chroma server", remedy="Rebuild on the server, or unset NL2SQL_RETRIEVAL__CHROMA_URL.")
    moved = move_aside(settings.retrieval.chroma_path)
    if moved is not None:
        print(f"Moved the old index folder to {moved} (delete it once the new index works).", file=sys.stderr)
