"""Adaptive self-consistency of the cascade: candidates until two results agree, a majority without a judge, and
the plain free-text candidate (scripted fake LLMs, a real SQLite file)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from core.settings import CandidateSpec, ConsistencySettings, Settings
from tests.support.candidates import GOOD, by_strategy, cand, make_ctx, run_chain, run_tool, schema_ref
from tests.support.scripted_model import ScriptedChatModel
from tools.generation import GenerateSQLTool
from tools.whole_schema import whole_schema_system


def _plain_or(replies: dict[str, Any]) -> ScriptedChatModel:
    """A generator fake: free text for the plain candidate's prompt, else by strategy as :func:`by_strategy`."""
    others = by_strategy(replies).script
    assert others is not None

    def script(messages: list[BaseMessage]) -> Any:
        if "Reply with the SQL query only" in str(messages[-1].content):
            return replies["plain"]
        return others(messages)
    return ScriptedChatModel(script=script)


def test_cascade_writes_candidates_until_two_results_agree(shop_settings: Settings) -> None:
    """Adaptive self-consistency: direct and plain agree -> two calls; they disagree -> a third decides."""
    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,plain,qp,dc"), "cascade": True})})
    other = "SELECT COUNT(*) FROM customers"
    agree = _plain_or({"plain": f"```sql\n{GOOD};\n```\nThis counts the customers.", "repair": cand(GOOD),
                       "qp": cand(other), "dc": cand(other)})
    ctx = make_ctx(settings, generator=agree)
    res = run_chain(ctx)
    assert [c["strategy"] for c in res["gen"].value["candidates"]] == ["direct", "plain"]
    assert res["gen"].value["candidates"][1]["sql"] == GOOD  # the fence and the prose after it are cut
    assert len(agree.prompts) == 2 and res["judge"].value["judge"]["skipped"] == "agreement"
    # direct and plain disagree; the query-plan candidate sides with plain: a strict majority, no judge call
    judge = ScriptedChatModel(replies=[RuntimeError("the judge is not needed on a majority")])
    split = _plain_or({"plain": GOOD, "repair": cand(other), "qp": cand(GOOD), "dc": cand(other)})
    res = run_chain(make_ctx(settings, generator=split, judge=judge))
    assert [c["strategy"] for c in res["gen"].value["candidates"]] == ["direct", "plain", "query_plan"]
    assert res["judge"].value["sql"] == GOOD and res["judge"].value["judge"]["skipped"] == "majority"
    assert not judge.prompts
    # switched off, the judge scores the majority too
    off = settings.model_copy(update={"generation": settings.generation.model_copy(
        update={"consistency": ConsistencySettings(majority_skips_judge=False)})})
    scores = {"scores": [{"candidate": 1, "relevance": 5, "correctness": 5, "completeness": 5},
                         {"candidate": 2, "relevance": 1, "correctness": 1, "completeness": 1}]}
    judge = ScriptedChatModel(replies=[scores])
    split = _plain_or({"plain": GOOD, "repair": cand(other), "qp": cand(GOOD), "dc": cand(other)})
    res = run_chain(make_ctx(off, generator=split, judge=judge))
    assert judge.prompts and res["judge"].value["judge"]["best_score"] == 1.0


def test_plain_candidate_reply_with_a_second_statement_is_refused(shop_settings: Settings) -> None:
    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.model_copy(
        update={"candidates": CandidateSpec.parse_list("plain"), "cascade": True})})
    gen = _plain_or({"plain": "SELECT 1; DROP TABLE customers"})
    made = run_tool(GenerateSQLTool(), make_ctx(settings, generator=gen), schema_ref()).value["candidates"]
    assert made[0]["error"] and "statement" in made[0]["error"].lower()
    gen = _plain_or({"plain": "I cannot answer that."})
    made = run_tool(GenerateSQLTool(), make_ctx(settings, generator=gen), schema_ref()).value["candidates"]
    assert made[0]["error"] == "the reply held no SELECT statement"


def _whole_or(replies: dict[str, Any]) -> ScriptedChatModel:
    """A generator fake: ``replies["whole"]`` for the whole-schema prompt, else as :func:`_plain_or`."""
    rest = _plain_or(replies).script
    assert rest is not None

    def script(messages: list[BaseMessage]) -> Any:
        if str(messages[0].content).startswith("You write one sqlite SQL query"):
            return replies["whole"]
        return rest(messages)
    return ScriptedChatModel(script=script)


def _cascade(settings: Settings, candidates: str, **consistency: Any) -> Settings:
    return settings.model_copy(update={"generation": settings.generation.model_copy(update={
        "candidates": CandidateSpec.parse_list(candidates), "cascade": True,
        "consistency": ConsistencySettings(**consistency)})})


def test_whole_schema_candidate_reads_the_ddl_listing_without_hints(shop_settings: Settings) -> None:
    """The first candidate of the local cascade sees every table as DDL with sample rows and the bare question."""
    settings = _cascade(shop_settings, "whole,direct,plain")
    gen = _whole_or({"whole": f"{GOOD};", "plain": GOOD, "repair": cand(GOOD), "qp": cand(GOOD), "dc": cand(GOOD)})
    res = run_chain(make_ctx(settings, generator=gen))
    made = res["gen"].value["candidates"]
    assert [c["strategy"] for c in made] == ["whole_schema", "direct"]  # they agree: the cascade stops
    assert made[0]["sql"] == GOOD and made[0]["value_hints"] is False
    system, user = (str(m.content) for m in gen.prompts[0])
    assert "CREATE TABLE" in system and "rows:" in system and "Brazil" in system  # DDL and stored rows
    assert user == "Question: How many customers are from Brazil?\nSQL:"  # the single-shot prompt's question
    assert not str(gen.prompts[1][0].content).startswith("You write one")  # direct keeps the linked listing


def test_a_tie_goes_to_the_earliest_candidate_without_a_judge_call(shop_settings: Settings) -> None:
    """Three different results: the small profile keeps the first candidate's; ``ties=judge`` asks the judge."""
    replies = {"whole": "SELECT name FROM customers", "plain": "SELECT order_date FROM orders",
               "repair": cand(GOOD), "qp": cand(GOOD), "dc": cand(GOOD)}
    judge = ScriptedChatModel(replies=[RuntimeError("a tie goes to the earliest candidate")])
    res = run_chain(make_ctx(_cascade(shop_settings, "whole,direct,plain"), generator=_whole_or(replies),
                             judge=judge))
    assert [c["strategy"] for c in res["gen"].value["candidates"]] == ["whole_schema", "direct", "plain"]
    assert res["judge"].value["sql"] == "SELECT name FROM customers" and not judge.prompts
    assert res["judge"].value["judge"]["skipped"] == "tie to the earliest candidate"
    scores = {"scores": [{"candidate": n, "relevance": 5 if n == 2 else 1, "correctness": 5 if n == 2 else 1,
                          "completeness": 5 if n == 2 else 1} for n in (1, 2, 3)]}
    judge = ScriptedChatModel(replies=[scores])
    res = run_chain(make_ctx(_cascade(shop_settings, "whole,direct,plain", ties="judge"),
                             generator=_whole_or(replies), judge=judge))
    assert judge.prompts and res["judge"].value["judge"]["best_score"] == 1.0


def test_whole_schema_candidate_is_skipped_for_a_schema_too_large(shop_settings: Settings,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Above ``whole_schema_max_tokens`` (estimated) the cascade starts with the linked listing's candidates."""
    ctx = make_ctx(_cascade(shop_settings, "whole,direct,plain"))
    assert whole_schema_system(ctx.db, 10) is None
    listing = whole_schema_system(ctx.db, 10_000)
    assert listing is not None and "CREATE TABLE" in listing and "orders" in listing
    monkeypatch.setattr("tools.generation.planned_whole_schema", lambda settings, db: None)
    gen = _whole_or({"whole": GOOD, "plain": GOOD, "repair": cand(GOOD), "qp": cand(GOOD), "dc": cand(GOOD)})
    made = run_tool(GenerateSQLTool(), make_ctx(ctx.settings, generator=gen), schema_ref()).value["candidates"]
    assert [c["strategy"] for c in made] == ["direct", "plain"]


def test_a_failing_whole_schema_candidate_is_not_repaired_by_default(shop_settings: Settings) -> None:
    """Its dry run fails: the next turn is the direct candidate; ``repair_whole_schema`` repairs it instead."""
    replies = {"whole": "SELECT no_such_column FROM customers", "plain": GOOD, "repair": cand(GOOD),
               "qp": cand(GOOD), "dc": cand(GOOD)}
    made = run_chain(make_ctx(_cascade(shop_settings, "whole,direct,plain"),
                              generator=_whole_or(replies)))["gen"].value["candidates"]
    assert [c["strategy"] for c in made] == ["whole_schema", "direct", "plain"]
    made = run_chain(make_ctx(_cascade(shop_settings, "whole,direct,plain", repair_whole_schema=True),
                              generator=_whole_or(replies)))["gen"].value["candidates"]
    assert [c["strategy"] for c in made] == ["whole_schema", "repair", "direct"]


def test_the_cascade_stops_at_the_third_empty_result(shop_settings: Settings) -> None:
    """``empty_agree``: three candidates that ran with no rows (and no rescue with rows) and no vote end the
    cascade; 0 writes every strategy; a candidate with rows before them keeps the cascade going."""
    nothing = "SELECT name FROM customers WHERE country = 'Brazil' AND name = 'Brazil'"
    replies = {"plain": nothing, "repair": cand(nothing), "qp": cand(nothing), "dc": cand(nothing)}
    for empty_agree, written in ((3, 3), (0, 4), (2, 2)):
        gen = _plain_or(replies)
        ctx = make_ctx(_cascade(shop_settings, "direct,plain,qp,dc", empty_agree=empty_agree), generator=gen)
        made = run_tool(GenerateSQLTool(), ctx, schema_ref()).value["candidates"]
        assert [c["strategy"] for c in made] == ["direct", "plain", "query_plan", "divide_and_conquer"][:written]
        assert len(gen.prompts) == written
    one_vote = {**replies, "repair": cand(GOOD)}  # the first candidate has rows: three empty ones do not stop it
    gen = _plain_or(one_vote)
    made = run_tool(GenerateSQLTool(), make_ctx(_cascade(shop_settings, "direct,plain,qp,dc,direct"),
                                                generator=gen), schema_ref()).value["candidates"]
    assert [c["strategy"] for c in made][1:4] == ["plain", "query_plan", "divide_and_conquer"] and len(made) == 5
