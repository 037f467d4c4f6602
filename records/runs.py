"""Conversations and the trace of every run (one answered question), in ``<state_dir>/runs.sqlite`` or ``state_url``.

A *thread* is a conversation (its id is also the LangGraph checkpointer's thread id); a *run* is one turn: the
full outcome of :func:`agent.runner.ask` (answer, rows, SQL, plan, per-step trace with inputs, outputs,
latency and tokens, LLM usage), kept as JSON so the chat can redraw past conversations and the developer panel
can inspect them. Threads and runs record their ``user_id`` (the user who asked; NULL for older rows and callers
that give none); readers given a ``user`` see only that user's records, readers without one see all.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from sqlalchemy import func, select

from agent.outcome import Outcome
from records.db import Location, as_location, begin, upsert
from records.schema import runs as runs_table
from records.schema import threads as threads_table

TITLE_CHARS = 80
STORED_ROWS = 1000
"""Rows of a result kept with the run (the row cap's default); the count of all rows is kept too."""

SUMMARY_COLUMNS = ("run_id", "thread_id", "created", "question", "database", "status", "latency_s", "llm_calls",
                   "prompt_tokens", "completion_tokens", "user_id")


def new_thread_id() -> str:
    """A fresh conversation id (UUID4 text)."""
    return str(uuid.uuid4())


class RunStore:
    """Conversations and runs in one SQLite file or database; every method runs its own transaction.

    Args:
        path: the SQLite file (created with its folder on first use) or a SQLAlchemy URL
            (:func:`records.paths.runs_path`); tables are created or migrated on first use.
    """

    def __init__(self, path: Location) -> None:
        """Keep ``path``; the file and its folder, or the tables, are created on first use."""
        self.path = as_location(path)

    def save_run(self, outcome: Outcome, user: str | None = None) -> str:
        """Store one :class:`~agent.outcome.Outcome` of :func:`agent.runner.ask` (``thread_id`` may be None).

        ``user`` (the user who asked) is recorded on the run and on a thread it creates. Creates or touches its
        thread. Rows beyond :data:`STORED_ROWS` are dropped from the stored copy, whose
        ``row_count`` keeps the full count. Returns the run id.
        """
        run_id, question = outcome.run_id, outcome.question
        stored = outcome.model_dump()
        stored["row_count"] = outcome.total_rows
        stored["rows"] = stored["rows"][:STORED_ROWS]
        now = time.time()
        thread_id = outcome.thread_id
        row = {"run_id": run_id, "thread_id": thread_id, "created": now, "question": question,
               "database": outcome.database, "status": outcome.status, "latency_s": outcome.latency_s,
               "llm_calls": outcome.llm_calls, "prompt_tokens": outcome.prompt_tokens,
               "completion_tokens": outcome.completion_tokens, "outcome": json.dumps(stored, default=str),
               "user_id": user}
        with begin(self.path) as conn:
            if thread_id:
                upsert(conn, threads_table, {"id": thread_id, "title": question[:TITLE_CHARS],
                                             "database": outcome.database, "created": now, "updated": now,
                                             "user_id": user},
                       key="id", update=["updated"])
            upsert(conn, runs_table, row, key="run_id", update=[c for c in row if c != "run_id"])
        return run_id

    def threads(self, database: str | None = None, limit: int = 50, user: str | None = None
                ) -> list[dict[str, Any]]:
        """Recent conversations, newest first; only ``database``'s and ``user``'s when given.

        Each is ``{"id", "title", "database", "created", "updated", "user_id", "turns"}`` (times in epoch
        seconds).
        """
        t, r = threads_table, runs_table
        turns = select(func.count()).select_from(r).where(r.c.thread_id == t.c.id).scalar_subquery()
        query = select(t, turns.label("turns")).order_by(t.c.updated.desc()).limit(limit)
        if database:
            query = query.where(t.c.database == database)
        if user is not None:
            query = query.where(t.c.user_id == user)
        with begin(self.path) as conn:
            return [row._asdict() for row in conn.execute(query)]

    def thread_runs(self, thread_id: str, user: str | None = None) -> list[Outcome]:
        """The stored outcomes of one conversation, oldest first ([] for an unknown thread).

        With ``user``, only that user's runs (another user's thread reads as empty).
        """
        r = runs_table
        query = select(r.c.outcome).where(r.c.thread_id == thread_id).order_by(r.c.created)
        if user is not None:
            query = query.where(r.c.user_id == user)
        with begin(self.path) as conn:
            rows = conn.execute(query)
            return [Outcome.model_validate_json(text) for text in rows.scalars()]

    def runs(self, search: str | None = None, status: str | None = None, limit: int = 200,
             user: str | None = None) -> list[dict[str, Any]]:
        """Run summaries (:data:`SUMMARY_COLUMNS`), newest first.

        Optionally filtered by a question substring (case-insensitive; ``%`` and ``_`` match themselves), a
        status and a user.
        """
        r = runs_table
        query = select(*(r.c[c] for c in SUMMARY_COLUMNS)).order_by(r.c.created.desc()).limit(limit)
        if search:
            query = query.where(r.c.question.icontains(search, autoescape=True))
        if status:
            query = query.where(r.c.status == status)
        if user is not None:
            query = query.where(r.c.user_id == user)
        with begin(self.path) as conn:
            return [row._asdict() for row in conn.execute(query)]

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        """The stored outcome of ``run_id`` (None when unknown)."""
        with begin(self.path) as conn:
            text = conn.execute(select(runs_table.c.outcome).where(runs_table.c.run_id == run_id)).scalar()
        return json.loads(text) if text is not None else None
