"""SQL generation tool: several reasoned candidates per question, generated concurrently (or as a cascade).

Candidate strategies follow CHASE-SQL (Pourreza et al. 2024): Divide-and-Conquer chain-of-thought and
Query-Plan chain-of-thought, plus a ``direct`` prompt (SQL only, the single-candidate baseline). Which
candidates run (strategy, temperature, count) comes from :meth:`core.settings.Settings.candidate_specs`.
Every candidate is cleaned and checked by the read-only guard in the database's dialect (sqlglot) before any
execution; a failed candidate is kept with its error, so the trace shows it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from core.llm_retry import fallback_allowed
from core.settings import CandidateSpec
from database.connection import QueryResult
from database.guard import guard_sql
from knowledge.views import contract_views
from prompts import generator as prompt
from retrieval.values import ValueMatch
from rewrites.literals import degenerate
from rewrites.pipeline import rescued_by, run_phase
from tools.base import Tool, ToolCall, ToolContext, ToolResult, run_concurrently
from tools.candidate import Candidate, rewrite_inputs, system_prompt, write_candidate, write_repair
from tools.examples import on_topic, render_examples
from tools.execution import result_signature
from tools.knowledge import approved_views
from tools.opaque_columns import ColumnLink, link_opaque_columns, render_links
from tools.question_terms import reads_opaque_column
from tools.reuse import reusable_example
from tools.whole_schema import planned_whole_schema


class GenerateSQLArgs(BaseModel):
    """The question, the schema context and optional parts, each already rendered as prompt text.

    The schema context comes from retrieve_schema; the optional parts are few-shot examples, business
    definitions (from lookup_knowledge), resolved values (from search_values), table insights and
    conversation history.
    """

    question: str = Field(min_length=1, max_length=2000)
    schema_context: str = Field(min_length=1)
    examples: str = ""
    knowledge: str = ""
    joins: str = ""
    values: str = ""
    insights: str = ""
    history: str = ""
    approved: list[dict[str, Any]] = Field(default_factory=list, description="Retrieved examples, best first, "
                                           "for approved-answer reuse (tools.reuse).")
    matches: list[dict[str, Any]] = Field(default_factory=list, description="Confident value matches "
                                          "(ValueMatch dicts) for approved-answer reuse's entity guard.")
    tables: list[str] = Field(default_factory=list, description="Names of the tables in the schema context "
                              "(empty: not known, every table), for opaque-column linking.")


MIN_VALUE_SCORE = 90.0
"""Resolved values weaker than this (0-100) are not shown to the generator: a wrong hint misleads more than
no hint."""


def confident_matches(results: list[ToolResult]) -> list[dict[str, Any]]:
    """The value matches of ``search_values`` results scoring at least :data:`MIN_VALUE_SCORE`."""
    return [m for r in results for m in r.value.get("matches", []) if float(m.get("score", 0)) >= MIN_VALUE_SCORE]


def render_values(results: list[ToolResult]) -> str:
    """Prompt lines for the confident value matches of ``search_values`` results ('' when none)."""
    lines = [f"- {ValueMatch(**match).describe()}" for match in confident_matches(results)]
    return prompt.VALUES_HEADER + "\n".join(lines) + "\n\n" if lines else ""


def render_history(history: list[dict[str, Any]], limit: int = 2) -> str:
    """The last ``limit`` turns (question and SQL) for follow-up questions ('' without history)."""
    lines = [f"- Q: {t.get('question')}\n  SQL: {t.get('sql')}" for t in history[-limit:] if t.get("sql")]
    return prompt.HISTORY_HEADER + "\n".join(lines) + "\n\n" if lines else ""


def _rescue_empty(ctx: ToolContext, cand: Candidate, args: GenerateSQLArgs, *,
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
    inputs = rewrite_inputs(ctx, args.question, args.matches, got_rows=only_literals)
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


class GenerateSQLTool(Tool[GenerateSQLArgs]):
    """Returns ``kind="sql"``, ``value = {"sql", "candidates", "system", "context", "question"}``.

    ``sql`` is the first usable candidate, ``candidates`` every :class:`Candidate` (as dicts);
    ``system``/``context`` are the prompt parts the judge and verifier reuse (same prefix, so the server's
    prompt cache serves them). Fails (``ok=False``) only when no candidate is usable.
    """

    name = "generate_sql"
    result_kind = "sql"
    requires = ("retrieve_schema",)
    description = "write SQL candidates for the question (input: question plus the schema and examples ids)"
    Args = GenerateSQLArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> GenerateSQLArgs:
        """Schema context from referenced ``schema`` results, examples from ``examples`` results."""
        schemas = call.referenced("schema")
        if not schemas:
            raise ValueError("generate_sql needs the result of a successful retrieve_schema step")
        ranking = [pair for r in schemas for pair in r.value.get("ranking", [])]
        found = [ex for r in call.referenced("examples") for ex in r.value.get("examples", [])]
        views = approved_views(ctx.settings)
        if views:  # stored expanded; shown reading the views, as the model should write them
            found = [{**ex, "sql": contract_views(str(ex.get("sql", "")), views, ctx.db.dialect)} for ex in found]
        kept = on_topic(found, ranking, ctx.db.dialect)
        if ctx.settings.retrieval.examples_best_last:
            kept = kept[::-1]
        examples = render_examples(kept) if found else "\n".join(
            r.text for r in call.referenced("examples") if r.text)
        insights = "\n".join(r.text for r in call.referenced("insights") if r.text)
        paths = [p for r in schemas for p in r.value.get("join_paths", [])]
        return GenerateSQLArgs(
            question=call.question,
            schema_context="\n\n".join(r.text for r in schemas),
            examples=f"{prompt.EXAMPLES_HEADER}{examples}\n\n" if examples else "",
            knowledge="".join(r.text for r in call.referenced("knowledge")),
            joins=prompt.JOINS_HEADER + "\n".join(f"- {p}" for p in paths) + "\n\n" if paths else "",
            values=render_values(call.referenced("values")),
            insights=f"{prompt.INSIGHTS_HEADER}{insights}\n\n" if insights else "",
            history=render_history(ctx.history),
            approved=found,
            matches=confident_matches(call.referenced("values")),
            tables=[t for r in schemas for t in r.value.get("tables", [])],
        )

    def run(self, args: GenerateSQLArgs, ctx: ToolContext) -> ToolResult:
        """Generate every configured candidate (concurrently when enabled) and guard each one."""
        system = system_prompt(ctx.db.dialect, args.schema_context)
        specs = ctx.settings.candidate_specs()
        whole = planned_whole_schema(ctx.settings, ctx.db)
        if whole is None:  # not listed, too large for the context or unreadable: the linked listing alone
            specs = [s for s in specs if s.strategy != "whole_schema"]
        links: list[list[ColumnLink]] = []
        lock = threading.Lock()

        def column_links() -> str:
            """The opaque-column links, asked for once, when the first candidate that shows them is written."""
            with lock:
                if not links:
                    links.append(link_opaque_columns(ctx, system, args.question, args.tables))
                return render_links(links[0])

        def context(ask: bool = True) -> str:
            """The hinted candidates' context before the question, which repairs, the judge and verifier reuse.

            ``ask=False`` leaves the links out unless a candidate asked for them already (no call for reuse).
            """
            linked = column_links() if ask or links else ""
            return f"{args.knowledge}{args.history}{args.examples}{linked}{args.joins}{args.values}{args.insights}"

        def one(item: tuple[int, CandidateSpec], hints: bool = True, linked: bool = True) -> Candidate:
            index, spec = item
            template = prompt.TEMPLATES[spec.strategy]
            user = template.format(
                knowledge=args.knowledge, joins=args.joins, history=args.history, examples=args.examples,
                columns=column_links() if linked and "{columns}" in template else "",
                values=args.values if hints else "",
                insights=args.insights, question=args.question)
            own = whole if spec.strategy == "whole_schema" and whole else system
            cand = write_candidate(ctx, own, user, spec, index, question=args.question)
            cand.value_hints = hints and bool(args.values) and "{values}" in prompt.TEMPLATES[spec.strategy]
            if cand.sql and not cand.error:
                cand.sql, traces = run_phase("fresh", cand.sql, rewrite_inputs(ctx, args.question, args.matches))
                cand.rewrites += [t.as_dict() for t in traces if t.fired or t.note]
            return cand

        def fix(index: int, sql: str, problem: str) -> Candidate:
            cand, _ = write_repair(ctx, system, context(), args.question, sql, problem, index,
                                   label=f"candidate {index} repair")
            return cand

        items = list(enumerate(specs, start=1))
        reused = self._reuse(ctx, system, args)
        if reused is not None and not reused.error:
            candidates = [reused]
        elif ctx.settings.cascade_candidates():
            candidates = self._cascade(one, fix if ctx.settings.generation.repair_errors else None, items, ctx,
                                       args)
        else:
            candidates = run_concurrently(one, items, ctx.settings.parallel_candidates())
        if reused is not None and reused.error:
            candidates = [reused, *candidates]
        value = {"candidates": [c.model_dump() for c in candidates], "system": system, "context": context(ask=False),
                 "question": args.question, "opaque_links": [k.as_dict() for k in links[0]] if links else []}
        usable = [c for c in candidates if c.sql and not c.error]
        if not usable:
            error = "; ".join(f"candidate {c.index}: {c.error}" for c in candidates)
            return ToolResult(ok=False, kind="error", text=f"ERROR: {error}", error=error,
                              value={**value, "sql": candidates[0].sql if candidates else None})
        return ToolResult(ok=True, kind="sql", text=str(usable[0].sql), value={**value, "sql": usable[0].sql})

    @staticmethod
    def _reuse(ctx: ToolContext, system: str, args: GenerateSQLArgs) -> Candidate | None:
        """The approved example's SQL as candidate 0 when :func:`tools.reuse.reusable_example` finds one.

        Its ``error`` is set when it does not pass the guard or returns no rows here (the normal candidates then
        follow); None when there is nothing to reuse.
        """
        example = reusable_example(ctx, system, args.question, args.approved, args.matches)
        if example is None:
            return None
        cand = Candidate(index=0, strategy="approved", temperature=0.0,
                         reasoning=f"approved answer to: {example['question']}")
        verdict = guard_sql(str(example["sql"]), ctx.db.dialect)
        res = ctx.db.run_query(verdict.sql) if verdict.ok else None
        cand.sql = verdict.sql if verdict.ok else str(example["sql"])
        if res is None or not res.ok or not res.rows:
            cand.error = verdict.error if not verdict.ok else (res.error if res and not res.ok else "no rows")
        return cand

    @staticmethod
    def _cascade(one: Callable[[tuple[int, CandidateSpec], bool, bool], Candidate],
                 fix: Callable[[int, str, str], Candidate] | None,
                 items: list[tuple[int, CandidateSpec]], ctx: ToolContext, args: GenerateSQLArgs) -> list[Candidate]:
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
        NULL/0), the model-free rescues of :func:`_rescue_empty` are tried first: an ``intersected``, ``literal``,
        ``as_of``, ``relaxed`` or ``unasked`` candidate that ends the cascade if it has rows. Once
        ``generation.consistency.empty_agree`` candidates returned no rows and none returned any, the cascade
        stops: the empty result is the answer (the verifier may still try one repair).

        ``generation.link_opaque_hold_back`` can hold the opaque-column links (and the links call) back from
        the fresh candidates after the first: ``while_rows`` until an earlier candidate did not vote (its SQL
        failed, returned no rows or only NULL/0, with no rescue that has rows), ``while_readable_rows`` also
        until an earlier candidate's SQL read an opaque column (:func:`tools.question_terms.reads_opaque_column`).
        """
        made: list[Candidate] = []
        consistency = ctx.settings.generation.consistency
        ballot = Ballot(consistency.agree, consistency.empty_agree)
        hints, has_hints = True, bool(args.values)
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
                if res.ok and res.rows and not degenerate(res.rows):
                    if ballot.vote(res):
                        break
                    continue
                rescued = _rescue_empty(ctx, cand, args, only_literals=bool(res.rows)) if res.ok else None
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
