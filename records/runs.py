"""Conversations and the local trace of every run (one answered question), in ``<state_dir>/runs.sqlite``.

A *thread* is a conversation (its id is also the LangGraph checkpointer's thread id); a *run* is one turn: the
full outcome of :func:`agent.runner.ask` (answer, rows, SQL, plan, per-step trace with inputs, outputs,
latency and tokens, LLM usage), kept as JSON so the chat can redraw past conversations and the developer panel
can inspect them.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from agent.outcome import Outcome
from records.db import connect

SCHEMA = """
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, database TEXT, created REAL NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, thread_id TEXT, created REAL NOT NULL, question TEXT NOT NULL, database TEXT,
    status TEXT, latency_s REAL, llm_calls INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER,
    outcome TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS runs_thread ON runs (thread_id, created);
"""

TITLE_CHARS = 80
STORED_ROWS = 1000
"""Rows of a result kept with the run (the row cap's default); the count of all rows is kept too."""

SUMMARY_COLUMNS = ("run_id", "thread_id", "created", "question", "database", "status", "latency_s", "llm_calls",
                   "prompt_tokens", "completion_tokens")


def new_thread_id() -> str:
    """A fresh conversation id (UUID4 text)."""
    return str(uuid.uuid4())


class RunStore:
    """Conversations and runs in one SQLite file; every method opens its own connection.

    Args:
        path: the SQLite file (created with its folder on first use).
    """

    def __init__(self, path: Path) -> None:
        """Keep ``path``; the file and its folder are created on first use."""
        self.path = Path(path)

    def save_run(self, outcome: Outcome) -> str:
        """Store one :class:`~agent.outcome.Outcome` of :func:`agent.runner.ask` (``thread_id`` may be None).

        Creates or touches its thread. Rows beyond :data:`STORED_ROWS` are dropped from the stored copy, whose
        ``row_count`` keeps the full count. Returns the run id.
        """
        run_id, question = outcome.run_id, outcome.question
        stored = outcome.model_dump()
        stored["row_count"] = outcome.total_rows
        stored["rows"] = stored["rows"][:STORED_ROWS]
        now = time.time()
        thread_id = outcome.thread_id
        with connect(self.path, SCHEMA) as conn:
            if thread_id:
                conn.execute(
                    "INSERT INTO threads (id, title, database, created, updated) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT(id) DO UPDATE SET updated = excluded.updated",
                    (thread_id, question[:TITLE_CHARS], outcome.database, now, now))
            conn.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, thread_id, now, question, outcome.database, outcome.status, outcome.latency_s,
                 outcome.llm_calls, outcome.prompt_tokens, outcome.completion_tokens,
                 json.dumps(stored, default=str)))
        return run_id

    def threads(self, database: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """Recent conversations, newest first; only ``database``'s when given.

        Each is ``{"id", "title", "database", "created", "updated", "turns"}`` (times in epoch seconds).
        """
        sql = ("SELECT t.*, (SELECT COUNT(*) FROM runs r WHERE r.thread_id = t.id) AS turns FROM threads t "
               + ("WHERE t.database = ? " if database else "") + "ORDER BY t.updated DESC LIMIT ?")
        params: tuple[Any, ...] = (database, limit) if database else (limit,)
        with connect(self.path, SCHEMA) as conn:
            return [dict(r) for r in conn.execute(sql, params)]

    def thread_runs(self, thread_id: str) -> list[Outcome]:
        """The stored outcomes of one conversation, oldest first ([] for an unknown thread)."""
        with connect(self.path, SCHEMA) as conn:
            rows = conn.execute("SELECT outcome FROM runs WHERE thread_id = ? ORDER BY created", (thread_id,))
            return [Outcome.model_validate_json(r["outcome"]) for r in rows]

    def runs(self, search: str | None = None, status: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """Run summaries (:data:`SUMMARY_COLUMNS`), newest first.

        Optionally filtered by a question substring (case-insensitive) and a status.
        """
        clauses, params = [], []
        if search:
            clauses.append("question LIKE ?")
            params.append(f"%{search}%")
        if status:
            clauses.append("status = ?")
            params.append(status)
        where = f"WHERE {' AND '.join(clauses)} " if clauses else ""
        sql = f"SELECT {', '.join(SUMMARY_COLUMNS)} FROM runs {where}ORDER BY created DESC LIMIT ?"
        with connect(self.path, SCHEMA) as conn:
            return [dict(r) for r in conn.execute(sql, (*params, limit))]

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        """The stored outcome of ``run_id`` (None when unknown)."""
        with connect(self.path, SCHEMA) as conn:
            row = conn.execute("SELECT outcome FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return json.loads(row["outcome"]) if row else None
