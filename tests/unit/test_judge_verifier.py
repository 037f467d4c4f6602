"""The judge and the verifier over scripted candidates: agreement skips the judge, the best-scored result wins,
the verifier repairs failures and probes empty results, and its retries are bounded."""

from __future__ import annotations

import json

import pytest

from core.settings import Settings
from tests.support.candidates import GOOD, by_strategy, cand, make_ctx, run_chain
from tests.support.scripted_model import ScriptedChatModel


def test_agreeing_candidates_skip_the_judge(shop_settings: Settings) -> None:
    judge = ScriptedChatModel(replies=[RuntimeError("judge must not be called")])
    ctx = make_ctx(shop_settings, judge=judge, generator=by_strategy(
        {"dc": cand(GOOD), "qp": cand("SELECT COUNT(id) FROM customers WHERE country = 'Brazil'"),
         "repair": cand(GOOD)}))
    out = run_chain(ctx)
    assert out["verify"].ok and out["verify"].value["rows"] == [[2]]
    assert out["judge"].value["judge"] == {"skipped": "agreement", "best_score": None}
    assert out["verify"].value["verifier"] == {"needed": False}
    assert not judge.prompts


def test_failed_and_empty_candidates_are_dropped(shop_settings: Settings) -> None:
    ctx = make_ctx(shop_settings, generator=by_strategy(
        {"dc": cand("SELECT revenue FROM customers"), "qp": cand(GOOD), "repair": cand(GOOD)}))
    exe = run_chain(ctx)["exe"]
    statuses = {o["strategy"]: o["status"] for o in exe.value["outcomes"]}
    assert statuses == {"divide_and_conquer": "error", "query_plan": "ok"}
    assert exe.value["rows"] == [[2]] and len(exe.value["groups"]) == 1


def test_judge_picks_the_best_scored_result(shop_settings: Settings) -> None:
    names = "SELECT name FROM customers WHERE country = 'Brazil'"
    scores = {"scores": [{"candidate": 1, "relevance": 2, "correctness": 3, "completeness": 2},
                         {"candidate": 2, "relevance": 5, "correctness": 5, "completeness": 4}]}
    judge = ScriptedChatModel(replies=[scores])
    ctx = make_ctx(shop_settings, judge=judge, generator=by_strategy(
        {"dc": cand(names), "qp": cand(GOOD), "repair": cand(GOOD)}))
    out = run_chain(ctx)
    chosen = out["judge"].value
    assert chosen["judge"]["best_score"] == pytest.approx(11 / 12, abs=1e-3)
    assert chosen["selected"] == chosen["judge"]["scores"][1]["representative"]
    assert chosen["rows"] == out["judge"].value["groups"][1]["preview"]
    judge_prompt = str(judge.prompts[0][-1].content)
    assert "[1] SQL:" in judge_prompt and "[2] SQL:" in judge_prompt and "Ana" in judge_prompt
    assert out["verify"].value["verifier"] == {"needed": False}  # 0.92 is above the 0.6 threshold


def test_judge_failure_keeps_the_majority(shop_settings: Settings) -> None:
    names = "SELECT name FROM customers WHERE country = 'Brazil'"
    ctx = make_ctx(shop_settings, judge=ScriptedChatModel(replies=["garbage"]), generator=by_strategy(
        {"dc": cand(names), "qp": cand(GOOD), "repair": cand(GOOD)}))
    judged = run_chain(ctx)["judge"]
    assert judged.ok and "error" in judged.value["judge"]
    assert judged.value["selected"] == 1  # tie between groups of one: the first candidate


def test_verifier_repairs_when_every_candidate_fails(shop_settings: Settings) -> None:
    gen = by_strategy({"dc": cand("SELECT COUNT(*) FROM customer WHERE country = 'Brazil'"),
                        "qp": cand("SELECT COUNT(*) FROM clients"), "repair": cand(GOOD)})
    ctx = make_ctx(shop_settings, generator=gen)
    verified = run_chain(ctx)["verify"]
    assert verified.ok and verified.value["rows"] == [[2]]
    record = verified.value["verifier"]
    assert record["repaired"] and record["attempts"][0]["problem"].startswith("Error:")
    repair_prompt = str(gen.prompts[-1][-1].content)
    assert "no such table" in repair_prompt and "has a problem" in repair_prompt


def test_verifier_probes_values_of_an_empty_result(shop_settings: Settings) -> None:
    wrong_case = "SELECT COUNT(*) FROM customers WHERE country = 'brazil' GROUP BY country"
    gen = by_strategy({"dc": cand(wrong_case), "qp": cand(wrong_case),
                        "repair": cand("SELECT COUNT(*) FROM customers WHERE country = 'Brazil' GROUP BY country")})
    ctx = make_ctx(shop_settings, generator=gen)
    out = run_chain(ctx)
    assert out["exe"].value["all_empty"]
    verified = out["verify"]
    assert verified.value["rows"] == [[2]]
    probes = verified.value["verifier"]["attempts"][0]["probes"]
    assert any("'brazil' does NOT exist" in p and "'Brazil'" in p for p in probes)
    assert "'Brazil'" in str(gen.prompts[-1][-1].content)
    assert [o["strategy"] for o in verified.value["outcomes"]] == ["query_plan", "divide_and_conquer", "verifier"]


def test_empty_results_get_one_repair_then_stay_empty(shop_settings: Settings) -> None:
    nobody = cand("SELECT name FROM customers WHERE country = 'Peru'")
    gen = by_strategy({"dc": nobody, "qp": nobody, "repair": nobody})
    verified = run_chain(make_ctx(shop_settings, generator=gen))["verify"]
    assert verified.ok and verified.value["rows"] == [] and verified.value["all_empty"]
    assert len(verified.value["verifier"]["attempts"]) == 1 and not verified.value["verifier"]["repaired"]


def test_verifier_retries_are_bounded_and_keep_the_error(shop_settings: Settings) -> None:
    bad = cand("SELECT nope FROM customers")
    gen = by_strategy({"dc": bad, "qp": bad, "repair": bad})
    ctx = make_ctx(shop_settings, generator=gen)
    verified = run_chain(ctx)["verify"]
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
    gen = by_strategy({"dc": cand(names), "qp": cand("SELECT COUNT(*) FROM customers"),
                        "repair": cand(repaired)})
    out = run_chain(make_ctx(shop_settings, judge=judge, generator=gen))
    verified = out["verify"].value
    assert verified["verifier"]["repaired"] and len(judge.prompts) == 2
    assert verified["sql"] == repaired and verified["rows"] == [[2]]
    assert json.dumps(verified, default=str)  # JSON-friendly for the trace
