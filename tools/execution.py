"""Guarded read-only execution of every SQL candidate, grouped by result (execution-based selection)."""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import BaseModel, Field

from database.results import QueryResult
from rewrites.simplify import complexity
from tools.audit import run_audited
from tools.base import Tool, ToolCall, ToolContext, ToolResult, run_concurrently
from tools.join_links import assumed_candidates
from tools.number_ranges import out_of_range_candidates

PREVIEW_ROWS = 10
GROUP_PREVIEW_ROWS = 5


class ExecuteSQLArgs(BaseModel):
    """The candidates to run: dicts with at least ``index`` and ``sql`` (and ``error`` when unusable)."""

    candidates: list[dict[str, Any]] = Field(min_length=1)
    carry: dict[str, Any] = Field(default_factory=dict, description="Prompt parts passed on to judge/verifier.")


def result_signature(res: QueryResult) -> str:
    """Order-insensitive fingerprint of a result (column count plus the multiset of rows)."""
    rows = sorted(repr(tuple(r)) for r in res.rows)
    return hashlib.sha1(f"{len(res.columns)}|{rows}".encode()).hexdigest()[:16]


def execute_candidates(ctx: ToolContext, candidates: list[dict[str, Any]], parallel: bool = True
                       ) -> tuple[list[dict[str, Any]], dict[int, QueryResult]]:
    """Run each usable candidate once (identical SQL is run once), concurrently when ``parallel``.

    Returns ``(outcomes, results)``: one outcome per candidate (``index, strategy, sql, status`` in
    ok | empty | error | invalid, ``row_count``, ``error``, ``signature``, ``rewrites``: the rewrite steps that
    changed it, ``logprob``: the mean token log-probability of its SQL or None) and the query results of the
    candidates that ran, by candidate index. Each run is reported to the SQL audit (:mod:`tools.audit`).
    """
    distinct = sorted({str(c["sql"]) for c in candidates if c.get("sql") and not c.get("error")})
    ran = dict(zip(distinct, run_concurrently(lambda sql: run_audited(ctx.db, sql), distinct, parallel),
                   strict=True))
    outcomes, results = [], {}
    for c in candidates:
        out = {"index": c.get("index", 1), "strategy": c.get("strategy", "given"), "sql": c.get("sql"),
               "reasoning": c.get("reasoning", ""), "row_count": 0, "error": c.get("error"), "signature": None,
               "rewrites": c.get("rewrites", []), "logprob": c.get("logprob")}
        if out["error"] or not out["sql"]:
            out["status"] = "invalid"
            out["error"] = out["error"] or "no SQL"
        else:
            res = ran[str(out["sql"])]
            results[out["index"]] = res
            if not res.ok:
                out.update(status="error", error=res.error)
            else:
                out.update(status="ok" if res.rows else "empty", row_count=len(res.rows),
                           signature=result_signature(res))
        outcomes.append(out)
    return outcomes, results


def simplest(outcomes: list[dict[str, Any]], dialect: str) -> dict[str, Any]:
    """The outcome with the simplest SQL (:func:`rewrites.simplify.complexity`; ties: the earliest)."""
    return min(outcomes, key=lambda o: complexity(str(o["sql"]), dialect))


def selection_value(outcomes: list[dict[str, Any]], results: dict[int, QueryResult], chosen: int,
                    carry: dict[str, Any], dialect: str = "sqlite") -> dict[str, Any]:
    """The payload of a ``rows`` result: the chosen candidate's full result plus every outcome.

    The distinct results are kept as groups (``members``; ``representative`` and its ``sql``: the simplest
    member, see :func:`simplest`; ``columns``, ``preview``, ``row_count``), largest first. ``carry`` (prompt
    parts, question, judge/verifier records) is kept.
    """
    res = results[chosen]
    members: dict[str, list[dict[str, Any]]] = {}
    for o in outcomes:
        if o["status"] in ("ok", "empty"):
            members.setdefault(o["signature"], []).append(o)
    groups: dict[str, dict[str, Any]] = {}
    for signature, same in members.items():
        rep = simplest(same, dialect)
        groups[signature] = {"members": [o["index"] for o in same], "sql": rep["sql"], "status": rep["status"],
                             "representative": rep["index"]}
    group_list = sorted(groups.values(), key=lambda g: -len(g["members"]))
    for g in group_list:
        r = results[g["representative"]]
        g.update(columns=list(r.columns), preview=[list(x) for x in r.rows[:GROUP_PREVIEW_ROWS]],
                 row_count=len(r.rows))
    return {
        **carry,
        "sql": res.sql, "columns": list(res.columns), "rows": [list(r) for r in res.rows],
        "truncated": res.truncated, "row_count": len(res.rows), "selected": chosen,
        "outcomes": outcomes, "groups": group_list,
        "all_empty": all(g["status"] == "empty" for g in group_list),
    }


def pick_majority(outcomes: list[dict[str, Any]], dialect: str = "sqlite") -> int | None:
    """Index of the simplest member of the largest non-empty result group (self-consistency).

    Ties between groups go to the group whose first member came first; within the group the simplest SQL
    wins (:func:`simplest`): candidates that agree on the result are equivalent here, and the simplest is the
    one an analyst reads best. It points to an empty result only when every result is empty; it is None when
    nothing ran successfully.
    """
    for wanted in ("ok", "empty"):
        sizes: dict[str, int] = {}
        for o in outcomes:
            if o["status"] == wanted:
                sizes[o["signature"]] = sizes.get(o["signature"], 0) + 1
        if sizes:
            best = max(sizes.values())
            first = next(o for o in outcomes if o["status"] == wanted and sizes[o["signature"]] == best)
            same = [o for o in outcomes if o["status"] == wanted and o["signature"] == first["signature"]]
            return int(simplest(same, dialect)["index"])
    return None


def strict_majority(outcomes: list[dict[str, Any]]) -> bool:
    """True when one result holds more than half of the outcomes with status ``ok`` (False when none has it)."""
    sizes: dict[str, int] = {}
    for o in outcomes:
        if o["status"] == "ok":
            sizes[o["signature"]] = sizes.get(o["signature"], 0) + 1
    return bool(sizes) and 2 * max(sizes.values()) > sum(sizes.values())


def select_candidate(ctx: ToolContext, outcomes: list[dict[str, Any]]) -> tuple[int | None, list[int], list[int]]:
    """The selected candidate's index (:func:`pick_majority`) and the candidates left out of the vote, by reason.

    With ``generation.range_check``, candidates whose numeric conditions the stored values argue against
    (:func:`tools.number_ranges.out_of_range_candidates`) do not vote while another candidate that ran is left
    (the second item, sorted). Then, with ``generation.stated_joins_vote`` and no result holding more than half
    of the remaining candidates that returned rows, candidates that join on a link no stated key makes
    (:func:`tools.join_links.assumed_candidates`) do not vote while one that does not returned rows (the third
    item). None when nothing ran; both lists are [] when nobody was left out.
    """
    left_out: set[int] = set()
    if ctx.settings.generation.range_check:
        try:
            left_out = out_of_range_candidates(ctx.db, outcomes)
        except Exception:  # noqa: BLE001 - a failing check must not lose the answer
            left_out = set()
    voters = [o for o in outcomes if o["index"] not in left_out]
    if left_out and pick_majority(voters, ctx.db.dialect) is None:
        left_out, voters = set(), outcomes
    assumed: set[int] = set()
    if ctx.settings.generation.stated_joins_vote and not strict_majority(voters):
        try:
            assumed = assumed_candidates(ctx.db, voters)
        except Exception:  # noqa: BLE001 - a failing check must not lose the answer
            assumed = set()
        if not any(o["status"] == "ok" and o["index"] not in assumed for o in voters):
            assumed = set()
    chosen = pick_majority([o for o in voters if o["index"] not in assumed], ctx.db.dialect)
    return chosen, sorted(left_out), sorted(assumed)


def failure_value(outcomes: list[dict[str, Any]], carry: dict[str, Any]) -> dict[str, Any]:
    """The payload of a failed execution: every outcome (with its error) and the carried prompt parts."""
    return {**carry, "sql": next((o["sql"] for o in outcomes if o["sql"]), None), "outcomes": outcomes,
            "groups": [], "all_empty": False}


class ExecuteSQLTool(Tool[ExecuteSQLArgs]):
    """Runs every candidate through :meth:`database.connection.Database.run_query`, in parallel.

    Each run has the guard, read-only access, the timeout and the row cap.

    Returns ``kind="rows"`` with :func:`selection_value` (the majority result selected; failures and empty
    results dropped, one empty result kept when all are empty), or ``ok=False`` with :func:`failure_value`
    when no candidate ran. The ``text`` previews at most 10 rows of the selected result.
    """

    name = "execute_sql"
    result_kind = "rows"
    requires = ("generate_sql",)
    description = "run the SQL candidates of a generate_sql step, read-only (input: that step's id)"
    Args = ExecuteSQLArgs
    handles_failures = True  # a generation whose candidates were all refused is passed on to the verifier

    def build_args(self, call: ToolCall, ctx: ToolContext) -> ExecuteSQLArgs:
        """Candidates of the referenced generate_sql result; otherwise the literal input (manual runs).

        A failed generate_sql result counts too: its refused candidates are recorded so the verifier can
        repair them.
        """
        sql_results = call.referenced("sql") or [r for r in call.refs.values() if "candidates" in r.value]
        if sql_results:
            value = sql_results[-1].value
            carry = {k: value[k] for k in ("system", "context", "question") if k in value}
            candidates = value.get("candidates") or [{"index": 1, "strategy": "given", "sql": value["sql"]}]
            return ExecuteSQLArgs(candidates=candidates, carry=carry)
        if any(not r.ok for r in call.refs.values()):
            raise ValueError("the SQL to execute was not produced (an earlier step failed)")
        return ExecuteSQLArgs(candidates=[{"index": 1, "strategy": "given", "sql": call.input}])

    def run(self, args: ExecuteSQLArgs, ctx: ToolContext) -> ToolResult:
        """Execute, group by result and select the majority result."""
        outcomes, results = execute_candidates(ctx, args.candidates, True)
        chosen, left_out, assumed = select_candidate(ctx, outcomes)
        if chosen is None:
            error = "; ".join(f"candidate {o['index']}: {o['error']}" for o in outcomes)
            return ToolResult(ok=False, kind="error", text=f"ERROR: {error}", error=error,
                              value=failure_value(outcomes, args.carry))
        value = selection_value(outcomes, results, chosen, args.carry, ctx.db.dialect)
        return rows_result({**value, "range_left_out": left_out, "assumed_left_out": assumed}, results[chosen])


def preview_text(value: dict[str, Any]) -> str:
    """Header and first 10 rows of a ``rows`` value, ``|``-separated (the text later steps see)."""
    rows = value.get("rows", [])[:PREVIEW_ROWS]
    return "\n".join(" | ".join(str(v) for v in r) for r in [value.get("columns", []), *rows])


def rows_result(value: dict[str, Any], res: QueryResult) -> ToolResult:
    """A ``rows`` tool result for ``value`` whose selected result is ``res``."""
    return ToolResult(ok=True, kind="rows", text=res.preview(PREVIEW_ROWS), value=value)
