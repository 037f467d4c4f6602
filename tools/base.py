"""The contract every worker tool follows (vanna-2 style): typed arguments, results as values.

A tool turns a :class:`ToolCall` (the plan step, its input with ``#E`` references resolved, and the referenced
results) into its Pydantic ``Args``, then ``run`` returns a :class:`ToolResult`. Failures are results with
``ok=False`` and a human-readable ``error``; the :class:`~tools.registry.ToolRegistry` also turns exceptions and
argument validation errors into such results.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

from langchain_core.runnables.config import ContextThreadPoolExecutor
from pydantic import BaseModel, Field

from core.llm import LLMProvider, UsageLog
from core.settings import Settings
from database.connection import Database
from retrieval.hybrid import TableCatalog, load_catalog
from retrieval.store import VectorStore

ResultKind = Literal["schema", "examples", "knowledge", "decision", "values", "insights", "sql", "rows", "chart", "text", "error"]


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
    """What tools may use: settings, the database, the vector store, the LLMs and the question's usage log.

    One context serves one question (:meth:`agent.context.AgentDeps.context`), so what it caches
    (:meth:`catalog`) is read once per question.
    """

    settings: Settings
    db: Database
    store: VectorStore
    llms: LLMProvider
    usage: UsageLog = field(default_factory=UsageLog)
    history: list[dict[str, Any]] = field(default_factory=list)
    _catalog: list[TableCatalog | None] = field(default_factory=list, init=False, repr=False, compare=False)

    def catalog(self) -> TableCatalog | None:
        """The index's :class:`~retrieval.hybrid.TableCatalog` of this database, loaded on first use.

        None without a vector store or when the database is not indexed. Later calls return the same object.
        """
        if not self._catalog:
            self._catalog.append(load_catalog(self.store, self.db.key) if self.store is not None else None)
        return self._catalog[0]


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

    def last_ref(self) -> ToolResult | None:
        """The last referenced result, successful or not (None without references)."""
        return list(self.refs.values())[-1] if self.refs else None


T = TypeVar("T")
R = TypeVar("R")


def run_concurrently(fn: Callable[[T], R], items: Sequence[T], parallel: bool = True) -> list[R]:
    """``[fn(x) for x in items]``, on threads when ``parallel`` (results keep the order of ``items``).

    Uses langchain-core's context-copying pool so LangSmith traces of the calls stay under the current run.
    ``fn`` must not raise (tools return failures as values).
    """
    if not parallel or len(items) < 2:
        return [fn(x) for x in items]
    with ContextThreadPoolExecutor(max_workers=len(items)) as pool:
        return list(pool.map(fn, items))


A = TypeVar("A", bound=BaseModel)


class Tool(ABC, Generic[A]):
    """Base class of worker tools: the one place a tool is declared.

    A subclass sets its name, the description the planner reads, its Pydantic ``Args``, the kind of result it
    returns and its plan rules; the plan types (:func:`agent.plan.draft_model`), plan validation and
    completion, the planner prompt's tool list and the enabled list are all derived from these declarations
    through :class:`~tools.registry.ToolRegistry`. Adding a tool is one module plus one line in
    :func:`tools.registry.default_registry`.
    """

    name: ClassVar[str]
    """Tool name as plan steps write it, e.g. ``"generate_sql"``."""
    description: ClassVar[str]
    """One line for the planner: what the tool does and ``(input: ...)``."""
    Args: ClassVar[type[BaseModel]]
    """Validated arguments built by :meth:`build_args`."""
    result_kind: ClassVar[ResultKind]
    """Kind of evidence a successful run returns; a plan must end its own steps with a ``rows`` tool."""
    requires: ClassVar[tuple[str, ...]] = ()
    """A step of this tool must reference at least one earlier step of one of these tools (empty: no rule)."""
    planned: ClassVar[bool] = True
    """True when the planner writes steps of this tool; False for quality steps that plan completion appends
    after the last query execution, in registry order (the judge, the verifier)."""
    flag: ClassVar[str | None] = None
    """One-letter switch of this tool in the compact plan (:func:`agent.plan.compact_model`): tools with a flag
    are optional steps the planner turns on or off; planned tools without one always run."""
    final: ClassVar[bool] = False
    """True for presentation tools (the chart) that plan completion moves after the quality steps, onto the
    final result; added also when :meth:`wanted` says the question asks for it."""
    handles_failures: ClassVar[bool] = False
    """True for tools that run even when a referenced step failed (the judge and the verifier repair or
    report failures); other tools are skipped with the failure passed on."""

    def enabled(self, settings: Settings) -> bool:
        """Whether plans may use this tool under ``settings`` (default: always)."""
        return True

    def wanted(self, question: str) -> bool:
        """Whether ``question`` asks for this (final) tool even when the planner did not write it."""
        return False

    @abstractmethod
    def build_args(self, call: ToolCall, ctx: ToolContext) -> A:
        """Build validated arguments from the call; raises pydantic.ValidationError or ValueError."""

    @abstractmethod
    def run(self, args: A, ctx: ToolContext) -> ToolResult:
        """Run the tool; returns a result (``ok=False`` on failure) rather than raising."""
