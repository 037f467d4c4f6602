"""Read-only database access: every query is guarded, capped, timed out and returned as a value.

Two independent layers keep the database unchanged: :func:`database.guard.guard_sql` rejects anything
but a single SELECT, and every connection is opened read-only (SQLite ``mode=ro`` URI plus
``query_only``; PostgreSQL/MySQL read-only session; Oracle ``SET TRANSACTION READ ONLY`` per query).
For full safety on server databases also connect as a user with SELECT privileges only.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError

from database.guard import guard_sql, sqlglot_dialect
from database.results import QueryResult, to_jsonable

if TYPE_CHECKING:

    from core.settings import Settings

SQLITE_MAX_LENGTH = 10_000_000
"""Largest string or blob SQLite may build for a query, in bytes (its default is 1e9): ``printf('%.*c', 1e9,
'x')`` and ``zeroblob(1e9)`` fail with "string or blob too big" instead of taking the server's memory."""
_TIMEOUT_MARKERS = ("interrupted", "statement timeout", "dpi-1067", "call timeout",
                    "maximum statement execution time")


SQLITE_HEADER = b"SQLite format 3\x00"


def sqlite_file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be queried as a SQLite database (missing, unreadable, not SQLite), or None."""
    if not path.is_file():
        return f"Database file not found: {path}"
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as err:
        return f"Database file cannot be read: {path} ({err.strerror or err})"
    if header and header != SQLITE_HEADER:
        return f"Not a SQLite database file: {path}"
    return None


class Database:
    """A read-only handle on one database given by a SQLAlchemy URL.

    ``row_cap`` is the default maximum number of rows per query; ``timeout_s`` the per-statement time
    limit in seconds; ``max_bytes`` the approximate size of a fetched result (rows stop there) and
    ``max_cell_chars`` the longest cell kept whole (longer text is cut; SQLite itself refuses to build strings
    or blobs over :data:`SQLITE_MAX_LENGTH` bytes), so one query cannot exhaust the server's memory. Safe to share between threads: concurrent :meth:`run_query` calls use separate
    pooled connections. Raises ValueError for an unparsable URL or an in-memory SQLite URL.
    """

    def __init__(self, url: str, *, row_cap: int = 1000, timeout_s: float = 15.0,
                 max_bytes: int = 16_000_000, max_cell_chars: int = 10_000) -> None:
        """Parse ``url`` and set the query limits (see the class docstring for them and for ValueError)."""
        self._url_text = url
        try:
            self._url: URL = make_url(url)
        except Exception as err:  # sqlalchemy.exc.ArgumentError and friends
            raise ValueError(f"Invalid database URL: {err}") from err
        self.row_cap = row_cap
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.max_cell_chars = max_cell_chars
        try:
            self._url.get_dialect()
        except Exception as err:  # sqlalchemy.exc.NoSuchModuleError: no such database type or driver
            raise ValueError(f"Unknown database type in URL: '{self._url.drivername}' ({err})") from err
        self._dialect = sqlglot_dialect(self._url.get_backend_name())
        self._sqlite_path: Path | None = None
        if self._dialect == "sqlite":
            name = self._url.database
            if not name or name == ":memory:" or name.startswith("file:"):
                raise ValueError("Only file-based SQLite URLs (sqlite:///PATH) are supported.")
            self._sqlite_path = Path(name).expanduser().resolve()
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> Database:
        """Database for ``settings.database_url`` with its ``row_cap`` and ``query_timeout_s``."""
        return cls(settings.database_url, row_cap=settings.row_cap, timeout_s=settings.query_timeout_s,
                   max_bytes=settings.result_max_bytes, max_cell_chars=settings.cell_max_chars)

    def __repr__(self) -> str:
        """``Database('<url>')`` with the password hidden."""
        return f"Database({self._url.render_as_string(hide_password=True)!r})"

    @property
    def url(self) -> str:
        """The SQLAlchemy URL exactly as given (may contain a password: do not log it)."""
        return self._url_text

    @property
    def dialect(self) -> str:
        """Sqlglot dialect name: "sqlite", "postgres", "oracle", "mysql", ..."""
        return self._dialect

    @property
    def sqlite_path(self) -> Path | None:
        """Absolute path of the SQLite file, or None for server databases."""
        return self._sqlite_path

    @property
    def key(self) -> str:
        """Short stable id: the file stem for SQLite, else "<dialect>_<host>_<dbname>" ([A-Za-z0-9_])."""
        if self._sqlite_path is not None:
            raw = self._sqlite_path.stem
        else:
            u = self._url
            dbname = u.database or u.query.get("service_name") or u.username or ""
            raw = f"{self._dialect}_{u.host or 'local'}_{dbname}"
        return re.sub(r"[^A-Za-z0-9_]", "_", raw)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy Engine (created on first use; raises if the driver is missing)."""
        with self._lock:
            if self._engine is None:
                self._engine = self._create_engine()
            return self._engine

    def dispose(self) -> None:
        """Close pooled connections (the object stays usable; connections reopen on demand)."""
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()

    def run_query(self, sql: str, *, row_cap: int | None = None) -> QueryResult:
        """Guard, execute and fetch ``sql``, returning at most ``row_cap`` rows (default: ``self.row_cap``).

        Never raises: guard rejections, a missing SQLite file, database errors and timeouts all come back
        as ``QueryResult(ok=False, error=...)``.
        """
        start = time.perf_counter()
        verdict = guard_sql(sql, self._dialect)
        if not verdict.ok:
            return QueryResult(False, verdict.sql, error=verdict.error, elapsed_s=time.perf_counter() - start)
        return self._execute(verdict.sql, self.row_cap if row_cap is None else row_cap, start)

    def _execute(self, sql: str, cap: int, start: float) -> QueryResult:
        """Run an already-guarded statement; failures become values."""
        if self._sqlite_path is not None:
            problem = sqlite_file_problem(self._sqlite_path)
            if problem:
                return QueryResult(False, sql, error=problem)
        deadline = time.monotonic() + self.timeout_s
        try:
            with self.engine.connect() as conn:
                self._begin_read_only(conn)
                self._arm_timeout(conn, deadline)
                try:
                    # PostgreSQL: a server-side cursor, or psycopg buffers the whole result before the first row
                    # (a cross join took GBs of client memory until the timeout); each FETCH has its own timeout,
                    # so the fetch loop also stops at the deadline.
                    stream = self._dialect == "postgres"
                    result = conn.execution_options(no_parameters=True, stream_results=stream).exec_driver_sql(sql)
                    columns = list(result.keys()) if result.returns_rows else []
                    rows, note = (self._fetch(result, cap, deadline if stream else None) if result.returns_rows
                                  else ([], None))
                    result.close()
                finally:
                    self._arm_timeout(conn, None)
        except DBAPIError as err:
            message = " ".join(str(err.orig).split()) if err.orig is not None else str(err)
            if any(marker in message.lower() for marker in _TIMEOUT_MARKERS):
                message = f"Query timed out after {self.timeout_s:g} s ({message})"
            return QueryResult(False, sql, error=message, elapsed_s=time.perf_counter() - start)
        except Exception as err:  # driver missing, connection refused, ...
            return QueryResult(False, sql, error=f"{type(err).__name__}: {err}",
                               elapsed_s=time.perf_counter() - start)
        return QueryResult(True, sql, columns, rows, note is not None, time.perf_counter() - start, note=note)

    def _fetch(self, result: Any, cap: int, deadline: float | None = None) -> tuple[list[tuple[Any, ...]], str | None]:
        """Rows in batches until ``cap`` rows, :attr:`max_bytes` or ``deadline``; long cells cut.

        ``deadline`` (time.monotonic) is checked between batches. Returns ``(rows, note)``.
        """
        rows: list[tuple[Any, ...]] = []
        used, cut_cells, note = 0, 0, None
        while note is None:
            if deadline is not None and rows and time.monotonic() > deadline:
                note = f"only the first {len(rows)} rows (time limit of {self.timeout_s:g} s)"
                break
            # batch size follows the rows' size: 1 row first, then as many as the byte budget left allows (a
            # batch of 100 rows of 10 MB blobs held 1 GB before the byte limit could act)
            per_row = used // len(rows) if rows else self.max_bytes
            size = max(1, min(100, (self.max_bytes - used) // max(per_row, 1)))
            batch = result.fetchmany(min(size, cap + 1 - len(rows)))
            if not batch:
                break
            for raw in batch:
                if len(rows) >= cap:
                    note = f"only the first {cap} rows (row cap)"
                    break
                row = []
                for value in raw:
                    size = len(value) if isinstance(value, (str, bytes, bytearray, memoryview)) else 8
                    used += size
                    cut = False
                    if isinstance(value, (bytes, bytearray, memoryview)) and size > self.max_cell_chars // 2:
                        value, cut = bytes(value[: self.max_cell_chars // 2]), True  # hex doubles the length
                    cell = to_jsonable(value)
                    if isinstance(cell, str) and len(cell) > self.max_cell_chars:
                        cell, cut = cell[: self.max_cell_chars] + "... [cut]", True
                    cut_cells += cut
                    row.append(cell)
                rows.append(tuple(row))
                if used > self.max_bytes:
                    note = f"only the first {len(rows)} rows (result size limit of {self.max_bytes:,} bytes)"
                    break
        if cut_cells and note is None:
            note = f"{cut_cells} long cell(s) cut to {self.max_cell_chars:,} characters"
        return rows, note

    def _catalog_rows(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """Internal: run a fixed catalog query with bind parameters in a read-only session (unguarded).

        Only for SQL written in this package (schema reading), never for model-written SQL. Raises the
        driver's errors.
        """
        from sqlalchemy import text

        with self.engine.connect() as conn:
            self._begin_read_only(conn)
            return [tuple(r) for r in conn.execute(text(sql), params or {})]

    def _begin_read_only(self, conn: Connection) -> None:
        """Per-transaction read-only mode where the database needs it (Oracle)."""
        if self._dialect == "oracle":
            conn.exec_driver_sql("SET TRANSACTION READ ONLY")

    def _arm_timeout(self, conn: Connection, deadline: float | None) -> None:
        """SQLite: interrupt the running statement once ``deadline`` (time.monotonic) passes; None disarms."""
        if self._sqlite_path is None:
            return
        raw = conn.connection.driver_connection
        assert raw is not None, "pooled connection without a driver connection"
        if deadline is None:
            raw.set_progress_handler(None, 0)
        else:
            raw.set_progress_handler(lambda: int(time.monotonic() > deadline), 1000)

    def _create_engine(self) -> Engine:
        """Build the Engine with read-only connection setup for the backend."""
        if self._sqlite_path is not None:
            path = self._sqlite_path

            def connect() -> sqlite3.Connection:
                if not path.is_file():
                    raise sqlite3.OperationalError(f"Database file not found: {path}")
                raw = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
                raw.execute("PRAGMA query_only = ON")
                raw.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
                raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, SQLITE_MAX_LENGTH)
                return raw

            url = URL.create("sqlite", database=str(path))
            engine = create_engine(url, creator=connect, pool_size=8, max_overflow=16)

            @event.listens_for(engine, "checkout")
            def read_only_again(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
                dbapi_connection.execute("PRAGMA query_only = ON")  # even if something switched it off

            return engine
        engine = create_engine(self._url, pool_pre_ping=True)
        timeout_ms = max(1, int(self.timeout_s * 1000))
        statements = {
            "postgres": ["SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
                         f"SET statement_timeout = {timeout_ms}"],
            "mysql": ["SET SESSION TRANSACTION READ ONLY", f"SET SESSION max_execution_time = {timeout_ms}"],
        }.get(self._dialect, [])

        @event.listens_for(engine, "connect")
        def on_connect(dbapi_connection: Any, _record: Any) -> None:
            if self._dialect == "oracle":
                dbapi_connection.call_timeout = timeout_ms
            if statements:
                cursor = dbapi_connection.cursor()
                for statement in statements:
                    cursor.execute(statement)
                cursor.close()
                dbapi_connection.commit()

        return engine
