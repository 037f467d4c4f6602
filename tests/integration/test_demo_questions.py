"""The real local model answers demo questions end to end; results are compared with the gold SQL's."""

from __future__ import annotations

import json

import pytest

from agent.configuration import DATA_DIR
from agent.graph import AgentDeps
from agent.runner import ask
from eval.metrics import gold_is_ordered, results_match

GOLD = {q["id"]: q for q in map(json.loads, (DATA_DIR / "markets" / "gold.jsonl").read_text().splitlines())}
QUESTIONS = [
    "What was Apple's closing price on the last trading day in the data?",
    "How many equities are listed on each market?",
    "Which sector has the most equities?",
]


def _gold_for(question: str) -> dict:
    return next(q for q in GOLD.values() if q["question"] == question)


@pytest.mark.parametrize("question", QUESTIONS)
def test_local_model_answers_demo_question(demo_deps: AgentDeps, question: str) -> None:
    gold = _gold_for(question)
    out = ask(demo_deps, question)
    assert out["status"] == "ok", out["answer"]
    expected = demo_deps.db.run_query(gold["sql"], row_cap=100_000)
    assert expected.ok
    got = [list(r) for r in out["rows"]]
    assert results_match(expected.rows, got, ordered=gold_is_ordered(gold["sql"])), (out["sql"], got[:5])
    assert out["llm_calls"] >= 2 and out["completion_tokens"] > 0
