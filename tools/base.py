"""The contract every worker tool follows (vanna-2 style): typed arguments, results as values.

A tool turns a :class:`ToolCall` (the plan step, its input with ``#E`` references resolved, and the referenced
results) into its Pydantic ``Args``, then ``run`` returns a :class:`ToolResult`. Failures are results with
``ok=False`` and a human-readable ``error``; the :class:`~tools.registry.ToolRegistry` also turns exceptions and
argument validation errors into such results.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

from agent.configuration import Settings
from agent.llm import LLMProvider, UsageLog
from retrieval.database import Database
from retrieval.store import VectorStore

ResultKind = Literal["schema", "examples", "values", "insights", "sql", "rows", "chart", "text", "error"]


class ToolResult(BaseModel):
    """Output of one tool run (evidence ``#E<n>``).

    ``text`` is what replaces ``#E<n>`` when a later step references it; ``value`` is the structured payload
    (JSON-friendly); ``latency_s`` is wall-clock seconds of the run.
    """

    ok: bool
    kind: ResultKind
    text: str = ""
    value: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    latency_s: float = 0.0

    @classmethod
    def failure(cls, error: str, latency_s: float = 0.0) -> ToolResult:
        """A failed result carrying ``error``."""
        return cls(ok=False, kind="error", text=f"ERROR: {error}", error=error, latency_s=latency_s)


@dataclass
class ToolContext:
    """What tools may use: settings, the database, the vector store, the LLMs and the question's usage log."""

    settings: Settings
    db: Database
    store: VectorStore
    llms: LLMProvider
    usage: UsageLog = field(default_factory=UsageLog)
    history: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ToolCall:
    """A plan step ready to run: the user's question, the resolved input and the results it references."""

    question: str
    step_id: str
    tool: str
    input: str
    refs: dict[str, ToolResult] = field(default_factory=dict)

    def referenced(self, kind: ResultKind) -> list[ToolResult]:
        """Referenced successful results of ``kind``, in reference order."""
        return [r for r in self.refs.values() if r.ok and r.kind == kind]


A = TypeVar("A", bound=BaseModel)


class Tool(ABC, Generic[A]):
    """Base class of worker tools; subclasses set ``name``, ``description`` and ``Args``."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]

    @abstractmethod
    def build_args(self, call: ToolCall, ctx: ToolContext) -> A:
        """Build validated arguments from the call; raises pydantic.ValidationError or ValueError."""

    @abstractmethod
    def run(self, args: A, ctx: ToolContext) -> ToolResult:
        """Run the tool; returns a result (``ok=False`` on failure) rather than raising."""
