"""SQL generation tool: several reasoned candidates per question, generated concurrently (or as a cascade).

Candidate strategies follow CHASE-SQL (Pourreza et al. 2024): Divide-and-Conquer chain-of-thought and
Query-Plan chain-of-thought, plus a ``direct`` prompt (SQL only, the single-candidate baseline). Which
candidates run (strategy, temperature, count) comes from :meth:`core.settings.Settings.candidate_specs`.
Every candidate is cleaned and checked by the read-only guard in the database's dialect (sqlglot) before any
execution; a failed candidate is kept with its error, so the trace shows it.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel, Field

from core.settings import CandidateSpec
from database.guard import guard_sql
from knowledge.views import contract_views
from prompts import generator as prompt
from retrieval.values import ValueMatch
from rewrites.pipeline import run_phase
from tools.base import Tool, ToolCall, ToolContext, ToolResult, run_concurrently
from tools.candidate import Candidate, rewrite_inputs, system_prompt, write_candidate, write_repair
from tools.cascade import run_cascade
from tools.example_glossary import opaque_glossary, render_glossary
from tools.examples import on_topic, render_examples
from tools.knowledge import approved_views
from tools.missing_column import respell_until_runs
from tools.opaque_columns import ColumnLink, link_opaque_columns, render_links
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
        if whole and ctx.settings.retrieval.example_glossary:  # the same examples' words, for every table
            glossary = render_glossary(opaque_glossary(ctx.db, ctx.store, ctx.settings.knowledge.use_drafts))
            whole = f"{whole}\n\n{glossary}" if glossary else whole
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
            def respell(sql: str, error: str) -> tuple[str, dict[str, Any]] | None:
                return respell_until_runs(ctx, system, args.question, sql, error)

            candidates = run_cascade(one, fix if ctx.settings.generation.repair_errors else None, items, ctx,
                                     args.question, args.matches, bool(args.values),
                                     respell if ctx.settings.generation.missing_column_choice else None)
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
