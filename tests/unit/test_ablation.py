"""Per-strategy figures derived from a full-pipeline run (eval.ablation) on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

from eval.ablation import ablate
from eval.datasets import EvalItem

GOLD = "SELECT COUNT(*) FROM customers WHERE country = 'Brazil'"


def _usage(label: str, seconds: float, completion: int) -> dict[str, object]:
    return {"role": "x", "label": label, "latency_s": seconds, "prompt_tokens": 100, "completion_tokens": completion}


def test_each_candidate_is_scored_alone_with_its_own_cost(shop_db: Path) -> None:
    url = f"sqlite:///{shop_db}"
    items = {q: EvalItem(q, "How many customers are from Brazil?", GOLD, url, "shop") for q in ("q1", "q2")}
    usage = [_usage("plan", 5, 50), _usage("candidate 1 query_plan", 7, 90),
             _usage("candidate 2 divide_and_conquer", 9, 110), _usage("judge", 4, 30)]
    run = {"summary": {"ex": 1.0}, "questions": [
        {"qid": "q1", "ex": 1, "verifier_repaired": False, "usage": usage, "candidates": [
            {"index": 1, "strategy": "query_plan", "sql": GOLD, "error": None},
            {"index": 2, "strategy": "divide_and_conquer", "sql": "SELECT COUNT(*) FROM customers", "error": None}]},
        {"qid": "q2", "ex": 1, "verifier_repaired": True, "usage": usage, "candidates": [
            {"index": 1, "strategy": "query_plan", "sql": "SELECT nope FROM customers", "error": None},
            {"index": 2, "strategy": "divide_and_conquer", "sql": None, "error": "guard: two statements"},
            {"index": 3, "strategy": "verifier", "sql": GOLD, "error": None}]},
    ]}
    out = ablate(run, items)
    qp, dc = out["candidate 1 (query_plan) alone"], out["candidate 2 (divide_and_conquer) alone"]
    assert qp["ex"] == 0.5 and dc["ex"] == 0.0
    assert qp["llm_calls_per_q"] == 2 and qp["llm_seconds_per_q"] == 12 and qp["completion_tokens_per_q"] == 140
    assert dc["llm_seconds_per_q"] == 14
    assert out["oracle (any candidate right)"]["ex"] == 0.5  # the verifier's repair is not a candidate
    assert out["verifier_repaired"] == 1 and out["verifier_repaired_and_right"] == 1
