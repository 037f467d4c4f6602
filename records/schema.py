"""The tables of the records store (SQLAlchemy Core), shared by every backend.

Their shape is the one the migrations (``records/migrations/versions/``) create: ``0001_initial`` is the shape of
the SQLite files written before migrations existed, ``0002_users_audit`` adds ``user_id`` (NULL on older rows)
and the SQL audit log, ``0003_feedback_confidence`` the answer's confidence level and reasons on feedback (NULL on
older rows). Times are epoch seconds.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Double, Index, Integer, MetaData, Table, Text

metadata = MetaData()

threads = Table(
    "threads", metadata,
    Column("id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("database", Text),
    Column("created", Double, nullable=False),
    Column("updated", Double, nullable=False),
    Column("user_id", Text),
    Index("threads_user", "user_id", "updated"),
)
"""Conversations: one row per thread id (``user_id``: who started it; NULL before users were recorded)."""

runs = Table(
    "runs", metadata,
    Column("run_id", Text, primary_key=True),
    Column("thread_id", Text),
    Column("created", Double, nullable=False),
    Column("question", Text, nullable=False),
    Column("database", Text),
    Column("status", Text),
    Column("latency_s", Double),
    Column("llm_calls", Integer),
    Column("prompt_tokens", Integer),
    Column("completion_tokens", Integer),
    Column("outcome", Text, nullable=False),
    Column("user_id", Text),
    Index("runs_thread", "thread_id", "created"),
    Index("runs_user", "user_id", "created"),
)
"""Run traces: one row per answered question, the full outcome as JSON text."""

feedback = Table(
    "feedback", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created", Double, nullable=False),
    Column("updated", Double, nullable=False),
    Column("run_id", Text),
    Column("thread_id", Text),
    Column("database", Text),
    Column("question", Text, nullable=False),
    Column("sql", Text),
    Column("result_digest", Text),
    Column("row_count", Integer),
    Column("rating", Text, nullable=False),
    Column("comment", Text),
    Column("status", Text, nullable=False),
    Column("langsmith", Text),
    Column("user_id", Text),
    Column("confidence_level", Text),
    Column("confidence_reasons", Text),
    Index("feedback_status", "status", "database"),
    sqlite_autoincrement=True,
)
"""Thumbs up/down records (see :mod:`records.feedback`); ``confidence_reasons`` is a JSON list of strings."""

audit_log = Table(
    "audit_log", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created", Double, nullable=False),
    Column("user_id", Text),
    Column("database", Text),
    Column("sql", Text, nullable=False),
    Column("row_count", Integer, nullable=False),
    Column("elapsed_ms", Double, nullable=False),
    Column("ok", Boolean, nullable=False),
    Column("error", Text),
    Index("audit_created", "created"),
    Index("audit_user", "user_id", "created"),
    sqlite_autoincrement=True,
)
"""Every SQL statement executed for a user (see :mod:`records.audit`)."""
