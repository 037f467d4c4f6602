"""SQL candidates with scripted fake LLMs and a real SQLite file: the cascade, repairs, fallbacks, concurrency,
budgets and the joins and empty answers a candidate keeps (the judge and verifier: test_judge_verifier.py)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from core.llm import LLMProvider, UsageLog
from core.settings import CandidateSpec, Settings
from database.connection import Database
from tests.support.candidates import (
    GOOD,
    ONE_VOTE,
    SCHEMA,
    by_strategy,
    cand,
    make_ctx,
    run_tool,
    schema_ref,
)
from tests.support.scripted_model import ScriptedChatModel
from tools.base import ToolCall, ToolContext, ToolResult
from tools.generation import GenerateSQLTool


def test_profiles_choose_candidates_per_endpoint() -> None:
    local = Settings()
    assert [c.strategy for c in local.candidate_specs()] == ["whole_schema", "direct", "plain", "query_plan",
                                                             "divide_and_conquer"]
    assert local.generation.consistency.agree == 2
    remote = Settings(generator={"base_url": "https://api.example.com/v1", "model": "gpt-4.1"})
    assert len(remote.candidate_specs()) == 4
    explicit = Settings(generation={"candidates": CandidateSpec.parse_list("dc:0.7,direct")})
    assert [(c.strategy, c.temperature) for c in explicit.candidate_specs()] == [
        ("divide_and_conquer", 0.7), ("direct", 0.0)]
    with pytest.raises(ValueError):
        CandidateSpec.parse_list("cot")
    assert not local.parallel_candidates() and remote.parallel_candidates()
    assert local.cascade_candidates() and not remote.cascade_candidates()


def test_the_generator_prompt_names_no_business_domain() -> None:
    from tools.candidate import system_prompt
    text = system_prompt("sqlite", SCHEMA)
    assert "You are an expert sqlite SQL writer. Queries must answer" in text
    assert not any(word in text.lower() for word in ("financ", "bank", "market", "trading"))


def test_cascade_stops_at_the_first_candidate_with_rows(shop_settings: Settings) -> None:
    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.with_rewrites(
        drop_unasked_filters=False).model_copy(  # 'Atlantis' is not in the question: tested in test_literals
        update={"candidates": CandidateSpec.parse_list("direct,qp,dc"), "cascade": True, "consistency": ONE_VOTE})})
    gen = by_strategy({"dc": cand(GOOD), "qp": cand(GOOD), "repair": cand(GOOD)})  # direct -> "repair" reply
    res = run_tool(GenerateSQLTool(), make_ctx(settings, generator=gen), schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct"] and len(gen.prompts) == 1
    failing = by_strategy({"dc": cand(GOOD), "qp": cand("SELECT 1 FROM customers WHERE 0"),
                            "repair": cand("SELECT id FROM customers WHERE country = 'Atlantis'")})
    res = run_tool(GenerateSQLTool(), make_ctx(settings, generator=failing), schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct", "query_plan", "divide_and_conquer"]
    assert res.value["candidates"][2]["sql"] == GOOD  # the first with rows ends the cascade


def _error_then_repair(repair_sql: str) -> ScriptedChatModel:
    """The direct candidate reads a column that does not exist; a repair prompt gets ``repair_sql``."""
    def script(messages: list[BaseMessage]) -> Any:
        text = str(messages[-1].content)
        if "has a problem" in text:
            return cand(repair_sql)
        if "divide and conquer" in text or "query planner" in text:
            return cand(GOOD)
        return cand("SELECT nope FROM customers")
    return ScriptedChatModel(script=script)


def test_cascade_repairs_a_database_error_instead_of_starting_afresh(shop_settings: Settings) -> None:
    gen_settings = shop_settings.generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,qp,dc"), "cascade": True, "consistency": ONE_VOTE})
    settings = shop_settings.model_copy(update={"generation": gen_settings})
    gen = _error_then_repair(GOOD)
    res = run_tool(GenerateSQLTool(), make_ctx(settings, generator=gen), schema_ref())
    made = res.value["candidates"]
    assert [(c["index"], c["strategy"]) for c in made] == [(1, "direct"), (2, "repair")]
    assert made[1]["sql"] == GOOD and len(gen.prompts) == 2
    repair_prompt = str(gen.prompts[1][-1].content)
    assert "SELECT nope FROM customers" in repair_prompt and "no such column" in repair_prompt
    assert "columns of customers: id, name, country" in repair_prompt  # a probe of the failing query's table
    # a repair that fails again is followed by a fresh candidate, which never saw the failed query
    still = _error_then_repair("SELECT nope2 FROM customers")
    res = run_tool(GenerateSQLTool(), make_ctx(settings, generator=still), schema_ref())
    made = res.value["candidates"]  # the repair took a turn, not a strategy: Query-Plan is still written
    assert [(c["index"], c["strategy"]) for c in made] == [(1, "direct"), (2, "repair"), (3, "query_plan")]
    assert "SELECT nope" not in str(still.prompts[2][-1].content)
    # two repairs in a row allowed: the third slot repairs the repair
    twice = settings.model_copy(update={"generation": gen_settings.model_copy(update={"repairs_in_a_row": 2})})
    res = run_tool(GenerateSQLTool(), make_ctx(twice, generator=_error_then_repair("SELECT nope2 FROM customers")),
               schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct", "repair", "repair"]
    # switched off: the fresh Query-Plan candidate follows, as before
    off = shop_settings.model_copy(update={"generation": gen_settings.model_copy(update={"repair_errors": False})})
    res = run_tool(GenerateSQLTool(), make_ctx(off, generator=_error_then_repair(GOOD)), schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct", "query_plan"]


def test_cascade_fallback_after_an_empty_result_drops_the_value_hints(shop_settings: Settings) -> None:
    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,qp,dc"), "cascade": True, "consistency": ONE_VOTE})})
    wrong = "SELECT id FROM customers WHERE name = 'Country Feedback'"  # linked to a common word: empty
    gen = by_strategy({"dc": cand(GOOD), "qp": cand(GOOD), "repair": cand(wrong)})
    values = ToolResult(ok=True, kind="values", text="", value={"matches": [{
        "mention": "country", "value": "Country Feedback", "table": "customers", "column": "name", "id": None,
        "score": 96.0}]})
    res = run_tool(GenerateSQLTool(), make_ctx(settings, generator=gen), {**schema_ref(), "#E2": values})
    made = res.value["candidates"]
    assert [(c["strategy"], c["value_hints"]) for c in made] == [("direct", True), ("query_plan", False)]
    assert "Country Feedback" in str(gen.prompts[0][-1].content)
    assert "Country Feedback" not in str(gen.prompts[1][-1].content)
    assert made[1]["sql"] == GOOD


def test_candidates_run_concurrently_when_enabled(shop_settings: Settings) -> None:
    barrier = threading.Barrier(2, timeout=10)  # both calls must be in flight at once to pass

    def script(messages: list[BaseMessage]) -> Any:
        barrier.wait()
        return cand(GOOD)

    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.model_copy(
        update={"parallel": True})})
    ctx = make_ctx(settings, generator=ScriptedChatModel(script=script))
    res = run_tool(GenerateSQLTool(), ctx, schema_ref())
    assert res.ok and not any(c["error"] for c in res.value["candidates"])


def test_candidates_are_reasoned_guarded_and_concurrent(shop_settings: Settings) -> None:
    gen = by_strategy({"dc": cand(GOOD), "qp": cand("SELECT 1; DROP TABLE customers"), "repair": cand(GOOD)})
    ctx = make_ctx(shop_settings, generator=gen)
    res = run_tool(GenerateSQLTool(), ctx, schema_ref())
    assert res.ok and res.value["sql"] == GOOD
    by_name = {c["strategy"]: c for c in res.value["candidates"]}
    assert by_name["query_plan"]["error"]  # two statements: refused by the guard, kept with its error
    assert by_name["divide_and_conquer"]["reasoning"] == "customers filtered by country"
    labels = sorted(c.label or "" for c in ctx.usage.calls)
    assert labels == ["candidate 1 query_plan", "candidate 2 divide_and_conquer"]
    prompts = [str(p[0].content) for p in gen.prompts]
    assert prompts[0] == prompts[1] and SCHEMA in prompts[0]  # one shared system prefix (prompt cache)


@pytest.mark.parametrize("bad", ["not json {", cand(""), {"reasoning": "x"}])
def test_malformed_output_is_recorded_not_raised(shop_settings: Settings, bad: Any) -> None:
    ctx = make_ctx(shop_settings, generator=by_strategy({"dc": bad, "qp": bad, "repair": bad}))
    res = run_tool(GenerateSQLTool(), ctx, schema_ref())
    assert not res.ok and "candidate 1" in (res.error or "")
    assert all(c["error"] for c in res.value["candidates"])


def test_no_fallback_candidate_starts_once_the_question_budget_is_spent(shop_settings: Settings,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import core.llm_retry as clock

    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.with_rewrites(
        drop_unasked_filters=False).model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,qp,dc"), "cascade": True, "consistency": ONE_VOTE, "fallback_budget_s": 30.0})})
    empty = "SELECT id FROM customers WHERE country = 'Atlantis'"
    failing = by_strategy({"dc": cand(GOOD), "qp": cand(GOOD), "repair": cand(empty)})
    monkeypatch.setattr(clock, "question_elapsed", lambda: 31.0)  # the first candidate took the whole budget
    res = run_tool(GenerateSQLTool(), make_ctx(settings, generator=failing), schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct"] and len(failing.prompts) == 1
    monkeypatch.setattr(clock, "question_elapsed", lambda: 29.0)
    res = run_tool(GenerateSQLTool(), make_ctx(settings, generator=failing), schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct", "query_plan"]
    monkeypatch.setattr(clock, "question_elapsed", lambda: None)  # outside a question: no budget applies
    assert clock.fallback_allowed(30.0) and clock.fallback_allowed(None)
    with clock.question_deadline(None):
        monkeypatch.undo()
        assert clock.question_elapsed() is not None and clock.fallback_allowed(1e9)


def test_candidate_keeps_a_join_that_acts_as_an_existence_filter(shop_settings: Settings, shop_store: Any) -> None:
    """Customers joined to orders are the customers with orders: asked for by the question, the join stays."""
    joined = ("SELECT customers.name FROM customers JOIN orders ON customers.id = orders.customer_id "
              "WHERE customers.country = 'Brazil'")
    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct"), "cascade": True, "consistency": ONE_VOTE})})
    ctx = ToolContext(settings, Database.from_settings(settings), shop_store,
                      LLMProvider(settings, {"generator": by_strategy({"repair": cand(joined)})}), UsageLog())
    call = ToolCall("Names of the customers from Brazil who placed orders", "#E2", "generate_sql", "",
                    schema_ref())
    res = GenerateSQLTool().run(GenerateSQLTool().build_args(call, ctx), ctx)
    assert res.value["candidates"][0]["sql"] == joined
    # a column qualified with the joined table is re-pointed; the join stays, and the trace says what changed
    misqualified = joined.replace("SELECT customers.name", "SELECT orders.name")
    ctx = ToolContext(settings, ctx.db, shop_store,
                      LLMProvider(settings, {"generator": by_strategy({"repair": cand(misqualified)})}), UsageLog())
    first = GenerateSQLTool().run(GenerateSQLTool().build_args(call, ctx), ctx).value["candidates"][0]
    assert first["sql"] == joined
    assert first["rewrites"] == [{"step": "fix_qualifiers", "phase": "candidate", "fired": True,
                                  "before": misqualified, "after": joined}]


def test_most_similar_example_sits_right_before_the_question(shop_settings: Settings) -> None:
    examples = ToolResult(ok=True, kind="examples", text="", value={"examples": [
        {"question": "Customers in Brazil?", "sql": "SELECT name FROM customers WHERE country = 'Brazil'",
         "score": 0.9},
        {"question": "All orders?", "sql": "SELECT id FROM orders", "score": 0.4}]})
    ctx = make_ctx(shop_settings)
    call = ToolCall("Names of the customers from Brazil", "#E3", "generate_sql", "", {**schema_ref(), "#E2": examples})
    text = GenerateSQLTool().build_args(call, ctx).examples
    assert text.index("All orders?") < text.index("Customers in Brazil?")
    first = shop_settings.model_copy(update={"retrieval": shop_settings.retrieval.model_copy(
        update={"examples_best_last": False})})
    text = GenerateSQLTool().build_args(call, make_ctx(first)).examples
    assert text.index("Customers in Brazil?") < text.index("All orders?")


def test_an_empty_result_is_retried_without_unread_joins_before_any_new_call(
        shop_settings: Settings, shop_store: Any) -> None:
    joined = ("SELECT customers.name FROM customers JOIN orders ON customers.id = orders.customer_id "
              "WHERE customers.name = 'Caio'")  # Caio has no orders: the join empties the result
    generation = shop_settings.generation.with_rewrites(prune_joins=False)  # the join reaches the dry run
    settings = shop_settings.model_copy(update={"generation": generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,qp"), "cascade": True, "consistency": ONE_VOTE})})
    gen = by_strategy({"repair": cand(joined), "qp": cand(GOOD)})
    ctx = ToolContext(settings, Database.from_settings(settings), shop_store,
                      LLMProvider(settings, {"generator": gen}), UsageLog())
    call = ToolCall("Show the name of our third customer", "#E2", "generate_sql", "", schema_ref())
    made = GenerateSQLTool().run(GenerateSQLTool().build_args(call, ctx), ctx).value["candidates"]
    assert [c["strategy"] for c in made] == ["direct", "relaxed"] and len(gen.prompts) == 1
    assert made[1]["sql"] == "SELECT customers.name FROM customers WHERE customers.name = 'Caio'"
    assert made[1]["rewrites"][0]["step"] == "relax_joins" and made[1]["rewrites"][0]["fired"]


def test_a_true_empty_answer_stays_empty_when_the_question_names_every_filter(
        shop_settings: Settings, shop_store: Any) -> None:
    """'Orders of the customer Caio' with no orders: neither the join nor the named filter is dropped."""
    joined = ("SELECT customers.name FROM customers JOIN orders ON customers.id = orders.customer_id "
              "WHERE customers.name = 'Caio'")
    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,qp"), "cascade": True, "consistency": ONE_VOTE})})
    gen = by_strategy({"repair": cand(joined), "qp": cand(joined)})
    ctx = ToolContext(settings, Database.from_settings(settings), shop_store,
                      LLMProvider(settings, {"generator": gen}), UsageLog())
    call = ToolCall("Orders of the customer Caio: show the name", "#E2", "generate_sql", "", schema_ref())
    made = GenerateSQLTool().run(GenerateSQLTool().build_args(call, ctx), ctx).value["candidates"]
    assert [c["strategy"] for c in made] == ["direct", "query_plan"]  # no relaxed or unasked candidate
    assert all(c["sql"] == joined for c in made)
