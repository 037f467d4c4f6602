"""SQL candidates, execution grouping, judge and verifier with scripted fake LLMs and a real SQLite file."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
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


def _ctx(settings: Settings, **models: ScriptedChatModel) -> ToolContext:
    """Context with two candidates (Query-Plan, then Divide-and-Conquer) unless the settings list others."""
    if not settings.generation.candidates:
        settings = settings.model_copy(update={"generation": settings.generation.model_copy(
            update={"candidates": CandidateSpec.parse_list("qp,dc"), "cascade": False})})
    return ToolContext(settings, Database.from_settings(settings), None, LLMProvider(settings, models),  # type: ignore[arg-type]
                       UsageLog())


def _by_strategy(replies: dict[str, Any]) -> ScriptedChatModel:
    """A generator fake answering by the strategy named in the prompt."""
    def script(messages: list[BaseMessage]) -> Any:
        text = str(messages[-1].content)
        if "divide and conquer" in text:
            return replies["dc"]
        if "query planner" in text and "has a problem" not in text:
            return replies["qp"]
        return replies["repair"]
    return ScriptedChatModel(script=script)


def _run(tool: Any, ctx: ToolContext, refs: dict[str, ToolResult], text: str = "") -> ToolResult:
    call = ToolCall("How many customers are from Brazil?", "#E9", tool.name, text, refs)
    return tool.run(tool.build_args(call, ctx), ctx)


def _schema_ref() -> dict[str, ToolResult]:
    return {"#E1": ToolResult(ok=True, kind="schema", text=SCHEMA)}


def _pipeline(ctx: ToolContext) -> dict[str, ToolResult]:
    """generate -> execute -> judge -> verify, like a completed plan."""
    gen = _run(GenerateSQLTool(), ctx, _schema_ref())
    exe = _run(ExecuteSQLTool(), ctx, {"#E2": gen})
    judged = _run(JudgeSQLTool(), ctx, {"#E3": exe})
    verified = _run(VerifySQLTool(), ctx, {"#E4": judged})
    return {"gen": gen, "exe": exe, "judge": judged, "verify": verified}


def cand(sql: str, reasoning: str = "customers filtered by country") -> dict[str, str]:
    return {"reasoning": reasoning, "sql": sql}


GOOD = "SELECT COUNT(*) FROM customers WHERE country = 'Brazil'"
ONE_VOTE = ConsistencySettings(agree=1)
"""The cascade without self-consistency: it stops at the first candidate with rows (the fallback tests)."""


def test_profiles_choose_candidates_per_endpoint() -> None:
    local = Settings()
    assert [c.strategy for c in local.candidate_specs()] == ["direct", "plain", "query_plan", "divide_and_conquer"]
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
    gen = _by_strategy({"dc": cand(GOOD), "qp": cand(GOOD), "repair": cand(GOOD)})  # direct -> "repair" reply
    res = _run(GenerateSQLTool(), _ctx(settings, generator=gen), _schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct"] and len(gen.prompts) == 1
    failing = _by_strategy({"dc": cand(GOOD), "qp": cand("SELECT 1 FROM customers WHERE 0"),
                            "repair": cand("SELECT id FROM customers WHERE country = 'Atlantis'")})
    res = _run(GenerateSQLTool(), _ctx(settings, generator=failing), _schema_ref())
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
    res = _run(GenerateSQLTool(), _ctx(settings, generator=gen), _schema_ref())
    made = res.value["candidates"]
    assert [(c["index"], c["strategy"]) for c in made] == [(1, "direct"), (2, "repair")]
    assert made[1]["sql"] == GOOD and len(gen.prompts) == 2
    repair_prompt = str(gen.prompts[1][-1].content)
    assert "SELECT nope FROM customers" in repair_prompt and "no such column" in repair_prompt
    assert "columns of customers: id, name, country" in repair_prompt  # a probe of the failing query's table
    # a repair that fails again is followed by a fresh candidate, which never saw the failed query
    still = _error_then_repair("SELECT nope2 FROM customers")
    res = _run(GenerateSQLTool(), _ctx(settings, generator=still), _schema_ref())
    made = res.value["candidates"]  # the repair took a turn, not a strategy: Query-Plan is still written
    assert [(c["index"], c["strategy"]) for c in made] == [(1, "direct"), (2, "repair"), (3, "query_plan")]
    assert "SELECT nope" not in str(still.prompts[2][-1].content)
    # two repairs in a row allowed: the third slot repairs the repair
    twice = settings.model_copy(update={"generation": gen_settings.model_copy(update={"repairs_in_a_row": 2})})
    res = _run(GenerateSQLTool(), _ctx(twice, generator=_error_then_repair("SELECT nope2 FROM customers")),
               _schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct", "repair", "repair"]
    # switched off: the fresh Query-Plan candidate follows, as before
    off = shop_settings.model_copy(update={"generation": gen_settings.model_copy(update={"repair_errors": False})})
    res = _run(GenerateSQLTool(), _ctx(off, generator=_error_then_repair(GOOD)), _schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct", "query_plan"]


def test_cascade_fallback_after_an_empty_result_drops_the_value_hints(shop_settings: Settings) -> None:
    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,qp,dc"), "cascade": True, "consistency": ONE_VOTE})})
    wrong = "SELECT id FROM customers WHERE name = 'Country Feedback'"  # linked to a common word: empty
    gen = _by_strategy({"dc": cand(GOOD), "qp": cand(GOOD), "repair": cand(wrong)})
    values = ToolResult(ok=True, kind="values", text="", value={"matches": [{
        "mention": "country", "value": "Country Feedback", "table": "customers", "column": "name", "id": None,
        "score": 96.0}]})
    res = _run(GenerateSQLTool(), _ctx(settings, generator=gen), {**_schema_ref(), "#E2": values})
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
    ctx = _ctx(settings, generator=ScriptedChatModel(script=script))
    res = _run(GenerateSQLTool(), ctx, _schema_ref())
    assert res.ok and not any(c["error"] for c in res.value["candidates"])


def test_candidates_are_reasoned_guarded_and_concurrent(shop_settings: Settings) -> None:
    gen = _by_strategy({"dc": cand(GOOD), "qp": cand("SELECT 1; DROP TABLE customers"), "repair": cand(GOOD)})
    ctx = _ctx(shop_settings, generator=gen)
    res = _run(GenerateSQLTool(), ctx, _schema_ref())
    assert res.ok and res.value["sql"] == GOOD
    by_strategy = {c["strategy"]: c for c in res.value["candidates"]}
    assert by_strategy["query_plan"]["error"]  # two statements: refused by the guard, kept with its error
    assert by_strategy["divide_and_conquer"]["reasoning"] == "customers filtered by country"
    labels = sorted(c.label or "" for c in ctx.usage.calls)
    assert labels == ["candidate 1 query_plan", "candidate 2 divide_and_conquer"]
    prompts = [str(p[0].content) for p in gen.prompts]
    assert prompts[0] == prompts[1] and SCHEMA in prompts[0]  # one shared system prefix (prompt cache)


@pytest.mark.parametrize("bad", ["not json {", cand(""), {"reasoning": "x"}])
def test_malformed_output_is_recorded_not_raised(shop_settings: Settings, bad: Any) -> None:
    ctx = _ctx(shop_settings, generator=_by_strategy({"dc": bad, "qp": bad, "repair": bad}))
    res = _run(GenerateSQLTool(), ctx, _schema_ref())
    assert not res.ok and "candidate 1" in (res.error or "")
    assert all(c["error"] for c in res.value["candidates"])


def test_agreeing_candidates_skip_the_judge(shop_settings: Settings) -> None:
    judge = ScriptedChatModel(replies=[RuntimeError("judge must not be called")])
    ctx = _ctx(shop_settings, judge=judge, generator=_by_strategy(
        {"dc": cand(GOOD), "qp": cand("SELECT COUNT(id) FROM customers WHERE country = 'Brazil'"),
         "repair": cand(GOOD)}))
    out = _pipeline(ctx)
    assert out["verify"].ok and out["verify"].value["rows"] == [[2]]
    assert out["judge"].value["judge"] == {"skipped": "agreement", "best_score": None}
    assert out["verify"].value["verifier"] == {"needed": False}
    assert not judge.prompts


def test_failed_and_empty_candidates_are_dropped(shop_settings: Settings) -> None:
    ctx = _ctx(shop_settings, generator=_by_strategy(
        {"dc": cand("SELECT revenue FROM customers"), "qp": cand(GOOD), "repair": cand(GOOD)}))
    exe = _pipeline(ctx)["exe"]
    statuses = {o["strategy"]: o["status"] for o in exe.value["outcomes"]}
    assert statuses == {"divide_and_conquer": "error", "query_plan": "ok"}
    assert exe.value["rows"] == [[2]] and len(exe.value["groups"]) == 1


def test_judge_picks_the_best_scored_result(shop_settings: Settings) -> None:
    names = "SELECT name FROM customers WHERE country = 'Brazil'"
    scores = {"scores": [{"candidate": 1, "relevance": 2, "correctness": 3, "completeness": 2},
                         {"candidate": 2, "relevance": 5, "correctness": 5, "completeness": 4}]}
    judge = ScriptedChatModel(replies=[scores])
    ctx = _ctx(shop_settings, judge=judge, generator=_by_strategy(
        {"dc": cand(names), "qp": cand(GOOD), "repair": cand(GOOD)}))
    out = _pipeline(ctx)
    chosen = out["judge"].value
    assert chosen["judge"]["best_score"] == pytest.approx(11 / 12, abs=1e-3)
    assert chosen["selected"] == chosen["judge"]["scores"][1]["representative"]
    assert chosen["rows"] == out["judge"].value["groups"][1]["preview"]
    judge_prompt = str(judge.prompts[0][-1].content)
    assert "[1] SQL:" in judge_prompt and "[2] SQL:" in judge_prompt and "Ana" in judge_prompt
    assert out["verify"].value["verifier"] == {"needed": False}  # 0.92 is above the 0.6 threshold


def test_judge_failure_keeps_the_majority(shop_settings: Settings) -> None:
    names = "SELECT name FROM customers WHERE country = 'Brazil'"
    ctx = _ctx(shop_settings, judge=ScriptedChatModel(replies=["garbage"]), generator=_by_strategy(
        {"dc": cand(names), "qp": cand(GOOD), "repair": cand(GOOD)}))
    judged = _pipeline(ctx)["judge"]
    assert judged.ok and "error" in judged.value["judge"]
    assert judged.value["selected"] == 1  # tie between groups of one: the first candidate


def test_verifier_repairs_when_every_candidate_fails(shop_settings: Settings) -> None:
    gen = _by_strategy({"dc": cand("SELECT COUNT(*) FROM customer WHERE country = 'Brazil'"),
                        "qp": cand("SELECT COUNT(*) FROM clients"), "repair": cand(GOOD)})
    ctx = _ctx(shop_settings, generator=gen)
    verified = _pipeline(ctx)["verify"]
    assert verified.ok and verified.value["rows"] == [[2]]
    record = verified.value["verifier"]
    assert record["repaired"] and record["attempts"][0]["problem"].startswith("Error:")
    repair_prompt = str(gen.prompts[-1][-1].content)
    assert "no such table" in repair_prompt and "has a problem" in repair_prompt


def test_verifier_probes_values_of_an_empty_result(shop_settings: Settings) -> None:
    wrong_case = "SELECT COUNT(*) FROM customers WHERE country = 'brazil' GROUP BY country"
    gen = _by_strategy({"dc": cand(wrong_case), "qp": cand(wrong_case),
                        "repair": cand("SELECT COUNT(*) FROM customers WHERE country = 'Brazil' GROUP BY country")})
    ctx = _ctx(shop_settings, generator=gen)
    out = _pipeline(ctx)
    assert out["exe"].value["all_empty"]
    verified = out["verify"]
    assert verified.value["rows"] == [[2]]
    probes = verified.value["verifier"]["attempts"][0]["probes"]
    assert any("'brazil' does NOT exist" in p and "'Brazil'" in p for p in probes)
    assert "'Brazil'" in str(gen.prompts[-1][-1].content)
    assert [o["strategy"] for o in verified.value["outcomes"]] == ["query_plan", "divide_and_conquer", "verifier"]


def test_empty_results_get_one_repair_then_stay_empty(shop_settings: Settings) -> None:
    nobody = cand("SELECT name FROM customers WHERE country = 'Peru'")
    gen = _by_strategy({"dc": nobody, "qp": nobody, "repair": nobody})
    verified = _pipeline(_ctx(shop_settings, generator=gen))["verify"]
    assert verified.ok and verified.value["rows"] == [] and verified.value["all_empty"]
    assert len(verified.value["verifier"]["attempts"]) == 1 and not verified.value["verifier"]["repaired"]


def test_verifier_retries_are_bounded_and_keep_the_error(shop_settings: Settings) -> None:
    bad = cand("SELECT nope FROM customers")
    gen = _by_strategy({"dc": bad, "qp": bad, "repair": bad})
    ctx = _ctx(shop_settings, generator=gen)
    verified = _pipeline(ctx)["verify"]
    assert not verified.ok and "nope" in (verified.error or "")
    assert len(verified.value["verifier"]["attempts"]) == shop_settings.generation.verifier_retries == 2
    assert len(gen.prompts) == 2 + 2  # two candidates, two repairs


def test_low_judge_score_triggers_repair_and_rejudging(shop_settings: Settings) -> None:
    names = "SELECT name FROM customers WHERE country = 'Brazil'"
    low = {"scores": [{"candidate": 1, "relevance": 1, "correctness": 2, "completeness": 1},
                      {"candidate": 2, "relevance": 2, "correctness": 1, "completeness": 1}]}
    high = {"scores": [{"candidate": 1, "relevance": 1, "correctness": 1, "completeness": 1},
                       {"candidate": 2, "relevance": 1, "correctness": 1, "completeness": 1},
                       {"candidate": 3, "relevance": 5, "correctness": 5, "completeness": 5}]}
    judge = ScriptedChatModel(replies=[low, high])
    repaired = "SELECT COUNT(*) AS brazilians FROM customers WHERE country = 'Brazil'"
    gen = _by_strategy({"dc": cand(names), "qp": cand("SELECT COUNT(*) FROM customers"),
                        "repair": cand(repaired)})
    out = _pipeline(_ctx(shop_settings, judge=judge, generator=gen))
    verified = out["verify"].value
    assert verified["verifier"]["repaired"] and len(judge.prompts) == 2
    assert verified["sql"] == repaired and verified["rows"] == [[2]]
    assert json.dumps(verified, default=str)  # JSON-friendly for the trace


def test_no_fallback_candidate_starts_once_the_question_budget_is_spent(shop_settings: Settings,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import core.llm_retry as clock

    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.with_rewrites(
        drop_unasked_filters=False).model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,qp,dc"), "cascade": True, "consistency": ONE_VOTE, "fallback_budget_s": 30.0})})
    empty = "SELECT id FROM customers WHERE country = 'Atlantis'"
    failing = _by_strategy({"dc": cand(GOOD), "qp": cand(GOOD), "repair": cand(empty)})
    monkeypatch.setattr(clock, "question_elapsed", lambda: 31.0)  # the first candidate took the whole budget
    res = _run(GenerateSQLTool(), _ctx(settings, generator=failing), _schema_ref())
    assert [c["strategy"] for c in res.value["candidates"]] == ["direct"] and len(failing.prompts) == 1
    monkeypatch.setattr(clock, "question_elapsed", lambda: 29.0)
    res = _run(GenerateSQLTool(), _ctx(settings, generator=failing), _schema_ref())
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
                      LLMProvider(settings, {"generator": _by_strategy({"repair": cand(joined)})}), UsageLog())
    call = ToolCall("Names of the customers from Brazil who placed orders", "#E2", "generate_sql", "",
                    _schema_ref())
    res = GenerateSQLTool().run(GenerateSQLTool().build_args(call, ctx), ctx)
    assert res.value["candidates"][0]["sql"] == joined
    # a column qualified with the joined table is re-pointed; the join stays, and the trace says what changed
    misqualified = joined.replace("SELECT customers.name", "SELECT orders.name")
    ctx = ToolContext(settings, ctx.db, shop_store,
                      LLMProvider(settings, {"generator": _by_strategy({"repair": cand(misqualified)})}), UsageLog())
    first = GenerateSQLTool().run(GenerateSQLTool().build_args(call, ctx), ctx).value["candidates"][0]
    assert first["sql"] == joined
    assert first["rewrites"] == [{"step": "fix_qualifiers", "phase": "candidate", "fired": True,
                                  "before": misqualified, "after": joined}]


def test_most_similar_example_sits_right_before_the_question(shop_settings: Settings) -> None:
    examples = ToolResult(ok=True, kind="examples", text="", value={"examples": [
        {"question": "Customers in Brazil?", "sql": "SELECT name FROM customers WHERE country = 'Brazil'",
         "score": 0.9},
        {"question": "All orders?", "sql": "SELECT id FROM orders", "score": 0.4}]})
    ctx = _ctx(shop_settings)
    call = ToolCall("Names of the customers from Brazil", "#E3", "generate_sql", "", {**_schema_ref(), "#E2": examples})
    text = GenerateSQLTool().build_args(call, ctx).examples
    assert text.index("All orders?") < text.index("Customers in Brazil?")
    first = shop_settings.model_copy(update={"retrieval": shop_settings.retrieval.model_copy(
        update={"examples_best_last": False})})
    text = GenerateSQLTool().build_args(call, _ctx(first)).examples
    assert text.index("Customers in Brazil?") < text.index("All orders?")


def test_an_empty_result_is_retried_without_unread_joins_before_any_new_call(
        shop_settings: Settings, shop_store: Any) -> None:
    joined = ("SELECT customers.name FROM customers JOIN orders ON customers.id = orders.customer_id "
              "WHERE customers.name = 'Caio'")  # Caio has no orders: the join empties the result
    generation = shop_settings.generation.with_rewrites(prune_joins=False)  # the join reaches the dry run
    settings = shop_settings.model_copy(update={"generation": generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,qp"), "cascade": True, "consistency": ONE_VOTE})})
    gen = _by_strategy({"repair": cand(joined), "qp": cand(GOOD)})
    ctx = ToolContext(settings, Database.from_settings(settings), shop_store,
                      LLMProvider(settings, {"generator": gen}), UsageLog())
    call = ToolCall("Show the name of our third customer", "#E2", "generate_sql", "", _schema_ref())
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
    gen = _by_strategy({"repair": cand(joined), "qp": cand(joined)})
    ctx = ToolContext(settings, Database.from_settings(settings), shop_store,
                      LLMProvider(settings, {"generator": gen}), UsageLog())
    call = ToolCall("Orders of the customer Caio: show the name", "#E2", "generate_sql", "", _schema_ref())
    made = GenerateSQLTool().run(GenerateSQLTool().build_args(call, ctx), ctx).value["candidates"]
    assert [c["strategy"] for c in made] == ["direct", "query_plan"]  # no relaxed or unasked candidate
    assert all(c["sql"] == joined for c in made)
