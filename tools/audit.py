"""The SQL audit hook: every statement executed for a user is reported to an audit sink.

The caller that knows the user (:func:`agent.runner.ask`, the CLI's ``sql`` command, the MCP server) opens an
:func:`audit_scope` with a sink (e.g. :meth:`records.audit.AuditLog.record`) and the user; the executions inside
it that go through :func:`run_audited` (the agent's ``execute_sql`` step) are reported. The scope is a context
variable, so it follows the question into LangGraph's nodes and the executor's threads (both copy the context),
and concurrent questions of different users never mix. Auditing never fails a question: a sink that raises is
logged as a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from database.connection import Database
from database.results import QueryResult

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExecutedSQL:
    """One executed statement as the audit log keeps it.

    ``user``: who it ran for (None when unknown); ``database``: the database key (:attr:`Database.key`);
    ``sql``: the statement as run (after the guard) or as given when refused; ``row_count``: rows returned (0 on
    error); ``elapsed_ms``: wall time in milliseconds; ``ok`` with ``error`` (the guard's or the database's
    message) when it failed.
    """

    user: str | None
    database: str
    sql: str
    row_count: int
    elapsed_ms: float
    ok: bool
    error: str | None = None


AuditSink = Callable[[ExecutedSQL], None]
"""Receives each executed statement; may raise (the failure is logged, the question goes on)."""

_scope: ContextVar[tuple[AuditSink, str | None] | None] = ContextVar("nl2sql_sql_audit", default=None)


@contextmanager
def audit_scope(sink: AuditSink | None, user: str | None) -> Iterator[None]:
    """Report the audited executions inside the ``with`` block to ``sink`` as run for ``user``.

    A None ``sink`` turns auditing off inside the block. Scopes nest; the innermost wins.
    """
    token = _scope.set((sink, user) if sink is not None else None)
    try:
        yield
    finally:
        _scope.reset(token)


def report(db: Database, res: QueryResult) -> None:
    """Send ``res`` (a result of ``db``) to the current scope's sink; nothing without a scope. Never raises."""
    scope = _scope.get()
    if scope is None:
        return
    sink, user = scope
    entry = ExecutedSQL(user=user, database=db.key, sql=res.sql, row_count=len(res.rows) if res.ok else 0,
                        elapsed_ms=round(res.elapsed_s * 1000.0, 3), ok=res.ok, error=res.error)
    try:
        sink(entry)
    except Exception as exc:  # the audit store is down or full: the answer still goes out
        log.warning("SQL audit record lost (%s: %s) for user %r on %s", type(exc).__name__, exc, user, db.key)


def run_audited(db: Database, sql: str, **kwargs: Any) -> QueryResult:
    """:meth:`Database.run_query` (``kwargs`` passed on, e.g. ``row_cap``), reported by :func:`report`."""
    res = db.run_query(sql, **kwargs)
    report(db, res)
    return res
