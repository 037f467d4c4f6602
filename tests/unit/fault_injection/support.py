"""Shared helpers of the fault-injection tests: settings against the fake endpoint, ask and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.outcome import Outcome
from agent.runner import ask, build_deps
from cli.main import main as cli_main
from core.settings import ROLES, Settings
from retrieval.embeddings import get_embedding_function
from retrieval.store import ChromaStore
from tests.unit.fault_injection.faults import QUESTION

ROLE_FAST: dict[str, Any] = {"timeout_s": 0.3, "max_retries": 1, "transient_retries": 2, "retry_backoff_s": 0.01,
                             "retry_max_wait_s": 0.05, "model": "fault-model"}
ENDPOINT_FAULTS = ["down", "slow", "garbage", "truncated", "badschema", "empty", "html", "reset",
                   "429", "500", "502", "503", "429-then-ok", "500-then-ok", "503-then-ok", "reset-then-ok"]


def settings_for(root: Path, db: Path, chroma: Path, model_dir: Path, urls: dict[str, str]) -> Settings:
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{db}", "state_dir": root / "state", "local_llm": {"auto_start": False},
        "retrieval": {"chroma_path": chroma, "embedding_model_dir": model_dir},
        "generation": {"profile": "small", "candidates": [{"strategy": "direct"}]},
        "answerability": {"llm_check": False}, "query_timeout_s": 2.0,
        "question_budget_s": 600.0,  # generous: a loaded machine must not spend it (the budget test sets its own)
        "plan_format": "full",  # the planner is called (the compact plan needs no call with these tools)
        **{role: {**ROLE_FAST, "base_url": urls[role]} for role in ROLES},
    }
    return Settings(**values)


def env_for(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    """The same settings as NL2SQL_* variables, for the CLI."""
    monkeypatch.setenv("NL2SQL_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("NL2SQL_STATE_DIR", str(settings.state_dir))
    monkeypatch.setenv("NL2SQL_LOCAL_LLM", '{"auto_start": false}')
    monkeypatch.setenv("NL2SQL_RETRIEVAL", json.dumps({"chroma_path": str(settings.retrieval.chroma_path),
                                                       "embedding_model_dir": str(settings.retrieval.embedding_model_dir)}))
    monkeypatch.setenv("NL2SQL_GENERATION", '{"profile": "small", "candidates": [{"strategy": "direct"}]}')
    monkeypatch.setenv("NL2SQL_ANSWERABILITY", '{"llm_check": false}')
    monkeypatch.setenv("NL2SQL_QUERY_TIMEOUT_S", "2")
    monkeypatch.setenv("NL2SQL_QUESTION_BUDGET_S", "600")
    monkeypatch.setenv("NL2SQL_PLAN_FORMAT", "full")
    for role in ROLES:
        monkeypatch.setenv(f"NL2SQL_{role.upper()}", json.dumps({**ROLE_FAST, "base_url": settings.llm(role).base_url}))


def ask_once(settings: Settings) -> Outcome:
    """``ask`` in-process on a store opened and closed here (so each test owns its Chroma client)."""
    store = ChromaStore(settings.retrieval.chroma_path, get_embedding_function(settings))
    try:
        return ask(build_deps(settings, store=store, start_local_llm=False), QUESTION)
    finally:
        store.close()


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli_main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def is_clear(text: str) -> bool:
    return bool(text.strip()) and "Traceback" not in text and len(text) < 4000


def plan_for(fault: str) -> list[str]:
    if fault.endswith("-then-ok"):
        return [fault.removesuffix("-then-ok"), "ok"]
    return [fault]

