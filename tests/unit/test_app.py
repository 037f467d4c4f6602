"""The Streamlit chat page (Streamlit's AppTest) with scripted fake LLMs, real SQLite and real Chroma."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import agent.runner
from agent.configuration import PROJECT_ROOT, Settings
from agent.testing import ScriptedChatModel
from retrieval.store import ChromaStore

PLAN = {"steps": [
    {"id": "#E1", "tool": "retrieve_schema", "input": "customers"},
    {"id": "#E2", "tool": "generate_sql", "input": "#E1"},
    {"id": "#E3", "tool": "execute_sql", "input": "#E2"},
]}


@pytest.fixture()
def app(monkeypatch: pytest.MonkeyPatch, shop_settings: Settings, shop_store: ChromaStore) -> AppTest:
    real_build = agent.runner.build_deps

    def fake_build(settings: Settings, **_: Any) -> Any:
        def sql_for(messages: list[Any]) -> dict[str, str]:
            question = str(messages[-1].content)
            if "per country" in question:
                return {"reasoning": "plan", "sql": "SELECT country, COUNT(*) AS n FROM customers GROUP BY country ORDER BY country"}
            return {"reasoning": "plan", "sql": "SELECT COUNT(*) AS n FROM customers WHERE country = 'Brazil'"}

        models = {"planner": ScriptedChatModel(replies=[PLAN]), "generator": ScriptedChatModel(script=sql_for),
                  "organizer": ScriptedChatModel(replies=[{"text": "The result is shown."}])}
        return real_build(shop_settings, llm_overrides=models, store=shop_store)  # type: ignore[arg-type]

    monkeypatch.setattr(agent.runner, "build_deps", fake_build)
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60)
    at.run()
    return at


def test_chat_shows_answer_table_and_sql_and_keeps_history(app: AppTest) -> None:
    assert not app.exception
    app.chat_input[0].set_value("How many customers are from Brazil?").run()
    assert not app.exception
    assert any("The result is shown." in m.value for m in app.markdown)
    assert any("COUNT(*)" in c.value for c in app.code)
    app.chat_input[0].set_value("Customers per country").run()
    tables = [d.value for d in app.dataframe if list(d.value.columns) == ["country", "n"]]
    assert len(tables) == 1  # the result table (the other frames list the SQL candidates)
    frame = tables[0]
    assert list(frame.columns) == ["country", "n"] and frame["n"].tolist() == [2, 1]
    questions = [m.value for m in app.markdown if m.value.startswith(("How many", "Customers per"))]
    assert questions == ["How many customers are from Brazil?", "Customers per country"]


def test_new_conversation_clears_history(app: AppTest) -> None:
    app.chat_input[0].set_value("How many customers are from Brazil?").run()
    app.sidebar.button[0].click().run()
    assert app.session_state.turns == []


def test_bad_question_is_explained(app: AppTest, tmp_path: Path) -> None:
    app.chat_input[0].set_value("?!?").run()
    assert not app.exception
    assert any("plain language" in e.value for e in app.error)


def test_chart_is_drawn_from_a_typed_spec(app: AppTest) -> None:
    app.chat_input[0].set_value("Plot customers per country").run()
    assert not app.exception
    charts = app.get("plotly_chart")
    assert len(charts) == 1
    assert any("see the chart" in m.value for m in app.markdown)
