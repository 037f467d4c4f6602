"""The agent's dependencies, passed to every graph node through LangGraph's runtime context."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.llm import LLMProvider, UsageLog
from core.settings import Settings
from database.connection import Database
from retrieval.store import VectorStore
from tools.audit import AuditSink
from tools.base import ToolContext
from tools.registry import ToolRegistry


@dataclass
class AgentDeps:
    """Everything the nodes need, created once per database and settings (:func:`agent.runner.build_deps`).

    Attributes:
        settings: the application settings.
        db: the guarded read-only database being questioned.
        store: the vector store holding this database's indexes.
        llms: the chat models of each role, with usage accounting.
        registry: the worker tools plans may call.
        audit: where executed SQL is recorded (:mod:`tools.audit`; e.g. :meth:`records.audit.AuditLog.record`),
            None: not audited. :func:`agent.runner.ask` reports to it for the user it is given.
    """

    settings: Settings
    db: Database
    store: VectorStore
    llms: LLMProvider
    registry: ToolRegistry
    audit: AuditSink | None = None

    def context(self, usage: UsageLog, history: list[dict[str, Any]] | None = None) -> ToolContext:
        """A tool context recording LLM usage into ``usage``, with the thread's ``history`` (oldest first)."""
        return ToolContext(self.settings, self.db, self.store, self.llms, usage, list(history or []))
