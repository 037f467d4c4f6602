"""Verifier: repairs the query when its candidates failed, came back empty or scored too low.

That is when every candidate failed, every result was empty, or the judge's best score is under the
threshold. An accepted result gets the column-choice check instead (:mod:`tools.column_choice`, with
``generation.column_choice``): a readable look-alike column read for a question word, in a table with opaque
columns, is put to the model as one multiple-choice question.

Each attempt (at most ``generation.verifier_retries``) runs read-only probes (:mod:`tools.probes`), asks the
generator for a Query-Plan chain-of-thought repair given the problem and the probe results, guards and
executes it, and re-judges it against the earlier results when there were any (self-correction with
execution feedback as in DIN-SQL, Pourreza & Rafiei 2023; probing as in RAISE, Granado et al. 2025).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from core.llm_retry import fallback_allowed
from prompts import verifier as prompt
from tools.base import Tool, ToolCall, ToolContext, ToolResult
from tools.candidate import write_repair
from tools.column_choice import check_columns
from tools.execution import execute_candidates, preview_text, rows_result, select_candidate, selection_value
from tools.judge import judge_groups, reselect


class VerifyArgs(BaseModel):
    """The judged result (``rows``) or the failure to repair."""

    value: dict[str, Any]
    ok: bool
    error: str | None = None


def diagnose(ok: bool, error: str | None, value: dict[str, Any], threshold: float) -> tuple[str, str] | None:
    """``(sql, problem)`` to repair, or None when the result is acceptable."""
    if not ok:
        failing = next((o for o in value.get("outcomes", []) if o.get("sql")), None)
        return (failing["sql"], f"Error: {failing['error']}") if failing else None
    if value.get("all_empty"):
        return value["sql"], prompt.EMPTY
    score = (value.get("judge") or {}).get("best_score")
    if score is not None and score < threshold:
        return value["sql"], prompt.LOW_SCORE.format(score=score)
    return None


class VerifySQLTool(Tool[VerifyArgs]):
    """Verifier step: the judged result unchanged when acceptable (no LLM call but the column-choice check's), else the repaired one.

    ``value["verifier"]`` records ``needed``, the ``problem`` and each attempt (SQL, probes, outcome). When
    every attempt fails, the original result is returned (an error stays an error; an empty result stays
    empty, and the answer says so).
    """

    name = "verify_sql"
    result_kind = "rows"
    requires = ("judge_sql", "execute_sql")
    planned = False
    description = "repair the query when it failed, was empty or scored low (input: the judge_sql step id)"
    Args = VerifyArgs
    handles_failures = True

    def build_args(self, call: ToolCall, ctx: ToolContext) -> VerifyArgs:
        """The referenced judge (or execution) result."""
        ref = call.last_ref()
        if ref is None or "outcomes" not in ref.value:
            raise ValueError("verify_sql needs the result of a judge_sql or execute_sql step")
        return VerifyArgs(value=ref.value, ok=ref.ok, error=ref.error)

    def run(self, args: VerifyArgs, ctx: ToolContext) -> ToolResult:
        """Repair with bounded retries; see the class docstring."""
        gen = ctx.settings.generation
        found = diagnose(args.ok, args.error, args.value, gen.judge_threshold)
        if found is None:
            if not (gen.column_choice and args.ok and fallback_allowed(gen.fallback_budget_s)):
                return self._unchanged(args, {"needed": False})
            checked, choice = check_columns(ctx, args.value)
            kept = {"needed": False, **({"column_choice": choice} if choice else {})}
            if checked is not None:
                checked.value["verifier"] = kept
                return checked
            return self._unchanged(args, kept)
        sql, problem = found
        value = args.value
        attempts: list[dict[str, Any]] = []
        keep = [o for o in value.get("outcomes", []) if o["status"] == "ok"]
        next_index = 1 + max((o["index"] for o in value.get("outcomes", [])), default=0)
        # an empty result may be the right answer (nothing matches): one repair attempt, not all of them
        attempts_allowed = min(1, gen.verifier_retries) if args.ok and value.get("all_empty") else gen.verifier_retries
        for attempt in range(attempts_allowed):
            if not fallback_allowed(gen.fallback_budget_s):
                attempts.append({"attempt": attempt + 1, "problem": problem, "outcome": "not started: time budget"})
                break
            cand, probes = write_repair(ctx, value.get("system", ""), value.get("context", ""),
                                        value.get("question", ""), sql, problem, next_index, attempt=attempt + 1,
                                        label=f"verifier repair {attempt + 1}")
            cand.strategy = "verifier"
            record: dict[str, Any] = {"attempt": attempt + 1, "problem": problem, "probes": probes,
                                      "sql": cand.sql, "reasoning": cand.reasoning}
            attempts.append(record)
            if cand.error or not cand.sql:
                record["outcome"] = cand.error or "no SQL"
                problem = f"Error: {cand.error}"
                sql = cand.sql or sql
                next_index += 1
                continue
            outcomes, results = execute_candidates(ctx, [*keep, cand.model_dump()], True)
            mine = outcomes[-1]
            record["outcome"] = mine["status"] if mine["status"] != "error" else mine["error"]
            if mine["status"] != "ok":
                problem = prompt.EMPTY if mine["status"] == "empty" else f"Error: {mine['error']}"
                sql = cand.sql
                next_index += 1
                continue
            carry: dict[str, Any] = {k: value[k] for k in ("system", "context", "question") if k in value}
            picked, left_out, assumed = select_candidate(ctx, outcomes)
            new_value = {**selection_value(outcomes, results, picked or mine["index"], carry, ctx.db.dialect),
                         "range_left_out": left_out, "assumed_left_out": assumed}
            rerun = {o["index"] for o in outcomes}  # keep the failed/empty originals in the record too
            new_value["outcomes"] = sorted([*(o for o in value.get("outcomes", []) if o["index"] not in rerun),
                                            *outcomes], key=lambda o: o["index"])
            new_value["judge"] = value.get("judge")
            verifier = {"needed": True, "repaired": True, "attempts": attempts}
            if keep:  # earlier results exist: let the judge compare them with the repair
                chosen, judge_record = judge_groups(ctx, new_value)
                new_value["judge"] = judge_record
                return reselect(ctx, {**new_value, "verifier": verifier}, chosen, judge_record)
            return rows_result({**new_value, "verifier": verifier}, results[new_value["selected"]])
        return self._unchanged(args, {"needed": True, "repaired": False, "attempts": attempts})

    @staticmethod
    def _unchanged(args: VerifyArgs, record: dict[str, Any]) -> ToolResult:
        value = {**args.value, "verifier": record}
        if not args.ok:
            return ToolResult(ok=False, kind="error", text=f"ERROR: {args.error}", error=args.error, value=value)
        return ToolResult(ok=True, kind="rows", text=preview_text(value), value=value)
