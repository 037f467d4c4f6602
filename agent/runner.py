"""Wiring and the one entry point used by the CLI, the app and the evaluation: :func:`ask`."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.types import StreamMode

from agent.context import AgentDeps
from agent.graph import AgentGraph, build_graph
from agent.outcome import Outcome
from agent.state import AgentState
from core.errors import classify
from core.llm import LLMProvider, question_deadline
from core.settings import Settings
from database.connection import Database
from retrieval.documents import documented_description
from retrieval.hybrid import load_catalog
from retrieval.store import ChromaStore, VectorStore
from retrieval.store_factory import open_store as open_settings_store
from tools.audit import audit_scope
from tools.example_glossary import guessed_without_examples
from tools.join_links import unstated_joins
from tools.number_ranges import range_conflicts
from tools.opaque_reads import unread_terms
from tools.registry import default_registry
from tools.text_order import text_order_notes

MAX_QUESTION_CHARS = 2000


def open_store(settings: Settings) -> ChromaStore:
    """The Chroma store of ``settings`` with the offline embeddings (:func:`retrieval.store_factory.open_store`).

    The server at ``retrieval.chroma_url`` when set, else the folder ``retrieval.chroma_path``.

    Raises:
        retrieval.store_factory.ChromaServerError: the configured server URL is malformed or does not answer.
    """
    return open_settings_store(settings)


def build_deps(
    settings: Settings,
    *,
    llm_overrides: dict[str, BaseChatModel] | None = None,
    store: VectorStore | None = None,
    start_local_llm: bool = True,
) -> AgentDeps:
    """Create the database, vector store, LLMs and tools for ``settings``.

    When a role points at the embedded local endpoint and nothing answers there, the local llama.cpp server
    is started (see :mod:`core.local_server`); it lives as long as this process.

    Raises:
        core.local_server.LocalServerError / core.model_files.ModelFileError: the local model cannot start.
    """
    if start_local_llm and not llm_overrides and settings.uses_local_llm():
        from core.local_server import ensure_local_server

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
    graph: AgentGraph | None = None,
    thread_id: str | None = None,
    on_event: StepEvent | None = None,
    run_id: str | None = None,
    user: str | None = None,
) -> Outcome:
    """Answer ``question`` with the agent; returns its :class:`~agent.outcome.Outcome`.

    Follow-ups: with ``thread_id`` (and a ``graph`` compiled with a checkpointer, see
    :func:`agent.memory.open_checkpointer`) the thread's stored history is used and extended; otherwise
    ``history`` (earlier turns, oldest first) is used as given. ``deps`` reach the nodes as the graph's
    runtime context. ``on_event`` is called with each node's trace record as soon as the node finishes (the
    graph is streamed). ``run_id`` (a UUID string; one is made when omitted) names the LangSmith root run, so
    feedback can be attached to it later. ``user`` (default: ``settings.users.default_user``) is who the SQL
    executed for this question is audited as, when ``deps.audit`` is set (:mod:`tools.audit`). Never raises for
    bad input: the reason is the answer, with status ``error``.
    """
    started = time.perf_counter()
    run_id = run_id or str(uuid.uuid4())
    problem = validate_question(question)
    if problem:
        return Outcome.failure(problem, question=question, database=deps.db.key, thread_id=thread_id,
                               run_id=run_id, started=started)
    graph = graph if graph is not None else build_graph()
    state_in: dict[str, Any] = {  # None resets the accumulating fields for the new turn
        "question": question.strip(), "results": None, "trace": None, "usage": None, "step_index": 0,
    }
    config: RunnableConfig = {"run_id": uuid.UUID(run_id), "run_name": "nl2sql turn",
                              "metadata": {"database": deps.db.key, "thread_id": thread_id}}
    if thread_id:
        config["configurable"] = {"thread_id": thread_id}
        if history is not None:
            state_in["history"] = history
    else:
        state_in["history"] = history or []
    final: AgentState = {}
    modes: list[StreamMode] = ["updates", "values"]
    try:
        with (question_deadline(deps.settings.question_budget_s),  # LLM retries stop at the question's budget
              audit_scope(deps.audit, user or deps.settings.users.default_user)):
            for mode, chunk in graph.stream(state_in, config=config, context=deps, stream_mode=modes):
                if mode == "values":
                    final = cast(AgentState, chunk)
                elif on_event is not None:
                    updates = cast(dict[str, dict[str, Any] | None], chunk)
                    for update in updates.values():
                        for record in (update or {}).get("trace") or []:
                            on_event(record)
    except Exception as exc:  # e.g. the checkpoint store is locked or the disk is full: the cause is the answer
        known = classify(exc)
        reason = str(known) if known else f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
        return Outcome.failure(f"The question could not be answered: {reason}", question=question,
                               database=deps.db.key, thread_id=thread_id, run_id=run_id, started=started)
    answer = final.get("answer")
    sql = answer.sql if answer is not None else None
    return Outcome.from_state(final, database=deps.db.key, started=started, question=question.strip(),
                              thread_id=thread_id, run_id=run_id, dialect=deps.db.dialect,
                              descriptions=table_descriptions(deps) if sql else None,
                              guessed=guessed_without_examples(deps.db, deps.store, deps.settings.knowledge.use_drafts, sql)
                              if sql else None,
                              unread=unread_terms(deps.db, deps.settings.knowledge.use_drafts, question, sql)
                              if sql else None,
                              ranges=answer_range_conflicts(deps, sql),
                              text_order=text_order_notes(deps.db, sql) if sql else None,
                              unstated=unstated_joins(deps.db, sql) if sql else None)


def answer_range_conflicts(deps: AgentDeps, sql: str | None) -> list[str]:
    """The stored-range conflicts of the answer's SQL, one line each (tools.number_ranges); [] when off or none.

    Off with ``generation.range_check``. A failing check gives [] (it is a courtesy to the analyst).
    """
    if not sql or not deps.settings.generation.range_check:
        return []
    try:
        return list(dict.fromkeys(c.describe() for c in range_conflicts(deps.db, sql)))
    except Exception:  # noqa: BLE001 - the answer stands without the check
        return []


def table_descriptions(deps: AgentDeps) -> dict[str, str]:
    """Short descriptions of the documented tables of ``deps.db`` by name, from its schema index (cached).

    Shown next to the table names of an answer's account; {} without an index or when it cannot be read.
    """
    try:
        catalog = load_catalog(deps.store, deps.db.key)
    except Exception:  # the account is a courtesy: a store problem must not fail an answered question
        return {}
    docs = catalog.descriptions if catalog is not None else {}
    return {name: text for name, doc in docs.items() if (text := documented_description(doc))}
