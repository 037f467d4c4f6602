"""Token log-probabilities: read from a reply, cut to the SQL's span, kept on the candidate, fed to the confidence."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from agent.confidence import confidence_features
from core.token_logprobs import logprobs_of, span_mean
from tools.candidate import sql_logprob


def _tokens(*pairs: tuple[str, float]) -> list[tuple[str, float]]:
    return list(pairs)


def test_logprobs_are_read_from_the_reply_and_bad_entries_skipped() -> None:
    message = AIMessage(content="SELECT 1", response_metadata={"logprobs": {"content": [
        {"token": "SELECT", "logprob": -0.5}, {"token": " 1", "logprob": float("-inf")},
        {"token": "x", "logprob": None}, "junk", {"token": ";", "logprob": -1}]}})
    assert logprobs_of(message) == [("SELECT", -0.5), (";", -1.0)]
    assert logprobs_of(AIMessage(content="SELECT 1")) == []
    assert logprobs_of(AIMessage(content="x", response_metadata={"logprobs": None})) == []


def test_span_mean_counts_the_tokens_that_reach_into_the_span() -> None:
    tokens = _tokens(("ab", -1.0), ("cd", -3.0), ("ef", -5.0))
    assert span_mean(tokens, 0) == -3.0
    assert span_mean(tokens, 3) == -4.0          # "cd" begins before 3 but runs past it
    assert span_mean(tokens, 2, 4) == -3.0
    assert span_mean(tokens, 6) is None
    assert span_mean([], 0) is None


def test_the_sql_span_of_a_json_reply_leaves_the_reasoning_out() -> None:
    tokens = _tokens(('{"reasoning": "', -0.1), ("maybe the", -6.0), (' table", ', -0.1), ('"sql": "', -0.2),
                     ("SELECT a", -0.4), (' FROM t"}', -0.6))
    assert sql_logprob(tokens, structured=True) == pytest.approx(-0.4)
    assert sql_logprob(_tokens(('{"reasoning": "x"}', -1.0)), structured=True) is None


def test_the_sql_span_of_free_text_runs_from_select_to_the_fence() -> None:
    tokens = _tokens(("```sql\n", -3.0), ("SELECT a", -0.2), (" FROM t", -0.4), ("\n", -0.3), ("```", -0.1),
                     (" Note: hm", -9.0))
    assert sql_logprob(tokens, structured=False) == pytest.approx(-0.3)
    assert sql_logprob(_tokens(("no query here", -1.0)), structured=False) is None


@pytest.mark.parametrize("strategy", ["direct", "plain"])
def test_a_candidate_keeps_the_mean_logprob_of_its_sql(tmp_path: Path, embedding_function: Any,
                                                       strategy: str) -> None:
    from core.llm import LLMProvider
    from core.settings import Settings
    from core.settings_candidates import CandidateSpec
    from database.connection import Database
    from retrieval.store import ChromaStore
    from tests.support.scripted_model import ScriptedChatModel
    from tools.base import ToolContext
    from tools.candidate import write_candidate

    path = tmp_path / "t.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (a INTEGER)")
    conn.close()
    settings = Settings(database_url=f"sqlite:///{path}", state_dir=tmp_path / "state",
                        retrieval={"chroma_path": tmp_path / "chroma"}, local_llm={"auto_start": False})
    reply: Any = {"sql": "SELECT a FROM t"} if strategy == "direct" else "SELECT a FROM t"
    for logprob, expected in ((-0.25, -0.25), (None, None)):
        model = ScriptedChatModel(replies=[reply], logprob=logprob)
        ctx = ToolContext(settings, Database.from_settings(settings), ChromaStore(tmp_path / "chroma",
                          embedding_function), LLMProvider(settings, overrides={"generator": model}))
        cand = write_candidate(ctx, "SYSTEM", "USER", CandidateSpec(strategy=strategy), 1, question="a?")
        assert cand.error is None and cand.sql == "SELECT a FROM t"
        assert cand.logprob == (pytest.approx(expected) if expected is not None else None)


def test_surprise_is_minus_the_chosen_candidates_logprob_and_0_when_unknown() -> None:
    def record(logprob: Any) -> dict[str, Any]:
        return {"pred_sql": "SELECT a FROM t", "status": "ok", "kind": "answer", "agreement": 1.0,
                "candidates": [{"index": 1, "strategy": "direct", "status": "ok", "row_count": 2,
                                "sql": "SELECT a FROM t", "logprob": logprob}]}

    assert confidence_features(record(-0.7))["surprise"] == pytest.approx(0.7)
    for unknown in (None, float("nan"), "x"):
        assert confidence_features(record(unknown))["surprise"] == 0.0
    assert not math.isnan(confidence_features(record(float("-inf")))["surprise"] or 0.0)


def test_the_endpoint_is_asked_for_logprobs_unless_turned_off() -> None:
    from core.llm import make_chat_model
    from core.settings_sections import LLMSettings

    on = make_chat_model(LLMSettings())
    off = make_chat_model(LLMSettings(logprobs=False))
    assert getattr(on, "logprobs", None) is True and getattr(on, "top_logprobs", None) == 1
    assert not getattr(off, "logprobs", None)
