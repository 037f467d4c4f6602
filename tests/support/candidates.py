"""Shared pieces of the candidate, judge and verifier unit tests: a two-table schema, a tool context over the
scripted model, and runners for one tool or the whole generate -> execute -> judge -> verify chain."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

from core.llm import LLMProvider, UsageLog
from core.settings import CandidateSpec, ConsistencySettings, Settings
from database.connection import Database
from tests.support.scripted_model import ScriptedChatModel
from tools.base import ToolCall, ToolContext, ToolResult
from tools.execution import ExecuteSQLTool
from tools.generation import GenerateSQLTool
from tools.judge import JudgeSQLTool
from tools.verifier import VerifySQLTool

SCHEMA = "CREATE TABLE customers (id INTEGER, name TEXT, country TEXT);\n" \
         "CREATE TABLE orders (id INTEGER, customer_id INTEGER, order_date TEXT, amount REAL);"


def make_ctx(settings: Settings, **models: ScriptedChatModel) -> ToolContext:
    """Context with two candidates (Query-Plan, then Divide-and-Conquer) unless the settings list others."""
    if not settings.generation.candidates:
        settings = settings.model_copy(update={"generation": settings.generation.model_copy(
            update={"candidates": CandidateSpec.parse_list("qp,dc"), "cascade": False})})
    return ToolContext(settings, Database.from_settings(settings), None, LLMProvider(settings, models),  # type: ignore[arg-type]
                       UsageLog())


def by_strategy(replies: dict[str, Any]) -> ScriptedChatModel:
    """A generator fake answering by the strategy named in the prompt."""
    def script(messages: list[BaseMessage]) -> Any:
        text = str(messages[-1].content)
        if "divide and conquer" in text:
            return replies["dc"]
        if "query planner" in text and "has a problem" not in text:
            return replies["qp"]
        return replies["repair"]
    return ScriptedChatModel(script=script)


def run_tool(tool: Any, ctx: ToolContext, refs: dict[str, ToolResult], text: str = "") -> ToolResult:
    call = ToolCall("How many customers are from Brazil?", "#E9", tool.name, text, refs)
    return tool.run(tool.build_args(call, ctx), ctx)


def schema_ref() -> dict[str, ToolResult]:
    return {"#E1": ToolResult(ok=True, kind="schema", text=SCHEMA)}


def run_chain(ctx: ToolContext) -> dict[str, ToolResult]:
    """generate -> execute -> judge -> verify, like a completed plan."""
    gen = run_tool(GenerateSQLTool(), ctx, schema_ref())
    exe = run_tool(ExecuteSQLTool(), ctx, {"#E2": gen})
    judged = run_tool(JudgeSQLTool(), ctx, {"#E3": exe})
    verified = run_tool(VerifySQLTool(), ctx, {"#E4": judged})
    return {"gen": gen, "exe": exe, "judge": judged, "verify": verified}


def cand(sql: str, reasoning: str = "customers filtered by country") -> dict[str, str]:
    return {"reasoning": reasoning, "sql": sql}


GOOD = "SELECT COUNT(*) FROM customers WHERE country = 'Brazil'"
ONE_VOTE = ConsistencySettings(agree=1)
"""The cascade without self-consistency: it stops at the first candidate with rows (the fallback tests)."""
