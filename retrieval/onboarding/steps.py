"""The declared steps of onboarding, in order: :data:`STEPS` (name, what it does, whether it needs the model).

Each :class:`Step` names the earlier steps whose results it ``uses``: a finished step is redone when one of
them ran again in the same run, or when its own inputs changed (a different query log). The wrappers here reuse
the existing parts: :func:`retrieval.enrichment.enrich` (descriptions, batched per table and per
:data:`retrieval.enrichment.COLUMN_BATCH` columns, resumable per table), :func:`retrieval.knowledge_proposal.
propose_knowledge` (metric and rule drafts), :func:`knowledge.mining.mine_workload` /
:func:`knowledge.mining.propose_records` (the query log) and :mod:`retrieval.onboarding.examples` (examples
drafted from the log).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from core.llm import LLMError
from database.guard import sqlglot_dialect
from database.schema_reader import read_schema
from knowledge.files import load_knowledge
from knowledge.mining import mine_workload, propose_records
from retrieval.enrichment import enrich
from retrieval.knowledge_proposal import propose_knowledge
from retrieval.onboarding.context import OnboardingJob, StepOutcome, StepRun
from retrieval.onboarding.dictionary import import_dictionary, read_dictionary
from retrieval.onboarding.drafts import add_drafts, run_draft_records
from retrieval.onboarding.examples import run_draft_examples
from retrieval.onboarding.join_drafts import run_draft_joins
from retrieval.onboarding.profile import run_profile
from retrieval.onboarding.queue import run_review_queue
from retrieval.onboarding.usage import count_references, schema_of


@dataclass(frozen=True)
class Step:
    """One onboarding step.

    ``name``, what it does (``about``), whether it ``needs_model``, the earlier steps it ``uses``, its ``run``
    function, and ``inputs`` (a fingerprint of what it reads besides them; "" when nothing; a finished step whose
    fingerprint differs is redone).
    """

    name: str
    about: str
    needs_model: bool
    uses: tuple[str, ...]
    run: Callable[[StepRun], StepOutcome]
    inputs: Callable[[OnboardingJob], str] = lambda job: ""


def run_import_dictionary(run: StepRun) -> StepOutcome:
    """Import the team's data dictionary (``--dictionary``) into the enrichment file as reviewed descriptions."""
    job = run.job
    if job.dictionary is None:
        return StepOutcome(note="no data dictionary given (--dictionary)", skipped=True)
    run.item(1, 1, job.dictionary.name)
    rows = read_dictionary(job.dictionary)
    tables = read_schema(job.db, sample_rows=0, use_enriched=False)
    report = import_dictionary(tables, rows, job.enriched_path, source=job.dictionary.name)
    note = (f"{report.tables} table and {report.columns} column descriptions imported from {job.dictionary.name}; "
            f"{len(report.kept)} kept as already written")
    if report.unknown:  # a note, not an error: rerunning cannot place them
        note += f"; {len(report.unknown)} rows name nothing in the schema ({', '.join(report.unknown[:5])})"
    return StepOutcome(items=report.tables + report.columns, note=note,
                       result={"tables": report.tables, "columns": report.columns, "kept": report.kept,
                               "unknown": report.unknown})


def dictionary_fingerprint(job: OnboardingJob) -> str:
    """``sha256`` of the data dictionary's bytes ("" without one: an earlier import is kept)."""
    if job.dictionary is None or not job.dictionary.is_file():
        return ""
    return hashlib.sha256(job.dictionary.read_bytes()).hexdigest()[:16]


def run_describe(run: StepRun) -> StepOutcome:
    """Draft descriptions of the undocumented tables and columns (pending) into the enrichment file."""
    job = run.job
    report = enrich(job.db, job.llms, job.enriched_path, usage=run.usage, progress=False,
                    model_name=job.model_name, sensitive_patterns=job.sensitive_patterns, today=job.today,
                    on_table=run.item, opaque_only=job.opaque_only)
    errors = [f"{table}: {error}" for table, error in sorted(report.errors.items())]
    note = (f"{len(report.tables_described)} table and {report.columns_described} column descriptions drafted; "
            f"{report.tables_skipped} tables had nothing left to describe")
    return StepOutcome(items=len(report.tables_described) + report.columns_described, note=note, errors=errors,
                       complete=not errors,
                       result={"tables": report.tables_described, "columns": report.columns_described})


def run_draft_metrics(run: StepRun) -> StepOutcome:
    """Ask the model for metric and rule drafts (one call) and add the valid new ones, pending."""
    job = run.job
    run.item(1, 1, "metric and rule drafts")
    try:
        _, report = propose_knowledge(job.db, job.llms, load_knowledge(job.knowledge_path), examples=job.examples,
                                      usage=run.usage, limit=job.metric_limit, enriched_path=job.enriched_path)
    except LLMError as exc:
        return StepOutcome(errors=[str(exc)], complete=False, note="the model gave no usable drafts")
    added = add_drafts(job.knowledge_path, report.added, job.db.key)
    rejected = [f"draft {name!r} left out: {why}" for name, why in report.rejected]
    return StepOutcome(items=len(added), result={"added": [r.id for r in added], "left_out": rejected},
                       note=f"{len(added)} metric/rule records drafted, {len(rejected)} drafts left out")


def describe_inputs(job: OnboardingJob) -> str:
    """The describe step's scope, ``"opaque"`` or ``"all"``.

    A changed scope redoes the step; entries already written are kept, so widening it describes only the rest.
    """
    return "opaque" if job.opaque_only else "all"


def log_fingerprint(job: OnboardingJob) -> str:
    """``sha256`` of the query log's statements ("" without a log: an earlier log's result is kept)."""
    if job.log is None:
        return ""
    return hashlib.sha256("\n;\n".join(job.log).encode("utf-8")).hexdigest()[:16]


def draft_examples_inputs(job: OnboardingJob) -> str:
    """The log's fingerprint and the example limit ("" without a log: earlier drafts are kept)."""
    return f"{log_fingerprint(job)}:{job.example_limit}" if job.log is not None else ""


def examples_fingerprint(job: OnboardingJob) -> str:
    """``sha256`` of the examples' SQL ("" without examples): the review order is recomputed when they change."""
    sql = [e.get("sql", "") for e in job.examples]
    return hashlib.sha256("\n;\n".join(sql).encode("utf-8")).hexdigest()[:16] if sql else ""


def run_mine_log(run: StepRun) -> StepOutcome:
    """Mine the query log: pending records for its frequent joins, filters, aggregates; column usage counts."""
    job = run.job
    if job.log is None:
        return StepOutcome(note="no query log given (--log)", skipped=True)
    dialect = sqlglot_dialect(job.db.dialect)
    run.item(1, 2, job.log_name or "query log")
    hints = mine_workload(job.log, dialect)
    tables = run.results["profile"]["tables"]
    used_tables, used_columns = count_references(job.log, dialect,
                                                 schema_of({t: list(s["columns"]) for t, s in tables.items()}))
    run.item(2, 2, "proposals")
    proposed = propose_records(hints, load_knowledge(job.knowledge_path), min_count=job.min_count)
    added = add_drafts(job.knowledge_path, proposed, job.db.key)
    note = (f"{hints.queries} statements ({hints.unparsed} unparsed): {len(added)} records drafted from "
            f"{len(hints.joins)} joins, {len(hints.filters)} filters, {len(hints.aggregates)} aggregates")
    return StepOutcome(items=hints.queries, note=note, result={
        "queries": hints.queries, "unparsed": hints.unparsed, "added": [r.id for r in added],
        "table_uses": dict(used_tables), "column_uses": dict(used_columns)})


STEPS: tuple[Step, ...] = (
    Step("profile", "profile every table and column (types, nulls, distinct counts, ranges, top values), mark "
         "date, code-like and key columns, find candidate joins where no foreign key is declared",
         needs_model=False, uses=(), run=run_profile),
    Step("dictionary", "import the team's data dictionary (--dictionary: CSV, TSV, XLSX or YAML of table, column, "
         "description) into the enrichment file as reviewed text, which the describe step then skips",
         needs_model=False, uses=(), run=run_import_dictionary, inputs=dictionary_fingerprint),
    Step("describe", "draft descriptions of undocumented tables and columns (batched model calls, resumable per "
         "table; with --opaque-only only names that say nothing, such as c14) into the enrichment file, pending",
         needs_model=True, uses=(), run=run_describe, inputs=describe_inputs),
    Step("draft_records", "draft enum records for code-like columns and synonym records for abbreviated names, "
         "pending", needs_model=False, uses=("profile",), run=run_draft_records),
    Step("draft_joins", "write the candidate joins the profile found (no foreign key declared for them) into the "
         "enrichment file, pending: approved, each is a foreign key; rejected, never inferred",
         needs_model=False, uses=("profile",), run=run_draft_joins),
    Step("draft_metrics", "draft metric and rule records with the model, checked, pending", needs_model=True,
         uses=(), run=run_draft_metrics),
    Step("mine_log", "mine the query log (--log) for frequent joins, filters and aggregates, pending records, "
         "and count what it reads", needs_model=False, uses=("profile",), run=run_mine_log, inputs=log_fingerprint),
    Step("draft_examples", "with --draft-examples N: write the question each logged statement answers (one model "
         "call per statement), appended to the examples file as pending few-shot examples", needs_model=True,
         uses=(), run=run_draft_examples, inputs=draft_examples_inputs),
    Step("review_queue", "order every pending draft by expected value (usage in the log, the examples and joins)",
         needs_model=False, uses=("profile", "dictionary", "describe", "draft_records", "draft_joins",
                                  "draft_metrics", "mine_log", "draft_examples"),
         run=run_review_queue, inputs=examples_fingerprint),
)
"""The steps, in the order they run."""
