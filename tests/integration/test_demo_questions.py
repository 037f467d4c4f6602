"""The real local model answers demo questions end to end; answers are checked against the gold SQL's result."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.context import AgentDeps
from agent.runner import ask
from core.settings import DATA_DIR

GOLD = [json.loads(line) for line in (DATA_DIR / "markets" / "gold.jsonl").read_text().splitlines() if line]
QUESTIONS = {
    "m02": "What was Apple's closing price on the last trading day in the data?",
    "m05": "What was Tesla's closing price on March 15, 2024?",
    "m18": "How many stocks are there per sector?",
}


def _norm(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def answer_values_present(gold_rows: list[tuple[Any, ...]], pred_rows: list[list[Any]]) -> bool:
    """Every gold row's answer value (its last column) is a cell of the predicted rows, and the row counts
    agree: tolerant of extra or reordered columns (e.g. the date next to a price), strict on the answer."""
    cells = {_norm(v) for row in pred_rows for v in row}
    return len(gold_rows) == len(pred_rows) and all(_norm(row[-1]) in cells for row in gold_rows)


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_local_model_answers_demo_question(demo_deps: AgentDeps, qid: str) -> None:
    gold = next(q for q in GOLD if q["id"] == qid)
    assert gold["question"] == QUESTIONS[qid]
    out = ask(demo_deps, gold["question"])
    assert out.status == "ok", out.answer
    expected = demo_deps.db.run_query(gold["sql"], row_cap=100_000)
    assert expected.ok and expected.rows
    assert answer_values_present(expected.rows, out.rows), (out.sql, out.rows[:5], expected.rows[:5])
    assert out.llm_calls >= 1 and out.completion_tokens > 0  # at least one candidate (the fixed plan needs no planner)


def test_answer_helper_is_strict() -> None:
    assert answer_values_present([("2025-10-31", 270.4)], [[270.4]])
    assert not answer_values_present([("2025-10-31", 270.4)], [[270.41]])
    assert not answer_values_present([("a", 1), ("b", 2)], [["a", 1]])
