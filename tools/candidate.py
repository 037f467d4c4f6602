"""One SQL candidate: the structured generator call, cleaning, the guard, the SQL rewrite pipeline, and repairs.

Shared by the generation step (fresh candidates) and the verifier (repairs). A repair is a Query-Plan
chain-of-thought rewrite of a failing query given its problem and read-only probe results (self-correction with
execution feedback, DIN-SQL, Pourreza & Rafiei 2023; probing as in RAISE, Granado et al. 2025).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field, create_model

from core.llm import LLMError, chat, invoke_structured, invoke_text
from core.settings import CandidateSpec
from core.settings_candidates import FREE_TEXT
from core.token_logprobs import TokenLogprobs, span_mean
from database.guard import guard_sql
from knowledge.views import expand_views
from prompts import generator as prompt
from prompts import verifier as repair_prompt
from prompts.schema_prefix import schema_prefix
from rewrites.inputs import RewriteInputs
from rewrites.pipeline import run_phase
from tools.base import ToolContext
from tools.coverage import question_names_table
from tools.knowledge import approved_views, rewrite_knowledge
from tools.probes import plan_probes, run_probes

_FENCE = re.compile(r"^```(?:sql)?\s*|\s*```$", re.IGNORECASE)
_START = re.compile(r"\b(WITH|SELECT)\b", re.IGNORECASE)
_STATEMENT = re.compile(r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE|DROP|CREATE|ALTER|ATTACH|PRAGMA|REPLACE|TRUNCATE|"
                        r"GRANT|MERGE|VACUUM|EXEC|CALL|COPY)\b", re.IGNORECASE)
SQL_MAX_CHARS = 1500


class SQLAnswer(BaseModel):
    """Structured output of the ``direct`` strategy: one SQL statement (length-capped, so it cannot ramble)."""

    sql: str = Field(description="One read-only SQL query.", min_length=1, max_length=SQL_MAX_CHARS)


@functools.cache
def reasoned_answer_model(max_chars: int) -> type[BaseModel]:
    """Structured output of the chain-of-thought strategies: ``reasoning`` before ``sql``.

    ``reasoning`` comes first so the model reasons first; it has at most ``max_chars`` characters, enforced by
    the server's JSON grammar.
    """
    return create_model(
        "ReasonedSQL",
        reasoning=(str, Field(description="Short reasoning.", max_length=max_chars)),
        sql=(str, Field(description="One read-only SQL query.", min_length=1, max_length=SQL_MAX_CHARS)),
    )


class Candidate(BaseModel):
    """One generated SQL candidate: which prompt made it, its reasoning and SQL, or why it failed."""

    index: int = Field(description="1-based position among the question's candidates.")
    strategy: str
    temperature: float
    reasoning: str = ""
    sql: str | None = None
    error: str | None = Field(None, description="Generation or guard failure; None when the SQL is usable.")
    value_hints: bool = Field(True, description="The prompt carried the resolved values (when there were any).")
    rewrites: list[dict[str, Any]] = Field(default_factory=list, description="The rewrite steps that changed "
                                           "its SQL, in order (rewrites.inputs.StepTrace dicts).")
    logprob: float | None = Field(None, description="Mean log-probability (natural log, <= 0) of the tokens of "
                                  "the SQL as the model wrote it (sql_logprob); None when the endpoint sent none.")


_SQL_START = re.compile(r"\b(select|with)\b", re.IGNORECASE)


def sql_logprob(tokens: TokenLogprobs, structured: bool) -> float | None:
    """Mean log-probability of the SQL's tokens in a generator reply (``tokens``: core.token_logprobs pairs).

    A JSON reply (``structured``) is read from its last ``"sql"`` key to the end, so the reasoning before it does
    not count; a free-text reply from its first SELECT or WITH to the first semicolon or closing fence. None
    without tokens or without such a span. A low mean says the model hesitated over the query it wrote, the
    token-probability uncertainty signal of text-to-SQL confidence estimation (e.g. "Confidence Estimation for
    Error Detection in Text-to-SQL Systems", Somov and Tutubalina, AAAI 2025: a normalized sequence probability).
    """
    text = "".join(t for t, _ in tokens)
    if structured:
        start, end = text.rfind('"sql"'), None
        if start < 0:
            return None
    else:
        found = _SQL_START.search(text)
        if found is None:
            return None
        start = found.start()
        stops = [i for i in (text.find(";", start), text.find("```", start)) if i >= 0]
        end = min(stops) if stops else None
    return span_mean(tokens, start, end)


def clean_sql(text: str) -> str:
    """Strip code fences, surrounding whitespace and trailing semicolons from model-written SQL."""
    return _FENCE.sub("", text.strip()).strip().rstrip(";").strip()


def extract_sql(text: str) -> str:
    """The first SQL statement of a free-text model reply ("" when there is none).

    A reply that is a JSON object with an ``sql`` key gives that value; otherwise fences are stripped and the
    statement runs from the first SELECT/WITH to the first semicolon or closing fence (text the model adds
    after the query is dropped). A second SQL statement after the semicolon is kept, so the read-only guard
    refuses the reply instead of running its first half.
    """
    body = text.strip()
    if body.startswith("{"):
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and isinstance(parsed.get("sql"), str):
            body = parsed["sql"]
    body = clean_sql(body)
    match = _START.search(body)
    if not match:
        return ""
    statement = body[match.start():].split("```")[0]
    first, _, rest = statement.partition(";")
    if _STATEMENT.match(rest):  # a second statement: kept, so the guard refuses the reply as a whole
        return statement.strip().rstrip(";").strip()
    return first.strip()


def system_prompt(dialect: str, schema_context: str) -> str:
    """The system prompt shared by candidates, judge and verifier: the schema prefix, then the rules.

    Opens with :func:`prompts.schema_prefix.schema_prefix` (the bytes the insights step shares).
    """
    return prompt.SYSTEM.format(
        schema_prefix=schema_prefix(dialect, schema_context),
        dialect=dialect,
        dialect_rules=prompt.DIALECT_RULES.get(dialect, f"{dialect} dialect."),
    )


def write_candidate(ctx: ToolContext, system: str, user: str, spec: CandidateSpec, index: int,
                    label: str | None = None, *, question: str = "") -> Candidate:
    """One generator call with ``spec``'s output model and temperature; the SQL is cleaned, guarded, rewritten.

    Knowledge views the SQL reads become WITH clauses first (:func:`knowledge.views.expand_views`).

    The guarded SQL then goes through the deterministic rewrites of :func:`rewrite_sql`, recorded in
    ``Candidate.rewrites``.

    Never raises: LLM failures (endpoint down, malformed JSON after retries) and guard refusals (two
    statements, writes, unparsable SQL) come back in ``Candidate.error``.
    """
    cand = Candidate(index=index, strategy=spec.strategy, temperature=spec.temperature)
    label = label or f"candidate {index} {spec.strategy}"
    try:
        if spec.strategy in FREE_TEXT:  # free text, no grammar: the reply is cut to its first statement
            text = invoke_text(ctx.llms, "generator", chat(system, user), ctx.usage, temperature=spec.temperature,
                               max_tokens=ctx.settings.generation.consistency.plain_max_tokens, label=label)
            written = extract_sql(text)
            if not written:
                cand.error = "the reply held no SELECT statement"
                return cand
        else:
            schema: type[BaseModel] = (SQLAnswer if spec.strategy == "direct"
                                       else reasoned_answer_model(ctx.settings.generation.reasoning_max_chars))
            out = invoke_structured(ctx.llms, "generator", chat(system, user), schema, ctx.usage,
                                    temperature=spec.temperature, label=label)
            cand.reasoning = str(getattr(out, "reasoning", "") or "")
            written = clean_sql(str(getattr(out, "sql", "")))
    except LLMError as exc:
        cand.error = str(exc)
        return cand
    call = ctx.usage.last(label)
    cand.logprob = sql_logprob(call.token_logprobs, spec.strategy not in FREE_TEXT) if call else None
    cand.sql = expand_views(written, approved_views(ctx.settings), ctx.db.dialect)
    fixed, traces = run_phase("written", cand.sql, rewrite_inputs(ctx, question))
    verdict = guard_sql(fixed, ctx.db.dialect)
    if not verdict.ok:
        cand.error = verdict.error
        return cand
    cand.sql, cand.rewrites = rewrite_sql(ctx, verdict.sql, question)
    cand.rewrites = [t.as_dict() for t in traces if t.fired] + cand.rewrites
    return cand


def rewrite_inputs(ctx: ToolContext, question: str = "", matches: Sequence[dict[str, Any]] = (), *,
                   got_rows: bool = False) -> RewriteInputs:
    """The inputs of the SQL rewrite pipeline for one query of this question.

    The index catalog comes from :meth:`tools.base.ToolContext.catalog` (read once per question), the
    knowledge-derived inputs from :func:`tools.knowledge.rewrite_knowledge`, table naming from
    :func:`tools.coverage.question_names_table`; ``got_rows`` marks a rescue of one row of NULL/0.
    """
    return RewriteInputs(
        dialect=ctx.db.dialect, question=question, catalog=ctx.catalog(), db=ctx.db,
        knowledge=rewrite_knowledge(ctx.settings), matches=tuple(matches),
        names_table=functools.partial(question_names_table, question) if question else None,
        got_rows=got_rows, switches=ctx.settings.generation.rewrites)


def rewrite_sql(ctx: ToolContext, sql: str, question: str = "") -> tuple[str, list[dict[str, Any]]]:
    """The ``candidate`` phase of :mod:`rewrites.pipeline` on a guarded query: the SQL and the steps that fired.

    Each step (qualifiers, missing joins, period bounds, rate direction, unnamed codes, dangling joins, the
    simplifier, latest per series, window filters, answer conventions; :data:`rewrites.pipeline.STEPS`) is kept
    only when the guard accepts its output. Steps whose inputs are missing (no question, no index, no knowledge
    file) are skipped. Never raises.
    """
    out, traces = run_phase("candidate", sql, rewrite_inputs(ctx, question))
    return out, [t.as_dict() for t in traces if t.fired or t.note]


def write_repair(ctx: ToolContext, system: str, context: str, question: str, sql: str, problem: str,
                 index: int, *, attempt: int = 1, label: str | None = None) -> tuple[Candidate, list[str]]:
    """A repair of ``sql`` for ``problem`` (an error text, an empty result, a low score) and its probe lines.

    Runs at most ``generation.probe_limit`` read-only probes on the failing query (columns of its tables on a
    missing-column error, the closest stored values of its filter literals, never a sensitive column's), then
    asks the generator for a Query-Plan chain-of-thought repair at temperature 0 (the first attempt) or 0.5 (later ones). The candidate's
    ``strategy`` is ``"repair"``. Never raises (see :func:`write_candidate`).
    """
    probes = run_probes(ctx.db, plan_probes(sql, ctx.db.dialect, problem, ctx.settings.generation.probe_limit),
                        ctx.settings.retrieval.sensitive_patterns)
    user = repair_prompt.USER.format(
        context=context, question=question, sql=sql, problem=problem,
        probes=repair_prompt.PROBES_HEADER + "\n".join(probes) + "\n" if probes else "")
    spec = CandidateSpec(strategy="query_plan", temperature=0.0 if attempt == 1 else 0.5)
    cand = write_candidate(ctx, system, user, spec, index, label=label or f"repair {attempt}", question=question)
    cand.strategy = "repair"
    return cand, probes
