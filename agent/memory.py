"""Conversation memory: a LangGraph checkpointer on SQLite (default) or PostgreSQL (``Settings.state_url``).

Each thread's state (history of questions, SQL and result shapes) survives across questions and processes.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import psycopg
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from agent.graph import AgentGraph
from core.settings import Settings

STATE_TYPES = [("agent.plan", "Plan"), ("agent.plan", "PlanStep"), ("tools.base", "ToolResult"),
               ("tools.organizer", "Answer")]
"""Our Pydantic types stored in checkpoints; only these are deserialized (langgraph's msgpack allow-list)."""

SETUP_LOCK_KEY = 7_362_115_001
"""PostgreSQL advisory-lock key that serializes ``PostgresSaver.setup()`` between processes."""

_set_up: set[str] = set()
_setup_lock = threading.Lock()


def checkpoint_path(settings: Settings) -> Path:
    """Where the checkpoints live: ``<state_dir>/checkpoints.sqlite``."""
    return Path(settings.state_dir) / "checkpoints.sqlite"


def postgres_conninfo(state_url: str) -> str | None:
    """The libpq connection string of a PostgreSQL ``state_url`` (any ``postgresql+driver://`` form), else None.

    Raises:
        ValueError: ``state_url`` is not a valid SQLAlchemy URL.
    """
    if not state_url.strip():
        return None
    try:
        url = make_url(state_url.strip())
    except (ArgumentError, ValueError) as exc:
        raise ValueError(f"NL2SQL_STATE_URL is not a valid database URL: {exc}") from None
    if url.get_backend_name() != "postgresql":
        return None
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def open_checkpointer(settings: Settings, path: Path | None = None) -> BaseCheckpointSaver[Any]:
    """The thread checkpointer: ``PostgresSaver`` when ``settings.state_url`` is PostgreSQL, else ``SqliteSaver``.

    SQLite: the file ``path`` (default :func:`checkpoint_path`; folder created), on a connection usable from the
    app's worker threads (SqliteSaver locks itself). PostgreSQL: a small psycopg pool (autocommit, dict rows)
    on that database; its tables are created or migrated once per process (``setup()``). ``path`` is ignored
    then. Other ``state_url`` schemes (e.g. ``sqlite:///``) keep the checkpoints in the file.

    Raises:
        ValueError: ``state_url`` is not a valid URL. psycopg.OperationalError: PostgreSQL cannot be reached.
    """
    conninfo = postgres_conninfo(settings.state_url)
    if conninfo is not None:
        return _postgres_saver(conninfo)
    target = path or checkpoint_path(settings)
    target.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(target), check_same_thread=False)
    return SqliteSaver(conn, serde=JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES))


def _postgres_saver(conninfo: str) -> PostgresSaver:
    """A PostgresSaver on a pool for ``conninfo``, its tables set up (once per process and database)."""
    pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
        conninfo, min_size=1, max_size=8, open=True,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row})
    saver = PostgresSaver(pool, serde=JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES))
    try:
        with _setup_lock:
            if conninfo not in _set_up:
                with psycopg.connect(conninfo, autocommit=True) as lock_conn:
                    lock_conn.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK_KEY,))
                    saver.setup()  # the lock is released when lock_conn closes
                _set_up.add(conninfo)
    except BaseException:
        pool.close()
        raise
    return saver


def thread_history(graph: AgentGraph, thread_id: str) -> list[dict[str, Any]]:
    """The stored history of ``thread_id`` (oldest first; [] for a new thread)."""
    snapshot = graph.get_state({"configurable": {"thread_id": thread_id}})
    return list((snapshot.values or {}).get("history", [])) if snapshot else []
