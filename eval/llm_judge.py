"""LLM-as-judge metric: CORRECT/INCORRECT of a predicted result against the reference answer table.

A call is made only when it can change the verdict: an exact execution match (EX = 1) is CORRECT and a
prediction without rows to compare (no SQL, an execution error) is INCORRECT without asking. The judge is the
``judge`` role's model unless the evaluation overrides it (``nl2sql eval --judge-model/--judge-base-url``).
Idea after the LLM-as-judge evaluation of text-to-SQL answers (e.g. Zheng et al. 2023, "Judging LLM-as-a-judge").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from core.llm import LLMError, LLMProvider, UsageLog, chat, invoke_structured
from database.results import format_cell
from prompts import eval_judge as prompt

PREVIEW_ROWS = 20


class JudgeVerdict(BaseModel):
    """The grader's reply."""

    verdict: Literal["CORRECT", "INCORRECT"] = Field(description="Whether the predicted answer is correct.")
    reason: str = Field("", max_length=200, description="One short sentence.")


def render_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], limit: int = PREVIEW_ROWS) -> str:
    """Pipe-separated text of the first ``limit`` rows (cells shortened by :func:`format_cell`)."""
    lines = [" | ".join(str(c) for c in columns)]
    lines += [" | ".join(format_cell(v) for v in row) for row in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"... ({len(rows) - limit} more rows)")
    return "\n".join(lines)


def judge_answer(llms: LLMProvider, usage: UsageLog, *, question: str, ordered: bool, ex: bool,
                 gold: tuple[Sequence[str], Sequence[Sequence[Any]]] | None,
                 pred: tuple[Sequence[str], Sequence[Sequence[Any]]] | None) -> dict[str, Any]:
    """The verdict for one question: ``{"verdict": "CORRECT" | "INCORRECT" | None, "reason", "called"}``.

    ``gold``/``pred`` are ``(columns, rows)`` or None when that query failed. ``verdict`` is None when the
    judge call itself failed (endpoint down, malformed JSON after retries); the reason says why.
    """
    if ex:
        return {"verdict": "CORRECT", "reason": "exact execution match", "called": False}
    if pred is None or gold is None:
        return {"verdict": "INCORRECT", "reason": "no result to compare", "called": False}
    user = prompt.USER.format(question=question, ordered="yes" if ordered else "no", gold_rows=len(gold[1]),
                              gold=render_table(*gold), pred_rows=len(pred[1]), pred=render_table(*pred))
    try:
        reply = invoke_structured(llms, "judge", chat(prompt.SYSTEM, user), JudgeVerdict, usage,
                                  label="eval judge")
    except LLMError as exc:
        return {"verdict": None, "reason": f"judge failed: {exc}"[:200], "called": True}
    return {"verdict": reply.verdict, "reason": reply.reason, "called": True}
