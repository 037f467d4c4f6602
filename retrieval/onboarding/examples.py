"""Step ``draft_examples``: few-shot examples drafted from the query log, pending review.

A past query log holds the database's real question shapes (how a return is computed, which day is the latest,
which joins and filters the team uses) but no questions. Back-translating each logged statement into the
question it answers (SQL-to-text, as in the data synthesis of OmniSQL, Li et al. 2025, and the query-log mining of
RubikSQL) turns the log into question/SQL pairs the example retrieval can match, which is how a small model
learns a database's conventions best (DAIL-SQL, Gao et al. 2023).

Each distinct statement that runs read-only gets one model call (role ``generator``, JSON ``{"question"}``) with the
tables it reads (their descriptions, drafts included) and the shape of its answer (column names, one row or
several) - never the answer's values: shown rows, the model copied them into the question ("on October 31,
2025" for a latest-day query), which ties the example to one day. A drafted question that still names a number
the SQL does not hold is left out (:func:`acceptable`). The pair is appended to the
database's examples file with ``status: pending`` and ``source: log``; nothing already in the file is rewritten,
and a statement whose SQL the file already holds (any status, so a rejected draft stays rejected) is skipped, so
a rerun resumes where an interrupted one stopped. Pending examples are indexed only once approved (the review
queue) or with ``knowledge.use_drafts`` (:func:`retrieval.examples_store.prepare_examples`).

The step is off unless asked for (``OnboardingJob.example_limit``, ``nl2sql onboard --draft-examples N``): on the
bare demo's test half, 31 drafted examples on top of the other drafts changed no answer's EX on balance (one won,
one lost; 2026-11-27, docs/benchmarks.md) while adding 31 drafts to review and a model call per statement.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from pathlib import Path

from pydantic import BaseModel, Field

from core.llm import LLMError, chat, invoke_structured
from database.guard import sqlglot_dialect
from database.schema_reader import read_schema
from prompts import log_questions as prompt
from retrieval.documents import schema_document
from retrieval.examples_store import EXCLUDED_STATUSES, PENDING, load_examples_file, normalize_sql
from retrieval.onboarding.context import StepOutcome, StepRun
from retrieval.onboarding.usage import references, schema_of

QUESTION_MAX_TOKENS = 120
"""Completion cap of one back-translation call (one short question as JSON)."""
SHAPE_ROWS = 2
"""Rows fetched to tell a one-row answer from a list (their values are not shown)."""
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _number(text: str) -> str:
    """A number's text without thousands separators, a trailing dot or leading zeros ("05" -> "5")."""
    return text.replace(",", "").rstrip(".").lstrip("0") or "0"


class DraftedQuestion(BaseModel):
    """Structured output of one back-translation call."""

    question: str = Field(min_length=1, max_length=400)


def example_id(sql: str, dialect: str) -> str:
    """``log_<12 hex>``: a stable id of a logged statement (its normalized SQL)."""
    return "log_" + hashlib.sha256(normalize_sql(sql, dialect).encode("utf-8")).hexdigest()[:12]


def acceptable(question: str, sql: str = "") -> str | None:
    """Why a drafted question is unusable, or None when it is fine.

    Unusable: fewer than 3 or more than 45 words; SQL text; a number (a year, a day, a count, an amount) that
    ``sql`` does not hold as a number of its own - a value the model took from elsewhere than the query, so the
    question asks something the query does not answer. Numbers compare whole, without thousands separators or
    leading zeros ("1,000" matches ``1000``, "31" matches the day of ``'2025-10-31'``, "3" does not match ``300``).
    """
    words = question.split()
    if len(words) < 3 or len(words) > 45:
        return f"a question of {len(words)} words"
    if any(w.upper() in {"SELECT", "FROM", "WHERE", "JOIN"} for w in words[:3]) or "SELECT " in question.upper():
        return "SQL instead of a question"
    if sql:
        named = {_number(n) for n in _NUMBER.findall(sql.replace(",", " "))}
        stray = [n for n in _NUMBER.findall(question) if _number(n) not in named]
        if stray:
            return f"a value the query does not name ({stray[0]})"
    return None


def answer_shape(columns: list[str], rows: int) -> str:
    """What the prompt says of an answer: its column names and whether it is one row or a list."""
    size = "no rows" if rows == 0 else "one row" if rows == 1 else "several rows"
    return f"columns {', '.join(columns) or '(none)'}; {size}"


def reviewed_examples(path: Path | None) -> list[dict[str, str]]:
    """The examples of the file at ``path`` a person wrote or approved (no drafts, nothing retired); [] without one.

    The job's ``examples`` (context of the metric drafts, ``E`` of the review queue) are these: counting the
    log's drafted examples there would count the log twice.

    Raises:
        OSError / ValueError: the file cannot be read or is malformed.
    """
    if path is None or not path.is_file():
        return []
    return [e.to_dict() for e in load_examples_file(path, default_source=None)
            if (e.status or "approved").lower() not in EXCLUDED_STATUSES | {PENDING}]


def append_examples(path: Path, entries: list[dict[str, str]]) -> None:
    """Append ``entries`` as JSON lines to ``path`` (created with its folder when missing); never rewrites lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = ""
    if path.is_file() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
        prefix = "\n"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(prefix + "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries))
        fh.flush()


def run_draft_examples(run: StepRun) -> StepOutcome:
    """Draft one pending example per new, runnable statement of the log (see the module docstring)."""
    job = run.job
    if job.log is None:
        return StepOutcome(note="no query log given (--log)", skipped=True)
    if job.example_limit <= 0:
        return StepOutcome(note="off (nl2sql onboard --draft-examples N)", skipped=True)
    if job.examples_path is None:
        return StepOutcome(note="no examples file to write to (set NL2SQL_EXAMPLES_PATH)", skipped=True)
    dialect = sqlglot_dialect(job.db.dialect)
    known = ({normalize_sql(e.sql, dialect) for e in load_examples_file(job.examples_path)}
             if job.examples_path.is_file() else set())
    todo: list[str] = []
    for sql in job.log:
        key = normalize_sql(sql, dialect)
        if key not in known:
            known.add(key)
            todo.append(sql)
    todo = todo[: job.example_limit]
    tables = {t.name.lower(): t for t in read_schema(job.db, sample_rows=0, profile=True,
                                                     enriched_path=job.enriched_path, use_drafts=True)}
    lookup = schema_of({t.name: [c.name for c in t.columns] for t in tables.values()})
    system = prompt.SYSTEM.format(dialect=job.db.dialect)
    added, errors, left_out = 0, [], []
    for n, sql in enumerate(todo, start=1):
        run.item(n, len(todo), sql[:50])
        read = sorted(t.lower() for t in references(sql, dialect, lookup)[0])
        result = job.db.run_query(sql, row_cap=SHAPE_ROWS)
        if not result.ok or not read:
            left_out.append(f"statement {n}: does not run here ({(result.error or 'reads no known table')[:120]})")
            continue
        schema = "\n\n".join(schema_document(tables[t], job.db.dialect, sample_rows=0) for t in read)
        rows = answer_shape(list(result.columns), len(result.rows))
        try:
            reply = invoke_structured(job.llms, "generator", chat(system, prompt.USER.format(
                schema=schema, sql=sql, rows=rows)), DraftedQuestion, run.usage, max_tokens=QUESTION_MAX_TOKENS,
                label="log question")
        except LLMError as exc:
            errors.append(f"statement {n}: {exc}")
            continue
        question = " ".join(reply.question.split())
        problem = acceptable(question, sql)
        if problem:
            left_out.append(f"statement {n}: {problem}")
            continue
        append_examples(job.examples_path, [{
            "question": question, "sql": sql, "id": example_id(sql, dialect), "source": "log", "status": PENDING,
            "added": (job.today or dt.date.today()).isoformat()}])
        added += 1
    return StepOutcome(items=added, errors=errors, complete=not errors,
                       result={"drafted": added, "left_out": left_out},
                       note=f"{added} examples drafted from {len(todo)} new statements, {len(left_out)} left out")
