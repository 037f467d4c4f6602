"""Process-wide resources of the app (shared by all browser sessions) and each session's settings overrides.

The agent (database, vector store, LLMs, compiled graph with its checkpointer) is built once per distinct
configuration by ``st.cache_resource``; several browser sessions share it safely (the checkpointer and the
record stores lock or open a connection per operation). Tests inject a scripted-model factory with
:func:`set_deps_factory`; nothing else reads the environment: :class:`core.settings.Settings` does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from agent.context import AgentDeps
from agent.graph import AgentGraph, build_graph
from agent.memory import open_checkpointer
from agent.runner import build_deps
from agent.warmup import WarmUp, warm_up
from core.settings import CandidateSpec, Settings
from records.audit import AuditLog
from records.feedback import FeedbackStore
from records.paths import audit_path, feedback_path, runs_path
from records.runs import RunStore

DepsFactory = Callable[[Settings], AgentDeps]
_factory: list[DepsFactory] = []


def set_deps_factory(factory: DepsFactory | None) -> None:
    """Build agents with ``factory`` instead of :func:`agent.runner.build_deps` (tests: scripted models)."""
    _factory[:] = [factory] if factory else []


@dataclass(frozen=True)
class Overrides:
    """One session's choices on the settings page (None keeps the configured value).

    Fields: ``database_url`` (SQLAlchemy URL), ``use_examples`` (few-shot examples on/off), ``candidates``
    (candidate list such as ``"direct,qp"``, see :meth:`CandidateSpec.parse_list`).
    """

    database_url: str | None = None
    use_examples: bool | None = None
    candidates: str | None = None


def base_settings() -> Settings:
    """The configured settings (environment, ``nl2sql.toml``, defaults)."""
    return Settings()


def apply(settings: Settings, ov: Overrides) -> Settings:
    """``settings`` with the overrides applied.

    Raises:
        ValueError: a malformed candidate list.
    """
    out = settings.with_database(ov.database_url)
    if ov.use_examples is not None:
        out = out.model_copy(update={"retrieval": out.retrieval.model_copy(update={"use_examples": ov.use_examples})})
    if ov.candidates:
        specs = CandidateSpec.parse_list(ov.candidates)
        out = out.model_copy(update={"generation": out.generation.model_copy(update={"candidates": specs})})
    return out


def overrides() -> Overrides:
    """This browser session's overrides (the ``?database=`` query parameter seeds the database)."""
    if "overrides" not in st.session_state:
        st.session_state.overrides = Overrides(database_url=st.query_params.get("database"))
    ov: Overrides = st.session_state.overrides
    return ov


def lock_overrides() -> None:
    """Keep this browser session on the configured settings (``?database=`` and the settings page are for developers)."""
    st.session_state.overrides = Overrides()


def settings() -> Settings:
    """The settings this browser session runs with."""
    return apply(base_settings(), overrides())


@st.cache_resource(show_spinner="Starting the agent (the local model loads on first use)...")
def _load_agent(ov: Overrides) -> tuple[AgentDeps, AgentGraph]:
    cfg = apply(base_settings(), ov)
    deps = _factory[0](cfg) if _factory else build_deps(cfg)
    deps.audit = AuditLog(audit_path(cfg)).record  # SQL run for a session's user (ask(user=...)) is audited
    if not _factory:  # scripted models (tests) answer in order: a background call would race with the test
        _start_warm_up(ov, deps)
    return deps, build_graph(checkpointer=open_checkpointer(cfg))


_warm: dict[Overrides, WarmUp | None] = {}
"""Warm-up state per configuration: absent = not started, None = running, else its report."""


def _start_warm_up(ov: Overrides, deps: AgentDeps) -> None:
    """Send the database's stable prompt prefixes in a background thread (:func:`agent.warmup.warm_up`)."""
    _warm[ov] = None

    def run() -> None:
        _warm[ov] = warm_up(deps)

    threading.Thread(target=run, name="prompt-warm-up", daemon=True).start()


def warm_up_running() -> bool:
    """True while the prompt-cache warm-up of this browser session's configuration runs."""
    ov = overrides()
    return ov in _warm and _warm[ov] is None


def warm_up_status() -> str | None:
    """One line on the prompt-cache warm-up of this browser session's configuration (None when not started)."""
    ov = overrides()
    if ov not in _warm:
        return None
    report = _warm[ov]
    if report is None:
        return "Preparing the model for this database (reading the schema prompt once)..."
    if report.ok:
        how = " (restored from the saved prompt cache)" if report.sources.get("generator") == "restored" else ""
        return f"Model ready for this database (prompts prepared in {sum(report.seconds.values()):.0f} s{how})."
    return f"Model warm-up skipped: {'; '.join(report.errors.values())[:200]}"


def load_agent() -> tuple[AgentDeps, AgentGraph]:
    """Dependencies and the compiled graph (with the thread checkpointer) for the settings of this browser tab.

    Raises:
        Whatever :func:`agent.runner.build_deps` raises (model files, local server, database, embeddings).
    """
    return _load_agent(overrides())


def reset_agents() -> None:
    """Drop every cached agent (after an index rebuild or a settings change that needs a fresh start)."""
    _load_agent.clear()


def clear_stores() -> None:
    """Forget the cached record stores (tests switch state folders)."""
    _stores.clear()


@st.cache_resource
def _stores(state_dir: str) -> tuple[RunStore, FeedbackStore]:
    cfg = base_settings().model_copy(update={"state_dir": state_dir})
    return RunStore(runs_path(cfg)), FeedbackStore(feedback_path(cfg))


def run_store() -> RunStore:
    """Conversations and traces of this deployment."""
    return _stores(str(settings().state_dir))[0]


def feedback_store() -> FeedbackStore:
    """Feedback records of this deployment."""
    return _stores(str(settings().state_dir))[1]
