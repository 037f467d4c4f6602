"""Approved-answer reuse (tools.reuse) through the generation step, with a scripted fake model."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

from core.llm import LLMProvider, UsageLog
from core.settings import CandidateSpec, Settings
from database.connection import Database
from tests.support.scripted_model import ScriptedChatModel
from tools.base import ToolCall, ToolContext, ToolResult
from tools.generation import GenerateSQLTool
from tools.reuse import literals, literals_agree

SCHEMA = "CREATE TABLE customers (id INTEGER, name TEXT, country TEXT);"
APPROVED = "SELECT COUNT(*) FROM customers WHERE country = 'Brazil'"
FRESH = "SELECT COUNT(id) FROM customers WHERE country = 'Brazil'"


def _model(same: bool) -> ScriptedChatModel:
    def script(messages: list[BaseMessage]) -> Any:
        text = str(messages[-1].content)
        if "Approved question:" in text:
            return {"same": same}
        return {"reasoning": "count", "sql": FRESH}
    return ScriptedChatModel(script=script)


def _run(settings: Settings, model: ScriptedChatModel, question: str, source: str = "feedback",
         score: float = 0.8, matches: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    settings = settings.model_copy(update={"generation": settings.generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct"), "cascade": True, "reuse_approved": True})})
    ctx = ToolContext(settings, Database.from_settings(settings), None,  # type: ignore[arg-type]
                      LLMProvider(settings, {"generator": model}), UsageLog())
    examples = ToolResult(ok=True, kind="examples", text="", value={"examples": [
        {"question": "How many customers are from Brazil?", "sql": APPROVED, "score": score, "source": source}]})
    refs = {"#E1": ToolResult(ok=True, kind="schema", text=SCHEMA), "#E2": examples,
            "#E3": ToolResult(ok=True, kind="values", text="", value={"matches": matches or []})}
    call = ToolCall(question, "#E4", "generate_sql", "", refs)
    tool = GenerateSQLTool()
    return tool.run(tool.build_args(call, ctx), ctx).value["candidates"]


def test_a_paraphrase_of_an_approved_question_gets_the_approved_sql(shop_settings: Settings) -> None:
    model = _model(same=True)
    made = _run(shop_settings, model, "Number of Brazilian customers")
    assert [(c["strategy"], c["sql"]) for c in made] == [("approved", APPROVED)]
    assert len(model.prompts) == 1  # the check only: no SQL was written


def test_the_model_check_can_say_no(shop_settings: Settings) -> None:
    made = _run(shop_settings, _model(same=False), "Number of customers outside Brazil")
    assert [c["strategy"] for c in made] == ["direct"] and made[0]["sql"] == FRESH


def test_near_misses_stop_before_the_model_check(shop_settings: Settings) -> None:
    chile = {"mention": "Chile", "value": "Chile", "table": "customers", "column": "country", "id": None,
             "score": 100.0}
    for question, matches in (("Which customers are from Brazil?", None),  # a list, not a count
                              ("How many customers are from Chile?", [chile])):  # another entity
        model = _model(same=True)
        assert [c["strategy"] for c in _run(shop_settings, model, question, matches=matches)] == ["direct"]
        assert all("Approved question:" not in str(p[-1].content) for p in model.prompts)


def test_reuse_is_on_by_default(shop_settings: Settings) -> None:
    assert shop_settings.generation.reuse_approved


def test_no_check_without_an_approved_similar_example_or_with_other_literals(shop_settings: Settings) -> None:
    for kwargs in ({"source": "file"}, {"score": 0.2}):
        model = _model(same=True)
        made = _run(shop_settings, model, "Number of Brazilian customers", **kwargs)
        assert [c["strategy"] for c in made] == ["direct"]
        assert all("Approved question:" not in str(p[-1].content) for p in model.prompts)
    model = _model(same=True)
    assert [c["strategy"] for c in _run(shop_settings, model, "Top 5 customers from Brazil")] == ["direct"]


def test_reused_sql_without_rows_falls_back_to_fresh_candidates(shop_settings: Settings) -> None:
    assert _run(shop_settings, _model(same=True), "Number of Brazilian customers",
                source="file+feedback")[0]["strategy"] == "approved"  # a merged source counts as approved
    empty = _run_with_sql(shop_settings, "SELECT id FROM customers WHERE country = 'Atlantis'")
    assert [c["strategy"] for c in empty] == ["approved", "direct"] and empty[0]["error"] == "no rows"


def _run_with_sql(settings: Settings, sql: str) -> list[dict[str, Any]]:
    settings = settings.model_copy(update={"generation": settings.generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct"), "cascade": True, "reuse_approved": True})})
    ctx = ToolContext(settings, Database.from_settings(settings), None,  # type: ignore[arg-type]
                      LLMProvider(settings, {"generator": _model(same=True)}), UsageLog())
    examples = ToolResult(ok=True, kind="examples", text="", value={"examples": [
        {"question": "Customers in Atlantis?", "sql": sql, "score": 0.9, "source": "feedback"}]})
    call = ToolCall("Which customers are in Atlantis?", "#E3", "generate_sql", "",
                    {"#E1": ToolResult(ok=True, kind="schema", text=SCHEMA), "#E2": examples})
    tool = GenerateSQLTool()
    return tool.run(tool.build_args(call, ctx), ctx).value["candidates"]


def test_literals_must_agree() -> None:
    assert literals("USD/CHF on 2025-06-30") == {"USD", "CHF", "2025", "6", "30"}
    assert literals("30 June 2025") == {"30", "6", "2025"}
    approved_q, approved_sql = "What was the USD/CHF rate on 2025-06-30?", (
        "SELECT FX_RT FROM FX_RT_D WHERE BASE_CCY = 'USD' AND QUOTE_CCY = 'CHF' AND RT_DT = '2025-06-30'")
    assert literals_agree("Dollar to Swiss franc rate on 30 June 2025", approved_q, approved_sql)
    assert literals_agree("USD CHF fx rate at 2025-06-30", approved_q, approved_sql)
    assert not literals_agree("What was the USD/JPY rate on 2025-06-30?", approved_q, approved_sql)
    assert not literals_agree("What was the USD/CHF rate on 2025-07-31?", approved_q, approved_sql)
    assert not literals_agree("What is the latest USD/CHF rate?", approved_q, approved_sql)  # the date dropped
