"""The graph's state: what flows from the question through the plan's steps to the answer."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from agent.plan import Plan
from tools.base import ToolResult
from tools.organizer import Answer


def merge_results(
    left: dict[str, ToolResult] | None, right: dict[str, ToolResult] | None
) -> dict[str, ToolResult]:
    """Reducer for ``results``: step results accumulate by step id.

    ``None`` (sent with a new question) starts the turn from ``{}``.
    """
    return {} if right is None else {**(left or {}), **right}


def extend_or_reset(
    left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """Reducer for ``trace`` and ``usage``: appends; ``None`` (sent with a new question) starts a new log."""
    return [] if right is None else [*(left or []), *right]


class AgentState(TypedDict, total=False):
    """State of one turn of the ReWOO agent.

    Fields:
        question: the analyst's question as typed.
        history: earlier turns of the thread, compact (question, SQL, result shape); newest last.
        plan: the plan being executed (the planner's, or the standard plan when it was invalid).
        plan_source: "planner" when the LLM's plan is used, "fallback" when the standard plan replaced it.
        plan_error: why the planner's plan was rejected (None when it was used).
        results: evidence by step id (``"#E1"`` -> :class:`~tools.base.ToolResult`).
        step_index: index of the next plan step to run (0-based).
        answer: the solver's final answer.
        trace: one record per node visit: node, step id, tool, input, latency (s), ok, error.
        usage: one record per LLM call of this turn: role, latency_s, prompt/completion tokens, ok, error.
    """

    question: str
    history: list[dict[str, Any]]
    plan: Plan
    plan_source: str
    plan_error: str | None
    results: Annotated[dict[str, ToolResult], merge_results]
    step_index: int
    answer: Answer
    trace: Annotated[list[dict[str, Any]], extend_or_reset]
    usage: Annotated[list[dict[str, Any]], extend_or_reset]
