"""The checkpoint of an onboarding run: one JSON file per database, rewritten atomically after every step.

Shape (``version`` 1)::

    {"version": 1, "database": "markets", "updated": "2025-06-01T10:00:00",
     "steps": {"profile": {"status": "done", "inputs": "", "items": 11, "llm_calls": 0, "model_seconds": 0.0,
                           "seconds": 1.2, "note": "...", "errors": [], "finished": "...", "result": {...}}},
     "partial": {"profile": {"tables": {...}}}}

``steps`` holds the finished steps (``status`` done, skipped or incomplete) with their results; ``partial`` the
saved progress of a step that was interrupted. Written with :func:`database.descriptions.write_atomic` (temporary
file and rename), so an interruption never leaves half a file.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from database.descriptions import write_atomic

VERSION = 1


def new_state(database: str) -> dict[str, Any]:
    """An empty state for database key ``database``."""
    return {"version": VERSION, "database": database, "updated": None, "steps": {}, "partial": {}}


def load_state(path: Path, database: str) -> dict[str, Any]:
    """The state in ``path``; a new one when the file is missing, unreadable, of another version or database.

    Never raises for a bad file: onboarding then starts over (its drafts are kept, being in their own files).
    """
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return new_state(database)
    if not isinstance(raw, dict) or raw.get("version") != VERSION or raw.get("database") != database:
        return new_state(database)
    raw.setdefault("steps", {})
    raw.setdefault("partial", {})
    return raw


def save_state(path: Path, state: dict[str, Any]) -> None:
    """Write ``state`` to ``path`` atomically (steps in run order; values not JSON-ready written as text)."""
    state["updated"] = dt.datetime.now().isoformat(timespec="seconds")
    write_atomic(Path(path), json.dumps(state, indent=1, default=str, ensure_ascii=False) + "\n")
