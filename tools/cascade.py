"""The candidate cascade: candidates written one at a time until their dry-run results agree.

Adaptive self-consistency (Aggarwal et al. 2023, "Let's Sample Step by Step: Adaptive-Consistency for Efficient
Reasoning and Coding with LLMs"): each candidate that returns rows votes for its result (:class:`Ballot`), and no
further candidate is written once ``generation.consistency.agree`` votes name one result. Empty or degenerate
results first get the model-free rescues of :func:`rescue_empty`; a failed dry run is repaired in the next turn
(DIN-SQL's self-correction, Pourreza and Rafiei 2023). The generation tool (:mod:`tools.generation`) supplies the
functions that write a fresh candidate or a repair.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.llm_retry import fallback_allowed
from core.settings import CandidateSpec
from database.results import QueryResult
from rewrites.literals import degenerate
from rewrites.pipeline import rescued_by, run_phase
from tools.base import ToolContext
from tools.candidate import Candidate, rewrite_inputs
from tools.execution import result_signature
from tools.question_terms import reads_opaque_column


def rescue_empty(ctx: ToolContext, cand: Candidate, question: str, matches: list[dict[str, Any]], *,
                 only_literals: bool = False) -> Candidate | None:
    """A model-free fix of a candidate whose result is empty or degenerate, when the fix returns real rows.

    The ``rescue`` phase of :mod:`rewrites.pipeline`, in order: filter literals in the stored spelling
    (``fix_literals``); dates the table has no row on read "as of" the last day before (``as_of_dates``); unless
    ``only_literals`` (the result was one row of NULL/0, not nothing), without inner joins to tables it never
    reads (``relax_joins``) and without filters on values the question does not name
    (``drop_unasked_filters``), both only when some filter value is not named by the question. The first fix
    that returns rows, after the candidate rewrites with the question, becomes a candidate whose strategy
    names the step. None when none applies.
    """
    inputs = rewrite_inputs(ctx, question, matches, got_rows=only_literals)
    fixed, traces = run_phase("rescue", cand.sql or "", inputs)
    step = rescued_by(traces)
    if step is None:
        cand.rewrites += [t.as_dict() for t in traces if t.note]  # fixes tried that still had no rows
        return None
    return Candidate(index=cand.index, strategy=step.label, temperature=cand.temperature, sql=fixed,
                     reasoning=step.reason, value_hints=cand.value_hints,
                     rewrites=[t.as_dict() for t in traces if t.fired or t.note])


class Ballot:
    """Votes of the cascade's candidates for their results (execution-based self-consistency).

    Results are compared by :func:`tools.execution.result_signature` (column count and the multiset of rows:
    order- and alias-insensitive), the grouping the execution step and the judge use.
    """

    def __init__(self, agree: int, empty_agree: int = 0) -> None:
        """A ballot decided at ``agree`` votes for one result (1: at the first result).

        It is also decided at ``empty_agree`` empty results while no result has a vote (0: never).
        """
        self.agree = agree
        self.empty_agree = empty_agree
        self.counts: dict[str, int] = {}
        self.empties = 0

    def vote(self, res: QueryResult) -> bool:
        """Count ``res`` (ignored when it failed); True once some result has ``agree`` votes."""
        if res.ok:
            signature = result_signature(res)
            self.counts[signature] = self.counts.get(signature, 0) + 1
        return max(self.counts.values(), default=0) >= self.agree

    def vote_empty(self) -> bool:
        """Count a candidate that ran and returned no rows; True once ``empty_agree`` (> 0) did and none has a vote.

        Adaptive-Consistency's stop (Aggarwal et al. 2023) with "nothing matches" as one more answer.
        """
        self.empties += 1
        return 0 < self.empty_agree <= self.empties and not self.counts


Respell = Callable[[str, str], "tuple[str, dict[str, Any]] | None"]
"""Given a failing query and its error, a rewritten query and a record of the change, or None."""


def _respelled(ctx: ToolContext, cand: Candidate, res: QueryResult, respell: Respell) -> QueryResult:
    """``res``, or the result of ``respell``'s query when it runs; the candidate then holds that query."""
    found = respell(cand.sql or "", res.error or "")
    if found is None:
        return res
    sql, record = found
    again = ctx.db.run_query(sql)
    if not again.ok:
        return res
    cand.rewrites.append({"step": "missing_column_choice", "phase": "candidate", "fired": True, "before": cand.sql,
                          "after": sql, "note": f"{record['written']} read as {record['table']}.{record['picked']}"})
    cand.sql = sql
    return again


def run_cascade(one: Callable[[tuple[int, CandidateSpec], bool, bool], Candidate],
                fix: Callable[[int, str, str], Candidate] | None,
                items: list[tuple[int, CandidateSpec]], ctx: ToolContext, question: str,
                matches: list[dict[str, Any]], has_hints: bool,
                respell: Respell | None = None) -> list[Candidate]:
    """Candidates in order until enough of them return the same rows (read-only dry runs); the rest are not made.

    Each candidate that returns rows votes for its result (:class:`Ballot`); the cascade stops once
    ``generation.consistency.agree`` votes name one result (1: at the first candidate with rows), else at the
    end of the list. The execution step then selects the largest group (adaptive self-consistency).

    No further candidate starts once the question has run ``generation.fallback_budget_s`` seconds. When a
    candidate that saw value hints runs but returns no rows, the next candidates are written without
    the hints: a value linked to a common word (a track called 'Country Feedback' for "country") makes an
    empty filter, and the fallback should not repeat it. When a candidate's dry run fails with a database
    error (a missing column, a type error) and ``fix`` is given (``generation.repair_errors``), the next
    candidate is a repair of that query which sees the error and probe results, in place of a fresh
    candidate that does not know what went wrong (DIN-SQL's self-correction): the number of calls stays
    the same, and the error's cause is usually one identifier (the whole-schema candidate is repaired only
    with ``generation.consistency.repair_whole_schema``). At most ``generation.repairs_in_a_row``
    repairs follow each other: a repair that fails as well is followed by the next fresh candidate, so one
    wrong table or column the model keeps writing cannot take every remaining slot. A repair takes a turn
    (the cascade makes at most as many candidates as the list has strategies), not a strategy: the next fresh
    candidate is the first strategy not yet written (plain after a repaired direct one). Candidates are
    numbered by turn. When a candidate returns no rows (or one row of
    NULL/0), the model-free rescues of :func:`rescue_empty` are tried first: an ``intersected``, ``literal``,
    ``as_of``, ``relaxed`` or ``unasked`` candidate that ends the cascade if it has rows. Once
    ``generation.consistency.empty_agree`` candidates returned no rows and none returned any, the cascade
    stops: the empty result is the answer (the verifier may still try one repair).

    ``respell`` (``generation.missing_column_choice``): when a candidate's query fails because a table has no
    column of the name it wrote, it is asked for the opaque column meant (:func:`tools.missing_column.respell_until_runs`:
    one pick per missing name, up to three) and the candidate reads those columns instead when the query then runs,
    before any repair.

    ``generation.link_opaque_hold_back`` can hold the opaque-column links (and the links call) back from
    the fresh candidates after the first: ``while_rows`` until an earlier candidate did not vote (its SQL
    failed, returned no rows or only NULL/0, with no rescue that has rows), ``while_readable_rows`` also
    until an earlier candidate's SQL read an opaque column (:func:`tools.question_terms.reads_opaque_column`).
    """
    made: list[Candidate] = []
    consistency = ctx.settings.generation.consistency
    ballot = Ballot(consistency.agree, consistency.empty_agree)
    hints = True
    failed: tuple[str, str] | None = None  # (sql, problem) of the last candidate whose dry run failed
    repairs = 0  # repairs in a row; at generation.repairs_in_a_row the next candidate is fresh
    fresh = list(items)  # strategies not yet written: a repair takes a turn, not a strategy
    hold_back = ctx.settings.generation.link_opaque_hold_back
    guessed = False  # an earlier candidate's SQL read an opaque column
    for turn in range(1, len(items) + 1):
        if made and not fallback_allowed(ctx.settings.generation.fallback_budget_s):
            break  # the question's soft time budget is spent: answer with what is there
        repairing = bool(failed and fix and repairs < ctx.settings.generation.repairs_in_a_row)
        if fix and failed and repairing:
            cand = fix(turn, *failed)
        elif fresh:
            linked = (hold_back == "never" or turn == 1 or sum(ballot.counts.values()) < turn - 1
                      or (hold_back == "while_readable_rows" and guessed))
            cand = one((turn, fresh.pop(0)[1]), hints, linked)
        else:
            break
        repairs = repairs + 1 if repairing else 0
        made.append(cand)
        if hold_back == "while_readable_rows" and not guessed and cand.sql:
            guessed = reads_opaque_column(cand.sql, ctx.db.dialect)
        failed = None
        if cand.sql and not cand.error:
            res = ctx.db.run_query(cand.sql)
            if not res.ok and respell is not None:
                res = _respelled(ctx, cand, res, respell)
            if res.ok and res.rows and not degenerate(res.rows):
                if ballot.vote(res):
                    break
                continue
            rescued = rescue_empty(ctx, cand, question, matches, only_literals=bool(res.rows)) if res.ok else None
            if rescued is not None:
                if res.rows:  # a NULL/0 aggregate: the respelled query replaces it in selection
                    cand.error = "superseded: its filter values were not spelled as stored"
                made.append(rescued)
                if ballot.vote(ctx.db.run_query(rescued.sql or "")):
                    break
                continue
            if res.ok and res.rows:
                if ballot.vote(res):
                    break
                continue
            if res.ok and has_hints and cand.value_hints:
                hints = False
            if res.ok and not res.rows and ballot.vote_empty():
                break
            if not res.ok and (cand.strategy != "whole_schema"
                               or ctx.settings.generation.consistency.repair_whole_schema):
                failed = (cand.sql, f"Error: {res.error}")
    return made
