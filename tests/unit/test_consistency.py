"""Adaptive self-consistency of the cascade: candidates until two results agree, a majority without a judge, and
the plain free-text candidate (scripted fake LLMs, a real SQLite file)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

from core.settings import CandidateSpec, ConsistencySettings, Settings
from tests.support.candidates import GOOD, by_strategy, cand, make_ctx, run_chain, run_tool, schema_ref
from tests.support.scripted_model import ScriptedChatModel
from tools.generation import GenerateSQLTool


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
