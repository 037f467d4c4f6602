"""Conversation memory: a LangGraph SQLite checkpointer.

Each thread's state (history of questions, SQL and result shapes) survives across questions and processes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from agent.graph import AgentGraph
from core.settings import Settings

STATE_TYPES = [("agent.plan", "Plan"), ("agent.plan", "PlanStep"), ("tools.base", "ToolResult"),
               ("tools.organizer", "Answer")]
"""Our Pydantic types stored in checkpoints; only these are deserialized (langgraph's msgpack allow-list)."""


def checkpoint_path(settings: Settings) -> Path:
    """Where the checkpoints live: ``<state_dir>/checkpoints.sqlite``."""
    return Path(settings.state_dir) / "checkpoints.sqlite"


def open_checkpointer(settings: Settings, path: Path | None = None) -> SqliteSaver:
    """A ``langgraph.checkpoint.sqlite.SqliteSaver`` on ``path`` (default :func:`checkpoint_path`).

    The folder is created. The connection allows use from the app's worker threads (SqliteSaver locks
    itself).
    """
    target = path or checkpoint_path(settings)
    target.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(target), check_same_thread=False)
    return SqliteSaver(conn, serde=JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES))


def thread_history(graph: AgentGraph, thread_id: str) -> list[dict[str, Any]]:
    """The stored history of ``thread_id`` (oldest first; [] for a new thread)."""
    snapshot = graph.get_state({"configurable": {"thread_id": thread_id}})
    return list((snapshot.values or {}).get("history", [])) if snapshot else []
