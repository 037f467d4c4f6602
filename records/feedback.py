"""Thumbs up/down on answers, stored durably in ``<state_dir>/feedback.sqlite`` or the ``state_url`` database.

Life of a record (``status``):

* thumbs **up** -> ``pending`` (its question/SQL pair is proposed as a few-shot example and waits for review;
  the app approves it at once when ``Settings.auto_approve_feedback`` is on);
* thumbs **down** -> ``review`` (the review list of wrong answers);
* a reviewer moves records to ``approved`` (indexed as an example, possibly with edited question/SQL),
  ``rejected`` (never indexed) or ``resolved`` (a thumbs-down that was looked at).

Only ``approved`` records feed the examples store (:func:`retrieval.examples_store.from_feedback`). Records are
never deleted by the app, so no feedback is lost. Each records the ``user_id`` who gave it (NULL for older
records); :meth:`FeedbackStore.find` filters by it. Each also keeps the answer's confidence level and reasons as
shown when the rating was given (:class:`agent.confidence.Confidence`; NULL for older records and for replies
without a confidence), so the review queue can put a verified answer marked wrong first
(:func:`records.review_order.order_review_queue`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import insert, select, update

from agent.outcome import Outcome
from records.db import Location, as_location, begin
from records.schema import feedback as table

Rating = Literal["up", "down"]
STATUSES = ("pending", "approved", "rejected", "review", "resolved")


def result_digest(columns: list[str], rows: list[Any]) -> str:
    """A short fingerprint of a result table (sha256 of its JSON, 16 hex characters).

    Two answers with the same columns and rows in the same order have the same digest.
    """
    text = json.dumps({"columns": list(columns), "rows": [list(r) for r in rows]}, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Feedback:
    """One stored feedback record (times in epoch seconds; ``langsmith``: "sent", an error text or None).

    ``user_id`` is the user who gave it (None for records older than users, or when none was given).
    ``confidence_level`` (verified, likely, unsure) and ``confidence_reasons`` are the answer's confidence when
    the rating was given (None and [] for older records and for replies without a confidence).
    """

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
    user_id: str | None = None
    confidence_level: str | None = None
    confidence_reasons: list[str] = field(default_factory=list)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Feedback:
        """The record of one ``feedback`` table row (``confidence_reasons`` decoded from its JSON text)."""
        values = dict(row)
        reasons = values.pop("confidence_reasons", None)
        return cls(**values, confidence_reasons=[str(r) for r in json.loads(reasons)] if reasons else [])

    def as_example(self) -> dict[str, str]:
        """The record as an examples-store entry.

        Keys: ``question``, ``sql``, ``id`` fb-N, ``source`` feedback, ``status``, ``added`` as an ISO date.
        """
        added = datetime.fromtimestamp(self.updated, tz=UTC).date().isoformat()
        return {"question": self.question, "sql": self.sql or "", "id": f"fb-{self.id}", "source": "feedback",
                "status": self.status, "added": added}


class FeedbackStore:
    """Feedback records in one SQLite file or database; every method runs its own transaction.

    Args:
        path: the SQLite file (created with its folder on first use) or a SQLAlchemy URL
            (:func:`records.paths.feedback_path`); tables are created or migrated on first use.
    """

    def __init__(self, path: Location) -> None:
        """Use the store at ``path`` (nothing is opened yet)."""
        self.path = as_location(path)

    def record(self, outcome: Outcome, rating: Rating, comment: str | None = None,
               user: str | None = None) -> Feedback:
        """Store feedback by ``user`` on one answer (an outcome of :func:`agent.runner.ask`); returns the record.

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
        confidence = outcome.confidence
        now = time.time()
        with begin(self.path) as conn:
            result = conn.execute(insert(table).values(
                created=now, updated=now, run_id=outcome.run_id, thread_id=outcome.thread_id,
                database=outcome.database, question=question, sql=sql,
                result_digest=result_digest(outcome.columns, rows), row_count=outcome.total_rows,
                rating=rating, comment=(comment or "").strip() or None, status=status, user_id=user,
                confidence_level=confidence.level if confidence else None,
                confidence_reasons=json.dumps(confidence.reasons) if confidence else None,
            ))
            key = result.inserted_primary_key
            assert key is not None
            fid = int(key[0])
        found = self.get(fid)
        assert found is not None
        return found

    def get(self, feedback_id: int) -> Feedback | None:
        """One record by id (None when unknown)."""
        with begin(self.path) as conn:
            row = conn.execute(select(table).where(table.c.id == feedback_id)).first()
        return Feedback.from_row(row._asdict()) if row else None

    def find(self, status: str | None = None, database: str | None = None, run_id: str | None = None,
             limit: int = 500, user: str | None = None) -> list[Feedback]:
        """Records, newest first, filtered by status, database key, run id and user when given."""
        query = select(table).order_by(table.c.id.desc()).limit(limit)
        for column, value in (("status", status), ("database", database), ("run_id", run_id), ("user_id", user)):
            if value is not None:
                query = query.where(table.c[column] == value)
        with begin(self.path) as conn:
            return [Feedback.from_row(r._asdict()) for r in conn.execute(query)]

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
        with begin(self.path) as conn:
            conn.execute(update(table).where(table.c.id == feedback_id).values(**fields, updated=time.time()))
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
