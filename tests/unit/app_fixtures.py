"""Fixtures shared by the app's AppTest modules: environment pointing at the shop database in temp dirs and a
scripted-model agent factory injected into :mod:`ui.services`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from agent.runner import build_deps
from core.settings import Settings
from retrieval.store import ChromaStore
from tests.support.scripted_model import ScriptedChatModel
from ui import services

PLAN = {"i": 0}
"""The compact plan: no table insights (only asked for when insights are enabled; otherwise the plan is
fixed and the planner is not called)."""


def sql_for(messages: list[Any]) -> dict[str, str]:
    """The scripted generator: SQL chosen by words of the question."""
    question = str(messages[-1].content)
    if "per country" in question:
        return {"reasoning": "group", "sql": "SELECT country, COUNT(*) AS n FROM customers GROUP BY country "
                                             "ORDER BY country"}
    if "Sweden" in question:
        return {"reasoning": "filter", "sql": "SELECT COUNT(*) AS n FROM customers WHERE country = 'Sweden'"}
    return {"reasoning": "filter", "sql": "SELECT COUNT(*) AS n FROM customers WHERE country = 'Brazil'"}


def fake_models() -> dict[str, ScriptedChatModel]:
    """Planner, generator and organizer replaced by scripts."""
    return {"planner": ScriptedChatModel(replies=[PLAN]), "generator": ScriptedChatModel(script=sql_for),
            "organizer": ScriptedChatModel(replies=[{"text": "The result is shown."}])}


@contextmanager
def app_environment(monkeypatch: pytest.MonkeyPatch, settings: Settings, store: ChromaStore) -> Iterator[Settings]:
    """The app's environment over ``settings`` (database, state dir, Chroma folder) with scripted models on
    ``store``; the agent and record-store caches are reset on entry and exit."""
    monkeypatch.setenv("NL2SQL_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("NL2SQL_STATE_DIR", str(settings.state_dir))
    monkeypatch.setenv("NL2SQL_RETRIEVAL__CHROMA_PATH", str(settings.retrieval.chroma_path))
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__AUTO_START", "false")
    services.set_deps_factory(lambda cfg: build_deps(cfg, llm_overrides=fake_models(), store=store))
    services.reset_agents()
    services.clear_stores()
    try:
        yield settings
    finally:
        services.set_deps_factory(None)
        services.reset_agents()
        services.clear_stores()


@pytest.fixture()
def app_env(monkeypatch: pytest.MonkeyPatch, shop_settings: Settings, shop_store: ChromaStore) -> Iterator[Settings]:
    """Environment for the app (temp state dir, shop database) and the scripted agent factory."""
    with app_environment(monkeypatch, shop_settings, shop_store) as settings:
        yield settings
