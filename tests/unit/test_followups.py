"""Follow-up questions: per-thread state in a LangGraph checkpointer (SQLite or PostgreSQL), history in the prompts."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

from agent.graph import build_graph
from agent.memory import open_checkpointer, thread_history
from agent.runner import ask, build_deps
from core.settings import Settings
from retrieval.store import ChromaStore
from tests.support.scripted_model import ScriptedChatModel
from tests.unit.state_fixtures import pg_state_db_fixture, state_url_fixture  # noqa: F401 (fixtures)

PLAN = {"i": 0}
"""The compact plan: no table insights (only asked for when insights are enabled; otherwise the plan is
fixed and the planner is not called)."""


def _sql_for(messages: list[BaseMessage]) -> dict[str, str]:
    question = str(messages[-1].content).split("Question: ")[-1]
    if "plot" in question:
        sql = "SELECT country, COUNT(*) AS n FROM customers GROUP BY country"
    else:
        country = "Sweden" if "Sweden" in question else "Brazil"
        sql = f"SELECT COUNT(*) AS n FROM customers WHERE country = '{country}'"
    return {"reasoning": "count customers by country", "sql": sql}


def _models() -> dict[str, Any]:
    return {"planner": ScriptedChatModel(replies=[PLAN]), "generator": ScriptedChatModel(script=_sql_for),
            "organizer": ScriptedChatModel(replies=[{"text": "The count is in the table."}]),
            "judge": ScriptedChatModel(replies=[RuntimeError("not needed")])}


def test_follow_up_sees_the_thread_history(shop_settings: Settings, shop_store: ChromaStore, state_url: str) -> None:
    shop_settings = shop_settings.model_copy(update={"state_url": state_url})
    models = _models()
    deps = build_deps(shop_settings, llm_overrides=models, store=shop_store)
    graph = build_graph(checkpointer=open_checkpointer(shop_settings))
    first = ask(deps, "How many customers are from Brazil?", graph=graph, thread_id="t1")
    second = ask(deps, "and for Sweden?", graph=graph, thread_id="t1")
    assert first.rows == [[2]] and second.rows == [[1]]
    generator_prompt = str(models["generator"].prompts[-1][-1].content)
    assert "WHERE country = 'Brazil'" in generator_prompt  # earlier SQL shown to the SQL writer
    assert second.llm_calls == 2  # the direct and the plain candidate of this turn only: per-turn logs reset
    assert len(second.trace) == len(first.trace)

    other = ask(deps, "How many customers are from Sweden?", graph=graph, thread_id="t2")
    assert "Brazil" not in str(models["generator"].prompts[-1][-1].content)  # threads are separate
    assert other.status == "ok"

    reopened = build_graph(checkpointer=open_checkpointer(shop_settings))  # e.g. a new process
    history = thread_history(reopened, "t1")
    assert [t["question"] for t in history] == ["How many customers are from Brazil?", "and for Sweden?"]
    assert history[1]["sql"].endswith("'Sweden'") and history[1]["row_count"] == 1
    assert thread_history(reopened, "new-thread") == []


def test_plot_that_adds_a_chart_step(shop_settings: Settings, shop_store: ChromaStore) -> None:
    models = _models()
    models["organizer"] = ScriptedChatModel(replies=[{"kind": "bar", "x": "country", "y": "n", "title": "By country"}])
    deps = build_deps(shop_settings, llm_overrides=models, store=shop_store)
    out = ask(deps, "plot that by country", history=[{"question": "How many customers?", "sql": "SELECT 3",
                                                      "columns": ["n"], "row_count": 1}])
    assert out.plan[-1]["tool"] == "build_chart"
    assert out.chart == {"kind": "bar", "x": "country", "y": "n", "color": None, "facet": None,
                            "title": "By country"}
    assert "see the chart" in out.answer
