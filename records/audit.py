"""The SQL audit log: every statement executed for a user, in ``<state_dir>/audit.sqlite`` or ``state_url``.

One row per execution (:class:`tools.audit.ExecutedSQL`): user, database key, SQL, row count, elapsed
milliseconds, ok or the error, and the time (epoch seconds). Rows are only ever added. Writers get an
:class:`AuditLog`'s :meth:`~AuditLog.record` as the agent's audit sink (:attr:`agent.context.AgentDeps.audit`);
``nl2sql audit`` reads the newest rows.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import insert, select

from records.db import Location, as_location, begin
from records.schema import audit_log as table
from tools.audit import ExecutedSQL

COLUMNS = ("id", "created", "user_id", "database", "sql", "row_count", "elapsed_ms", "ok", "error")


class AuditLog:
    """The audit rows in one SQLite file or database; every method runs its own transaction.

    Args:
        path: the SQLite file (created with its folder on first use) or a SQLAlchemy URL
            (:func:`records.paths.audit_path`); tables are created or migrated on first use.
    """

    def __init__(self, path: Location) -> None:
        """Use the store at ``path`` (nothing is opened yet)."""
        self.path = as_location(path)

    def record(self, entry: ExecutedSQL) -> None:
        """Append one executed statement, stamped with the current time.

        Raises:
            sqlalchemy.exc.SQLAlchemyError: the store cannot be written (callers such as
                :func:`tools.audit.report` log it and go on).
        """
        with begin(self.path) as conn:
            conn.execute(insert(table).values(
                created=time.time(), user_id=entry.user, database=entry.database, sql=entry.sql,
                row_count=entry.row_count, elapsed_ms=entry.elapsed_ms, ok=entry.ok, error=entry.error))

    def recent(self, limit: int = 50, user: str | None = None, database: str | None = None
               ) -> list[dict[str, Any]]:
        """The newest ``limit`` rows, newest first, only ``user``'s and ``database``'s when given.

        Each is a dict of :data:`COLUMNS` (``created`` in epoch seconds, ``ok`` a bool).

        Raises:
            ValueError: ``limit`` is below 1.
        """
        if limit < 1:
            raise ValueError(f"the limit must be at least 1, not {limit}")
        query = select(*(table.c[c] for c in COLUMNS)).order_by(table.c.id.desc()).limit(limit)
        if user is not None:
            query = query.where(table.c.user_id == user)
        if database is not None:
            query = query.where(table.c.database == database)
        with begin(self.path) as conn:
            return [{**row._asdict(), "ok": bool(row.ok)} for row in conn.execute(query)]
