"""Wiring and the one entry point used by the CLI, the app and the evaluation: :func:`ask`."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel

from agent.configuration import Settings
from agent.graph import AgentDeps, build_graph
from agent.llm import LLMProvider
from retrieval.database import Database
from retrieval.embeddings import get_embedding_function
from retrieval.store import ChromaStore, VectorStore
from tools.charts import BuildChartTool
from tools.examples import RetrieveExamplesTool
from tools.execution import ExecuteSQLTool
from tools.generation import GenerateSQLTool
from tools.insights import TableInsightsTool
from tools.judge import JudgeSQLTool
from tools.referential import SearchValuesTool
from tools.registry import ToolRegistry
from tools.schema_retrieval import RetrieveSchemaTool
from tools.verifier import VerifySQLTool

MAX_QUESTION_CHARS = 2000


def default_registry() -> ToolRegistry:
    """The worker tools a plan may call."""
    return ToolRegistry([RetrieveSchemaTool(), RetrieveExamplesTool(), SearchValuesTool(), TableInsightsTool(),
                         GenerateSQLTool(), ExecuteSQLTool(), JudgeSQLTool(), VerifySQLTool(), BuildChartTool()])


def open_store(settings: Settings) -> ChromaStore:
    """The persistent Chroma store at ``settings.retrieval.chroma_path`` with the offline embeddings."""
    return ChromaStore(settings.retrieval.chroma_path, get_embedding_function(settings))


def build_deps(
    settings: Settings,
    *,
    llm_overrides: dict[str, BaseChatModel] | None = None,
    store: VectorStore | None = None,
    start_local_llm: bool = True,
) -> AgentDeps:
    """Create the database, vector store, LLMs and tools for ``settings``.

    When a role points at the embedded local endpoint and nothing answers there, the local llama.cpp server
    is started (see :mod:`agent.local_server`); it lives as long as this process.

    Raises:
        agent.local_server.LocalServerError / agent.model_files.ModelFileError: the local model cannot start.
    """
    if start_local_llm and not llm_overrides and settings.uses_local_llm():
        from agent.local_server import ensure_local_server

        ensure_local_server(settings)
    db = Database.from_settings(settings)
    return AgentDeps(
        settings=settings,
        db=db,
        store=store if store is not None else open_store(settings),
        llms=LLMProvider(settings, llm_overrides),
        registry=default_registry(),
    )


def validate_question(question: str) -> str | None:
    """A human-readable reason why ``question`` cannot be asked, or None when it is fine."""
    text = (question or "").strip()
    if not text:
        return "Please type a question."
    if len(text) > MAX_QUESTION_CHARS:
        return f"The question is too long ({len(text)} characters; at most {MAX_QUESTION_CHARS})."
    if not any(ch.isalnum() for ch in text):
        return "The question has no words in it; please ask in plain language."
    return None


StepEvent = Callable[[dict[str, Any]], None]
"""Receives each node's trace record as the turn runs (``node`` plan | run_step | solve; see
:class:`agent.state.AgentState` ``trace``); the app shows them as live status."""


def ask(
    deps: AgentDeps,
    question: str,
    *,
    history: list[dict[str, Any]] | None = None,
    graph: Any = None,
    thread_id: str | None = None,
    on_event: StepEvent | None = None,
    run_id: str | None = None,
) -> dict[str, Any]:
    """Answer ``question``; returns the JSON-friendly outcome.

    Follow-ups: with ``thread_id`` (and a ``graph`` compiled with a checkpointer, see
    :func:`agent.memory.open_checkpointer`) the thread's stored history is used and extended; otherwise
    ``history`` (earlier turns, oldest first) is used as given. ``on_event`` is called with each node's trace
    record as soon as the node finishes (the graph is streamed). ``run_id`` (a UUID string; one is made when
    omitted) names the LangSmith root run, so feedback can be attached to it later.

    Keys: ``answer`` (text), ``status`` (ok | empty | error), ``sql``, ``columns``, ``rows``, ``truncated``,
    ``chart`` (spec or None), ``show_sql``, ``candidates`` (each candidate's strategy, SQL, status),
    ``judge`` and ``verifier`` (their records), ``llm_calls``, ``prompt_tokens``, ``completion_tokens``,
    ``latency_s`` (wall clock), ``plan`` (steps), ``plan_source`` (planner | fallback), ``plan_error``,
    ``trace`` and ``usage`` (one record per LLM call: role, label, latency_s, tokens), ``database`` (key),
    ``thread_id``, ``run_id``, ``question``. Never raises for bad input: the reason is the answer, with status
    ``error``.
    """
    started = time.perf_counter()
    run_id = run_id or str(uuid.uuid4())
    problem = validate_question(question)
    if problem:
        return {**_outcome(deps, {"answer": None}, started, error=problem), "thread_id": thread_id,
                "run_id": run_id, "question": question}
    graph = graph if graph is not None else build_graph(deps)
    state_in: dict[str, Any] = {  # None resets the accumulating fields for the new turn
        "question": question.strip(), "results": None, "trace": None, "usage": None, "step_index": 0,
    }
    config: dict[str, Any] = {"run_id": uuid.UUID(run_id), "run_name": "nl2sql turn",
                              "metadata": {"database": deps.db.key, "thread_id": thread_id}}
    if thread_id:
        config["configurable"] = {"thread_id": thread_id}
        if history is not None:
            state_in["history"] = history
    else:
        state_in["history"] = history or []
    final: dict[str, Any] = {}
    for mode, chunk in graph.stream(state_in, config=config, stream_mode=["updates", "values"]):
        if mode == "values":
            final = chunk
        elif on_event is not None:
            for update in chunk.values():
                for record in (update or {}).get("trace") or []:
                    on_event(record)
    out = _outcome(deps, final, started)
    out.update(thread_id=thread_id, run_id=run_id, question=question.strip())
    return out


def _outcome(
    deps: AgentDeps, final: dict[str, Any], started: float, error: str | None = None
) -> dict[str, Any]:
    answer = final.get("answer")
    usage = final.get("usage", [])
    plan = final.get("plan")
    last = _last_selection(final)
    return {
        "answer": answer.text if answer else error,
        "status": answer.status if answer else "error",
        "sql": answer.sql if answer else None,
        "columns": answer.columns if answer else [],
        "rows": answer.rows if answer else [],
        "truncated": answer.truncated if answer else False,
        "chart": answer.chart if answer else None,
        "show_sql": answer.show_sql if answer else False,
        "candidates": [{k: o.get(k) for k in ("index", "strategy", "status", "row_count", "sql", "error")}
                       for o in last.get("outcomes", [])],
        "judge": last.get("judge"),
        "verifier": last.get("verifier"),
        "llm_calls": len(usage),
        "prompt_tokens": sum(u.get("prompt_tokens", 0) for u in usage),
        "completion_tokens": sum(u.get("completion_tokens", 0) for u in usage),
        "latency_s": round(time.perf_counter() - started, 3),
        "plan": [s.model_dump() for s in plan.steps] if plan else [],
        "plan_source": final.get("plan_source"),
        "plan_error": final.get("plan_error"),
        "index_snapshot": next((t["index_snapshot"] for t in final.get("trace", []) if "index_snapshot" in t),
                               None),
        "trace": final.get("trace", []),
        "usage": usage,
        "database": deps.db.key,
    }


def _last_selection(final: dict[str, Any]) -> dict[str, Any]:
    """Value of the last step result that carries candidate outcomes (execute, judge or verify)."""
    plan, results = final.get("plan"), final.get("results") or {}
    if not plan:
        return {}
    for step in reversed(plan.steps):
        res = results.get(step.id)
        if res is not None and "outcomes" in res.value:
            return res.value
    return {}
