"""Run figures of eval.summary: cold and warm latency split by each database's first question (no model)."""

from __future__ import annotations

from typing import Any

from eval.report import summary_frame
from eval.summary import latency_by_cache, summarize


def _row(qid: str, db: str, seconds: float, ex: int = 1) -> dict[str, Any]:
    return {"qid": qid, "db_id": db, "latency_s": seconds, "ex": ex, "ex_tolerant": ex, "kind_correct": 1,
            "judge_correct": None, "soft_f1": float(ex), "llm_calls": 2, "prompt_tokens": 100,
            "completion_tokens": 10, "cost_usd": 0.0, "error_category": "correct", "category": "simple"}


def test_first_question_of_each_database_is_cold_the_rest_warm() -> None:
    rows = [_row("1", "a", 40.0), _row("2", "a", 8.0), _row("3", "b", 30.0), _row("4", "b", 6.0),
            _row("5", "a", 10.0)]
    split = latency_by_cache(rows)
    assert split["warm_questions"] == 3
    assert split["latency_warm_p50_s"] == 8.0
    assert split["latency_cold_p50_s"] == 35.0
    assert split["latency_cold_p95_s"] > split["latency_cold_p50_s"]


def test_order_decides_which_question_is_cold() -> None:
    rows = [_row("1", "a", 5.0), _row("2", "a", 50.0)]
    assert latency_by_cache(rows)["latency_cold_p50_s"] == 5.0
    assert latency_by_cache(rows[::-1])["latency_cold_p50_s"] == 50.0


def test_one_question_per_database_has_no_warm_figures() -> None:
    split = latency_by_cache([_row("1", "a", 12.0), _row("2", "b", 14.0)])
    assert split["warm_questions"] == 0
    assert split["latency_warm_p50_s"] == 0.0
    assert latency_by_cache([]) == {"warm_questions": 0, "latency_warm_p50_s": 0.0, "latency_warm_p95_s": 0.0,
                                    "latency_cold_p50_s": 0.0, "latency_cold_p95_s": 0.0}


def test_summary_and_report_table_carry_the_warm_figures() -> None:
    rows = [_row("1", "a", 40.0), _row("2", "a", 8.0), _row("3", "b", 30.0)]
    summary = summarize(rows)
    assert summary["latency_warm_p50_s"] == 8.0
    frame = summary_frame({"with_examples": summary, "single_shot": summarize([_row("1", "a", 3.0)])})
    assert list(frame["warm p50 / p95 s"]) == ["8.0 / 8.0", "-"]
