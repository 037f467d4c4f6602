"""One SQL candidate: the structured generator call, cleaning, the guard, the simplifier, and repairs.

Shared by the generation step (fresh candidates) and the verifier (repairs). A repair is a Query-Plan
chain-of-thought rewrite of a failing query given its problem and read-only probe results (self-correction with
execution feedback, DIN-SQL, Pourreza & Rafiei 2023; probing as in RAISE, Granado et al. 2025).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from pydantic import BaseModel, Field, create_model

from core.llm import LLMError, chat, invoke_structured
from core.settings import CandidateSpec
from database.as_of import latest_per_series
from database.dangling import prune_dangling_joins
from database.guard import guard_sql
from database.missing_join import add_missing_joins
from database.qualify import fix_qualifiers
from database.simplify import simplify_sql
from database.window_scope import lift_window_filters
from knowledge.views import expand_views
from prompts import generator as prompt
from prompts import verifier as repair_prompt
from prompts.schema_prefix import schema_prefix
from retrieval.hybrid import TableCatalog, load_catalog
from tools.answer_shape import apply_conventions, conventions_of
from tools.base import ToolContext
from tools.code_filters import fix_code_filters
from tools.coverage import question_names_table
from tools.knowledge import approved_codes, approved_presentations, approved_rates, approved_views
from tools.period_dates import align_period_dates
from tools.probes import plan_probes, run_probes
from tools.rate_direction import fix_rate_direction

_FENCE = re.compile(r"^```(?:sql)?\s*|\s*```$", re.IGNORECASE)
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


def clean_sql(text: str) -> str:
    """Strip code fences, surrounding whitespace and trailing semicolons from model-written SQL."""
    return _FENCE.sub("", text.strip()).strip().rstrip(";").strip()


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
    """One generator call with ``spec``'s output model and temperature; the SQL is cleaned, guarded, simplified.

    Knowledge views the SQL reads become WITH clauses first (:func:`knowledge.views.expand_views`).

    The guarded SQL then goes through the deterministic rewrites of :func:`rewrite_sql`.

    Never raises: LLM failures (endpoint down, malformed JSON after retries) and guard refusals (two
    statements, writes, unparsable SQL) come back in ``Candidate.error``.
    """
    cand = Candidate(index=index, strategy=spec.strategy, temperature=spec.temperature)
    schema: type[BaseModel] = (SQLAnswer if spec.strategy == "direct"
                               else reasoned_answer_model(ctx.settings.generation.reasoning_max_chars))
    try:
        out = invoke_structured(ctx.llms, "generator", chat(system, user), schema, ctx.usage,
                                temperature=spec.temperature, label=label or f"candidate {index} {spec.strategy}")
    except LLMError as exc:
        cand.error = str(exc)
        return cand
    cand.reasoning = str(getattr(out, "reasoning", "") or "")
    cand.sql = expand_views(clean_sql(str(getattr(out, "sql", ""))), approved_views(ctx.settings), ctx.db.dialect)
    verdict = guard_sql(cand.sql, ctx.db.dialect)
    if not verdict.ok:
        cand.error = verdict.error
        return cand
    cand.sql = rewrite_sql(ctx, verdict.sql, question)
    return cand


def rewrite_sql(ctx: ToolContext, sql: str, question: str = "") -> str:
    """Deterministic rewrites of a guarded candidate, each kept only when its result passes the guard again.

    In order, each behind its ``generation`` setting: a column qualified with the wrong table of its SELECT is
    re-pointed to the one table there that has it (:func:`database.qualify.fix_qualifiers`, ``fix_qualifiers``);
    a table qualified but never joined is joined along its one foreign key
    (:func:`database.missing_join.add_missing_joins`, ``add_missing_joins``); with ``question``, filters on
    knowledge-bound codes the question never names are dropped (:mod:`tools.code_filters`, ``drop_unnamed_codes``);
    with ``question``, two date bounds that miss its one period are moved onto it (:mod:`tools.period_dates`,
    ``align_period_dates``); an amount multiplied by its own currency's rate is divided instead (:mod:`tools.rate_direction`,
    ``fix_rate_direction``);
    with ``question``, inner joins to tables the SQL never reads and the question never names are dropped
    (:func:`database.dangling.prune_dangling_joins`, ``prune_joins``); needless aliases and primary-key
    self-joins are removed, keeping the result (:func:`database.simplify.simplify_sql`, ``simplify_sql``);
    with ``question``, "the latest X for every Y" written as one row becomes each series' latest row
    (:func:`database.as_of.latest_per_series`, ``latest_per_series``); date filters move after look-back
    windows (:func:`database.window_scope.lift_window_filters`, ``lift_window_filters``); the knowledge file's
    answer conventions add the columns every answer shows (:mod:`tools.answer_shape`, ``answer_conventions``).
    The index-based steps are skipped without an index. Never raises.
    """
    cfg = ctx.settings.generation
    catalog = load_catalog(ctx.store, ctx.db.key) if ctx.store is not None else None
    columns = _lower_columns(catalog)
    steps: list[Callable[[str], str]] = []
    if columns and cfg.fix_qualifiers:
        steps.append(lambda s: fix_qualifiers(s, ctx.db.dialect, columns))
    if catalog is not None and cfg.add_missing_joins:
        steps.append(lambda s: add_missing_joins(s, ctx.db.dialect, catalog.graph) or s)
    if question and cfg.align_period_dates:
        steps.append(lambda s: align_period_dates(s, ctx.db.dialect, question) or s)
    rates = approved_rates(ctx.settings)
    if rates:
        steps.append(lambda s: fix_rate_direction(s, ctx.db.dialect, rates) or s)
    codes = approved_codes(ctx.settings) if question else None
    if codes is not None:
        steps.append(lambda s: fix_code_filters(s, ctx.db.dialect, question, *codes) or s)
    if columns and question and cfg.prune_joins:
        steps.append(lambda s: prune_dangling_joins(s, ctx.db.dialect, columns,
                                                    lambda table: question_names_table(question, table)))
    if cfg.simplify_sql:
        steps.append(lambda s: simplify_sql(s, ctx.db.dialect, catalog.primary_keys() if catalog else None))
    if catalog is not None and question and cfg.latest_per_series:
        steps.append(lambda s: latest_per_series(s, ctx.db.dialect, question, catalog.primary_keys()) or s)
    if cfg.lift_window_filters:
        steps.append(lambda s: lift_window_filters(s, ctx.db.dialect) or s)
    conventions = conventions_of(approved_presentations(ctx.settings))
    if conventions:
        steps.append(lambda s: apply_conventions(s, ctx.db.dialect, conventions,
                                                 catalog.primary_keys() if catalog else None))
    for step in steps:
        new = step(sql)
        sql = new if new == sql or guard_sql(new, ctx.db.dialect).ok else sql
    return sql


def _lower_columns(catalog: TableCatalog | None) -> dict[str, set[str]]:
    """Lower-cased table -> lower-cased column names from the index ({} without a catalog or column lists)."""
    if catalog is None:
        return {}
    return {t.lower(): {c.lower() for c in cols} for t, cols in catalog.columns.items() if cols}


def relax_joins(ctx: ToolContext, sql: str) -> str | None:
    """``sql`` without its inner joins to tables it does not read, named by the question or not; None if none.

    For a candidate whose result came back empty (``generation.prune_joins``): "package options of the TV
    channels with HD" joined ``TV_series`` - a table the question names but the query never reads - and the
    join removed every row. Dropping such joins is tried before any new model call. Never raises.
    """
    catalog = load_catalog(ctx.store, ctx.db.key) if ctx.store is not None else None
    if catalog is None or not ctx.settings.generation.prune_joins:
        return None
    columns = _lower_columns(catalog)
    relaxed = prune_dangling_joins(sql, ctx.db.dialect, columns, lambda _table: False)
    if relaxed == sql or not guard_sql(relaxed, ctx.db.dialect).ok:
        return None
    return relaxed


def write_repair(ctx: ToolContext, system: str, context: str, question: str, sql: str, problem: str,
                 index: int, *, attempt: int = 1, label: str | None = None) -> tuple[Candidate, list[str]]:
    """A repair of ``sql`` for ``problem`` (an error text, an empty result, a low score) and its probe lines.

    Runs at most ``generation.probe_limit`` read-only probes on the failing query (columns of its tables on a
    missing-column error, the closest stored values of its filter literals), then asks the generator for a
    Query-Plan chain-of-thought repair at temperature 0 (the first attempt) or 0.5 (later ones). The candidate's
    ``strategy`` is ``"repair"``. Never raises (see :func:`write_candidate`).
    """
    probes = run_probes(ctx.db, plan_probes(sql, ctx.db.dialect, problem, ctx.settings.generation.probe_limit))
    user = repair_prompt.USER.format(
        context=context, question=question, sql=sql, problem=problem,
        probes=repair_prompt.PROBES_HEADER + "\n".join(probes) + "\n" if probes else "")
    spec = CandidateSpec(strategy="query_plan", temperature=0.0 if attempt == 1 else 0.5)
    cand = write_candidate(ctx, system, user, spec, index, label=label or f"repair {attempt}", question=question)
    cand.strategy = "repair"
    return cand, probes
