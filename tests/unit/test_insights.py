"""Table insights tool: one generator call, capped structured output, grounding, failures as values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.llm import LLMProvider
from core.settings import Settings
from database.connection import Database
from retrieval.embeddings import OfflineMiniLM
from retrieval.store import ChromaStore
from tests.support.scripted_model import ScriptedChatModel
from tools.base import ToolCall, ToolContext, ToolResult
from tools.insights import TableInsights, TableInsightsTool, render
from tools.registry import ToolRegistry

SCHEMA = ToolResult(
    ok=True, kind="schema",
    text="CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, country TEXT);\n"
         "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), amount REAL);",
    value={"tables": ["customers", "orders"]},
)
VALUES = ToolResult(ok=True, kind="values", text="\"Brazil\" -> customers.country = 'Brazil'",
                    value={"matches": [{"value": "Brazil"}]})
REPLY = {
    "relevant_tables": ["Customers", "orders", "ghosts"],
    "key_columns": ["orders.amount", "customers.country", "ghosts.boo"],
    "join_paths": ["orders.customer_id = customers.id"],
    "filters": ["customers.country = 'Brazil'"],
    "strategy": "Sum order amounts of Brazilian customers.",
    "clarified_question": "Total order amount of customers whose country is Brazil.",
}


def _run(shop_settings: Settings, store: ChromaStore, reply: Any, refs: dict[str, ToolResult]
         ) -> tuple[ToolResult, ScriptedChatModel, ToolContext]:
    fake = ScriptedChatModel(replies=[reply])
    ctx = ToolContext(settings=shop_settings, db=Database.from_settings(shop_settings), store=store,
                      llms=LLMProvider(shop_settings, overrides={"generator": fake}))
    call = ToolCall(question="How much did Brazilian customers spend?", step_id="#E3", tool="table_insights",
                    input="How much did Brazilian customers spend? #E1 #E2", refs=refs)
    return ToolRegistry([TableInsightsTool()]).run(call, ctx), fake, ctx


def test_one_generator_call_grounded_and_rendered(shop_settings: Settings, tmp_path: Path,
                                                  embedding_function: OfflineMiniLM) -> None:
    store = ChromaStore(tmp_path / "chroma", embedding_function)
    result, fake, ctx = _run(shop_settings, store, REPLY, {"#E1": SCHEMA, "#E2": VALUES})
    assert result.ok and result.kind == "insights"
    assert result.value["relevant_tables"] == ["customers", "orders"]  # canonical spelling, invented one dropped
    assert result.value["dropped_tables"] == ["ghosts"]
    assert result.value["key_columns"] == ["orders.amount", "customers.country"]
    assert result.text.splitlines() == [
        "Tables: customers, orders",
        "Key columns: orders.amount, customers.country",
        "Joins: orders.customer_id = customers.id",
        "Filters: customers.country = 'Brazil'",
        "Strategy: Sum order amounts of Brazilian customers.",
        "Restated question: Total order amount of customers whose country is Brazil.",
    ]
    prompt = "\n".join(str(m.content) for m in fake.prompts[0])
    assert "CREATE TABLE orders" in prompt and "\"Brazil\" -> customers.country = 'Brazil'" in prompt
    assert "How much did Brazilian customers spend?" in prompt and "sqlite" in prompt
    assert [c.role for c in ctx.usage.calls] == ["generator"]


def test_output_schema_is_capped() -> None:
    schema = TableInsights.model_json_schema()
    props = schema["properties"]
    assert props["strategy"]["maxLength"] <= 200 and props["clarified_question"]["maxLength"] <= 200
    for name in ("relevant_tables", "key_columns", "join_paths", "filters"):
        assert props[name]["maxItems"] <= 8 and props[name]["items"]["maxLength"] <= 120


def test_empty_parts_are_omitted() -> None:
    text = render(TableInsights(relevant_tables=["t"], key_columns=[], join_paths=[], filters=[],
                                strategy="Count rows.", clarified_question=""))
    assert text == "Tables: t\nStrategy: Count rows."


def test_failures_come_back_as_values(shop_settings: Settings, tmp_path: Path,
                                      embedding_function: OfflineMiniLM) -> None:
    store = ChromaStore(tmp_path / "chroma", embedding_function)
    no_schema, fake, _ctx = _run(shop_settings, store, REPLY, {"#E2": VALUES})
    assert not no_schema.ok and "needs the result of a successful retrieve_schema" in (no_schema.error or "")
    assert fake.prompts == []
    too_long = {**REPLY, "strategy": "x" * 500}
    failed, fake, ctx = _run(shop_settings, store, too_long, {"#E1": SCHEMA})
    assert not failed.ok and failed.kind == "error" and "generator call failed" in (failed.error or "")
    assert len(ctx.usage.calls) == 2 and not any(c.ok for c in ctx.usage.calls)  # one try + one retry
