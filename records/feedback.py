"""Thumbs up/down on answers, stored durably in ``<state_dir>/feedback.sqlite``.

Life of a record (``status``):

* thumbs **up** -> ``pending`` (its question/SQL pair is proposed as a few-shot example and waits for review;
  the app approves it at once when ``Settings.auto_approve_feedback`` is on);
* thumbs **down** -> ``review`` (the review list of wrong answers);
* a reviewer moves records to ``approved`` (indexed as an example, possibly with edited question/SQL),
  ``rejected`` (never indexed) or ``resolved`` (a thumbs-down that was looked at).

Only ``approved`` records feed the examples store (:func:`retrieval.examples_store.from_feedback`). Records are
never deleted by the app, so no feedback is lost.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from agent.outcome import Outcome
from records.db import connect

Rating = Literal["up", "down"]
STATUSES = ("pending", "approved", "rejected", "review", "resolved")

SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT, created REAL NOT NULL, updated REAL NOT NULL, run_id TEXT,
    thread_id TEXT, database TEXT, question TEXT NOT NULL, sql TEXT, result_digest TEXT, row_count INTEGER,
    rating TEXT NOT NULL, comment TEXT, status TEXT NOT NULL, langsmith TEXT);
CREATE INDEX IF NOT EXISTS feedback_status ON feedback (status, database);
"""


def result_digest(columns: list[str], rows: list[Any]) -> str:
    """A short fingerprint of a result table (sha256 of its JSON, 16 hex characters).

    Two answers with the same columns and rows in the same order have the same digest.
    """
    text = json.dumps({"columns": list(columns), "rows": [list(r) for r in rows]}, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Feedback:
    """One stored feedback record (times in epoch seconds; ``langsmith``: "sent", an error text or None)."""

    id: int
    created: float
    updated: float
    run_id: str | None
    thread_id: str | None
    database: str | None
    question: str
    sql: str | None
    result_digest: str | None
    row_count: int | None
    rating: str
    comment: str | None
    status: str
    langsmith: str | None

    def as_example(self) -> dict[str, str]:
        """The record as an examples-store entry.

        Keys: ``question``, ``sql``, ``id`` fb-N, ``source`` feedback, ``status``, ``added`` as an ISO date.
        """
        added = datetime.fromtimestamp(self.updated, tz=UTC).date().isoformat()
        return {"question": self.question, "sql": self.sql or "", "id": f"fb-{self.id}", "source": "feedback",
                "status": self.status, "added": added}


class FeedbackStore:
    """Feedback records in one SQLite file; every method opens its own connection.

    Args:
        path: the SQLite file (created with its folder on first use).
    """

    def __init__(self, path: Path) -> None:
        """Use the SQLite file at ``path`` (nothing is opened yet)."""
        self.path = Path(path)

    def record(self, outcome: Outcome, rating: Rating, comment: str | None = None) -> Feedback:
        """Store feedback on one answer (an outcome of :func:`agent.runner.ask`); returns the record.

        A thumbs-up with SQL is ``pending`` (approval, automatic or by a reviewer, goes through
        :func:`records.review.approve_feedback`, which checks the SQL first); one without SQL (nothing to learn
        from) goes to ``review`` like a thumbs-down.

        Raises:
            ValueError: ``rating`` is not "up" or "down", or the outcome has no question.
        """
        if rating not in ("up", "down"):
            raise ValueError(f"rating must be 'up' or 'down', not {rating!r}")
        question = outcome.question.strip()
        if not question:
            raise ValueError("the answer has no question to attach feedback to")
        sql = outcome.sql
        status = "pending" if rating == "up" and sql else "review"
        rows = outcome.rows
        now = time.time()
        with connect(self.path, SCHEMA) as conn:
            cur = conn.execute(
                "INSERT INTO feedback (created, updated, run_id, thread_id, database, question, sql, result_digest,"
                " row_count, rating, comment, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (now, now, outcome.run_id, outcome.thread_id, outcome.database, question,
                 sql, result_digest(outcome.columns, rows), outcome.total_rows,
                 rating, (comment or "").strip() or None, status))
            fid = int(cur.lastrowid or 0)
        found = self.get(fid)
        assert found is not None
        return found

    def get(self, feedback_id: int) -> Feedback | None:
        """One record by id (None when unknown)."""
        with connect(self.path, SCHEMA) as conn:
            row = conn.execute("SELECT * FROM feedback WHERE id = ?", (feedback_id,)).fetchone()
        return Feedback(**dict(row)) if row else None

    def find(self, status: str | None = None, database: str | None = None, run_id: str | None = None,
             limit: int = 500) -> list[Feedback]:
        """Records, newest first, filtered by status, database key and run id when given."""
        clauses, params = [], []
        for column, value in (("status", status), ("database", database), ("run_id", run_id)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f"WHERE {' AND '.join(clauses)} " if clauses else ""
        with connect(self.path, SCHEMA) as conn:
            rows = conn.execute(f"SELECT * FROM feedback {where}ORDER BY id DESC LIMIT ?", (*params, limit))
            return [Feedback(**dict(r)) for r in rows]

    def update(self, feedback_id: int, **fields: Any) -> Feedback:
        """Change ``status``, ``question``, ``sql``, ``comment`` or ``langsmith`` of one record.

        Raises:
            KeyError: unknown record. ValueError: unknown field or status.
        """
        allowed = {"status", "question", "sql", "comment", "langsmith"}
        if set(fields) - allowed:
            raise ValueError(f"cannot update {sorted(set(fields) - allowed)}")
        if "status" in fields and fields["status"] not in STATUSES:
            raise ValueError(f"unknown status {fields['status']!r}; expected one of {STATUSES}")
        if self.get(feedback_id) is None:
            raise KeyError(f"no feedback record {feedback_id}")
        sets = ", ".join(f"{k} = ?" for k in fields)
        with connect(self.path, SCHEMA) as conn:
            conn.execute(f"UPDATE feedback SET {sets}, updated = ? WHERE id = ?",
                         (*fields.values(), time.time(), feedback_id))
        found = self.get(feedback_id)
        assert found is not None
        return found

    def approved_examples(self, database: str) -> list[dict[str, str]]:
        """Approved records of ``database`` as examples-store entries (oldest first)."""
        return [f.as_example() for f in reversed(self.find(status="approved", database=database)) if f.sql]


def send_to_langsmith(feedback: Feedback, *, enabled: bool, client: Any = None,
                      comment_only: bool = False) -> str | None:
    """Attach ``feedback`` to its LangSmith run.

    Sends key ``user_rating`` (score 1 for up, 0 for down, with the comment), or with ``comment_only`` a
    ``user_comment`` entry carrying a comment added later. Returns "sent", an error text, or None when
    tracing is off or the run id is unknown. Never raises: the local record is what counts.
    """
    if not enabled or not feedback.run_id:
        return None
    try:
        if client is None:
            from langsmith import Client

            client = Client()
        if comment_only:
            client.create_feedback(feedback.run_id, key="user_comment", comment=feedback.comment)
        else:
            client.create_feedback(feedback.run_id, key="user_rating",
                                   score=1.0 if feedback.rating == "up" else 0.0, comment=feedback.comment)
        return "sent"
    except Exception as exc:  # network, auth or unknown run: reported in the panel, never fatal
        return f"{type(exc).__name__}: {exc}"[:300]
