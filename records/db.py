"""The engine of the product's records store: SQLite files by default, PostgreSQL by ``Settings.state_url``.

A store's *location* is a SQLite file path or a SQLAlchemy URL (``postgresql+psycopg://...`` or ``sqlite:///...``).
:func:`engine_for` builds one engine per location and process and brings its tables to the newest Alembic
revision on first use (``records/migrations``; files made before migrations existed are adopted, rows kept).
SQLite: a fresh connection per operation (safe with several Streamlit sessions, threads and processes), WAL
journaling, a 10 s busy timeout. PostgreSQL: a pooled, pre-pinged connection.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, Table, create_engine, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import NullPool

Location = Path | str
"""A SQLite file (a path, or a string without ``://``) or a SQLAlchemy URL."""

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
BUSY_TIMEOUT_S = 10.0
MIGRATION_LOCK_KEY = 7_362_115_002
"""PostgreSQL advisory-lock key that serializes the records migrations between processes."""

_engines: dict[str, Engine] = {}
_lock = threading.Lock()


def as_location(path: Location) -> Location:
    """``path`` as a store location: a URL string kept as is, anything else as a :class:`~pathlib.Path`."""
    return path if isinstance(path, str) and "://" in path else Path(path)


def store_url(location: Location) -> URL:
    """The SQLAlchemy URL of ``location`` (a path becomes ``sqlite:///<absolute path>``).

    Raises:
        ValueError: an invalid URL, or a backend other than SQLite or PostgreSQL.
    """
    if isinstance(location, Path) or "://" not in location:
        return URL.create("sqlite", database=str(Path(location).expanduser().resolve()))
    try:
        url = make_url(location.strip())
    except (ArgumentError, ValueError) as exc:
        raise ValueError(f"the state store URL is not a valid database URL: {exc}") from None
    if url.get_backend_name() not in ("sqlite", "postgresql"):
        raise ValueError(f"the state store must be SQLite or PostgreSQL, not {url.get_backend_name()!r} "
                         "(NL2SQL_STATE_URL)")
    return url


def engine_for(location: Location) -> Engine:
    """The engine of ``location``, migrated to the newest revision (once per process; again if a file vanished).

    Raises:
        ValueError: see :func:`store_url`. sqlalchemy.exc.OperationalError: the store cannot be reached or written.
    """
    url = store_url(location)
    key = url.render_as_string(hide_password=False)
    file = Path(url.database) if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") \
        else None
    with _lock:
        engine = _engines.get(key)
        if engine is None or (file is not None and not file.exists()):
            if file is not None:
                file.parent.mkdir(parents=True, exist_ok=True)
            engine = engine or _create_engine(url)
            _upgrade(engine)
            _engines[key] = engine
        return engine


@contextmanager
def begin(location: Location) -> Iterator[Connection]:
    """A connection of ``location``'s engine inside one transaction: committed on success, rolled back on error."""
    with engine_for(location).begin() as conn:
        yield conn


def upsert(conn: Connection, table: Table, values: dict[str, Any], key: str, update: list[str]) -> None:
    """Insert ``values`` into ``table``; on a clash of primary key ``key``, set only the ``update`` columns."""
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = insert(table).values(**values)
    conn.execute(stmt.on_conflict_do_update(index_elements=[key],
                                            set_={c: stmt.excluded[c] for c in update}))


def dispose_all() -> None:
    """Close every cached engine's connections (e.g. before a test drops its database)."""
    with _lock:
        for engine in _engines.values():
            engine.dispose()
        _engines.clear()


def _create_engine(url: URL) -> Engine:
    if url.get_backend_name() == "postgresql":
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, poolclass=NullPool, connect_args={"timeout": BUSY_TIMEOUT_S})
    event.listen(engine, "connect", _sqlite_wal)
    return engine


def _sqlite_wal(dbapi_conn: Any, _record: Any) -> None:
    dbapi_conn.execute("PRAGMA journal_mode=WAL")


def _upgrade(engine: Engine) -> None:
    """Apply the pending migrations in one transaction that holds the store's write lock."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
        else:
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # one migrating process at a time
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
