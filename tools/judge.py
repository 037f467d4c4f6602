"""LLM judge: picks the best of the candidates' distinct results.

Each surviving (SQL, result preview) pair is scored 1-5 on relevance, correctness/consistency and
completeness/clarity; the best normalised score wins (ties: the larger agreeing group, then the earlier
candidate). Candidates that agree are one group, so when every surviving candidate returned the same result
the judge call is skipped: agreement is enough (execution-based self-consistency). Selection by an LLM judge
over execution results follows CHASE-SQL (Pourreza et al. 2024), which trains a pairwise selector instead.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from core.llm import LLMError, chat, invoke_structured
from prompts import judge as prompt
from tools.base import Tool, ToolCall, ToolContext, ToolResult
from tools.execution import preview_text, rows_result

MAX_GROUPS = 6
"""At most this many distinct results go to the judge (largest groups first)."""


class CandidateScore(BaseModel):
    """The judge's scores of one candidate result (1 = bad, 5 = good)."""

    candidate: int = Field(ge=1, le=MAX_GROUPS, description="Candidate number as listed.")
    relevance: int = Field(ge=1, le=5)
    correctness: int = Field(ge=1, le=5)
    completeness: int = Field(ge=1, le=5)

    @property
    def normalised(self) -> float:
        """Sum of the three scores mapped to 0..1."""
        return (self.relevance + self.correctness + self.completeness - 3) / 12


class JudgeVerdict(BaseModel):
    """Structured output of the judge: scores per listed candidate."""

    scores: list[CandidateScore] = Field(min_length=1, max_length=MAX_GROUPS)


class JudgeArgs(BaseModel):
    """The execution result to judge (``rows`` value with ``groups``), or the failure to pass on."""

    value: dict[str, Any]
    ok: bool
    error: str | None = None


def render_candidates(groups: list[dict[str, Any]]) -> str:
    """The numbered candidate list of the judge prompt (SQL and a result preview per distinct result)."""
    parts = []
    for number, g in enumerate(groups, start=1):
        rows = "\n".join("      " + " | ".join(str(v)[:40] for v in r) for r in g["preview"])
        parts.append(prompt.CANDIDATE.format(number=number, sql=g["sql"], row_count=g["row_count"],
                                             columns=", ".join(g["columns"]),
                                             preview=f"\n{rows}" if rows else ""))
    return "\n".join(parts)


def has_majority(groups: list[dict[str, Any]]) -> bool:
    """True when the first (largest) of ``groups`` has at least two members and more than any other group."""
    sizes = sorted((len(g["members"]) for g in groups), reverse=True)
    return bool(sizes) and sizes[0] >= 2 and (len(sizes) == 1 or sizes[0] > sizes[1])


def ties_to_earliest(ctx: ToolContext) -> bool:
    """Whether a tie between result groups goes to the earliest candidate's group without a judge call.

    ``generation.consistency.ties``; ``auto`` is ``earliest`` when the candidates are written as a cascade (the
    small profile, whose list is in order of trust, the whole-schema candidate first) and ``judge`` when they
    are written all at once (the large profile).
    """
    ties = ctx.settings.generation.consistency.ties
    if ties == "auto":
        return ctx.settings.cascade_candidates()
    return ties == "earliest"


def judge_groups(ctx: ToolContext, value: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Pick a candidate among ``value["groups"]``; returns ``(candidate index, judge record)``.

    The record has ``skipped`` (reason: agreement, a strict majority when
    ``generation.consistency.majority_skips_judge``, a tie kept for the earliest candidate when
    :func:`ties_to_earliest`, or all results empty) when no LLM call was needed, else ``scores`` (one per group:
    ``members``, the three scores, ``score`` in 0..1) and ``best_score``; ``error`` when the call failed (the
    majority result is kept then). Never raises.
    """
    groups = [g for g in value.get("groups", []) if g["status"] == "ok"][:MAX_GROUPS]
    if len(groups) <= 1:
        reason = "agreement" if groups else "all results empty"
        return value["selected"], {"skipped": reason, "best_score": None}
    if ctx.settings.generation.consistency.majority_skips_judge and has_majority(groups):
        return value["selected"], {"skipped": "majority", "best_score": None}
    if ties_to_earliest(ctx) and not has_majority(groups):  # the execution step picked the earliest group
        return value["selected"], {"skipped": "tie to the earliest candidate", "best_score": None}
    user = prompt.USER.format(context=value.get("context", ""), question=value.get("question", ""),
                              candidates=render_candidates(groups))
    try:
        verdict = invoke_structured(ctx.llms, "judge", chat(value.get("system", ""), user), JudgeVerdict,
                                    ctx.usage, label="judge")
    except LLMError as exc:
        return value["selected"], {"error": str(exc), "best_score": None}
    by_number = {s.candidate: s for s in verdict.scores}
    scored = []
    for number, g in enumerate(groups, start=1):
        s = by_number.get(number)
        scored.append({"members": g["members"], "representative": g["representative"],
                       "score": round(s.normalised, 3) if s else 0.0,
                       **({"relevance": s.relevance, "correctness": s.correctness,
                           "completeness": s.completeness} if s else {})})
    best = max(scored, key=lambda x: (x["score"], len(x["members"]), -x["representative"]))
    return best["representative"], {"scores": scored, "best_score": best["score"]}


def reselect(ctx: ToolContext, value: dict[str, Any], chosen: int, record: dict[str, Any],
             key: str = "judge") -> ToolResult:
    """The ``rows`` result for candidate ``chosen``, with ``record`` stored under ``value[key]``.

    The candidate is re-run when it is not the one already selected.
    """
    if chosen == value.get("selected"):
        return ToolResult(ok=True, kind="rows", text=preview_text(value), value={**value, key: record})
    sql = next(o["sql"] for o in value["outcomes"] if o["index"] == chosen)
    res = ctx.db.run_query(sql)
    if not res.ok:  # should not happen (it ran a moment ago); keep the earlier selection
        return ToolResult(ok=True, kind="rows", text=preview_text(value), value={**value, key: {**record,
                          "error": f"re-run of candidate {chosen} failed: {res.error}"}})
    new = {**value, "sql": res.sql, "columns": list(res.columns), "rows": [list(r) for r in res.rows],
           "truncated": res.truncated, "row_count": len(res.rows), "selected": chosen, key: record}
    return rows_result(new, res)


class JudgeSQLTool(Tool[JudgeArgs]):
    """Judge step: returns the execute step's ``rows`` result with the judge's pick selected.

    The judge's record is in ``value["judge"]``; a failed execution is passed on unchanged (the verifier
    repairs it).
    """

    name = "judge_sql"
    result_kind = "rows"
    requires = ("execute_sql",)
    planned = False
    description = "pick the best candidate result (input: the execute_sql step id)"
    Args = JudgeArgs
    handles_failures = True

    def build_args(self, call: ToolCall, ctx: ToolContext) -> JudgeArgs:
        """The referenced execution result (successful or not)."""
        ref = call.last_ref()
        if ref is None or "outcomes" not in ref.value:
            raise ValueError("judge_sql needs the result of an execute_sql step")
        return JudgeArgs(value=ref.value, ok=ref.ok, error=ref.error)

    def run(self, args: JudgeArgs, ctx: ToolContext) -> ToolResult:
        """Score and select (no LLM call when the results agree)."""
        if not args.ok:
            return ToolResult(ok=False, kind="error", text=f"ERROR: {args.error}", error=args.error,
                              value={**args.value, "judge": {"skipped": "no candidate ran"}})
        chosen, record = judge_groups(ctx, args.value)
        return reselect(ctx, args.value, chosen, record)
