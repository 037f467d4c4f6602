"""LLM metadata enrichment: generated descriptions for undocumented tables and columns, kept for review.

:func:`enrich` asks the generator model for an 80-150 word summary of each table without documentation
(from its name, columns, types, keys and five masked sample rows) and for one short description of each
column without a comment (one call per table, returning a list; wide tables in batches of
:data:`COLUMN_BATCH`), shown beside the table's sample rows and its foreign-key neighbours. Human comments (database comments, the metadata YAML) are never overwritten: only
gaps are described, and :func:`database.descriptions.merge_enriched` fills only gaps. The output is the
reviewable enrichment file described in :mod:`database.descriptions` (diff-friendly, written atomically after
each table, so a crash loses nothing; tables and columns sorted).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from tqdm import tqdm

from core.llm import LLMError, LLMProvider, UsageLog, invoke_structured
from database.connection import Database
from database.descriptions import VERSION, dump_enriched, load_enriched, write_atomic
from database.schema_reader import read_schema
from database.schema_types import TableInfo
from knowledge.abbreviations import is_opaque_name
from retrieval.enrichment_prompts import SAMPLE_ROWS, columns_prompt, echoes, summary_prompt

COLUMN_BATCH = 8
"""At most this many columns per LLM call, so the JSON reply fits the generator's ``max_tokens``."""
ENRICH_MAX_TOKENS = 900
"""Completion cap for one enrichment call: a 150-word summary or 8 column descriptions, as JSON."""


class TableSummary(BaseModel):
    """LLM reply for one table."""

    summary: str = Field(description="80-150 words describing the table.")


class ColumnDescription(BaseModel):
    """One column's generated description."""

    name: str
    description: str = Field(description="At most 15 words.")


class ColumnDescriptions(BaseModel):
    """LLM reply for the columns of one table (one entry per requested column)."""

    columns: list[ColumnDescription]


@dataclasses.dataclass
class EnrichReport:
    """Outcome of :func:`enrich`.

    Tables given a summary, number of columns described, tables with nothing to do, per-table error messages
    (``{table: message}``), wall seconds and the output path.
    """

    out_path: Path
    tables_described: list[str] = dataclasses.field(default_factory=list)
    columns_described: int = 0
    tables_skipped: int = 0
    errors: dict[str, str] = dataclasses.field(default_factory=dict)
    seconds: float = 0.0


def _todo(entry: dict[str, Any] | None, force: bool) -> bool:
    """Generate when absent; with ``force`` also regenerate pending/rejected (reviewed text is kept)."""
    return entry is None or (force and entry["status"] in ("pending", "rejected"))


def _ask(llms: LLMProvider, table: TableInfo, names: list[str], dialect: str, usage: UsageLog,
         tables: list[TableInfo] | None) -> list[ColumnDescription]:
    return invoke_structured(llms, "generator", columns_prompt(table, names, dialect, tables), ColumnDescriptions,
                             usage, max_tokens=ENRICH_MAX_TOKENS).columns


def _describe_columns(llms: LLMProvider, table: TableInfo, batch: list[str], dialect: str,
                      usage: UsageLog, tables: list[TableInfo] | None = None,
                      ) -> tuple[list[ColumnDescription], LLMError | None]:
    """The model's descriptions of the columns ``batch`` of ``table``, and the last failure (None: none).

    One call for the batch; when it fails (a malformed reply, or a reply that runs into
    :data:`ENRICH_MAX_TOKENS` - a small model sometimes repeats itself on a long list), each column is asked
    again alone, so one runaway reply costs a few calls instead of the whole batch. A description that only
    repeats the column's values or profile (:func:`retrieval.enrichment_prompts.echoes`) is asked again alone
    once and dropped (recorded as the failure) when it echoes again. Raises LLMError when a one-column batch
    fails or no column of the batch could be described.
    """
    try:
        replies, alone = _ask(llms, table, batch, dialect, usage, tables), False
    except LLMError:
        if len(batch) == 1:
            raise
        replies, alone = [], True
    known = {n.lower(): n for n in batch}
    good = [r for r in replies if r.name.strip().lower() in known
            and not echoes(r.description, table, known[r.name.strip().lower()])]
    done = {r.name.strip().lower() for r in good}
    retry = [n for n in batch if n.lower() not in done] if alone else [
        known[r.name.strip().lower()] for r in replies if r.name.strip().lower() in known and r not in good]
    failed: LLMError | None = None
    for name in dict.fromkeys(retry):
        try:
            again = [r for r in _ask(llms, table, [name], dialect, usage, tables)
                     if r.name.strip().lower() == name.lower()]
        except LLMError as exc:
            failed = exc
            continue
        kept = [r for r in again if not echoes(r.description, table, name)]
        if again and not kept:
            failed = LLMError(f"{table.name}.{name}: the description only repeats the column's values")
        good += kept[:1]
    if not good and failed is not None:
        raise failed
    return good, failed


def _stamp(text: str, model_name: str, today: str) -> dict[str, Any]:
    return {"text": " ".join(text.split()), "status": "pending", "model": model_name, "generated": today}


def enrich(
    db: Database,
    llms: LLMProvider,
    out_path: Path,
    *,
    usage: UsageLog,
    progress: bool = True,
    model_name: str,
    force: bool = False,
    sensitive_patterns: list[str] | None = None,
    metadata_path: Path | None = None,
    today: dt.date | None = None,
    on_table: Callable[[int, int, str], None] | None = None,
    opaque_only: bool = False,
) -> EnrichReport:
    """Generate descriptions for the undocumented tables and columns of ``db`` into ``out_path`` (YAML).

    Reads the schema without enriched text (human comments only), with 5 sample rows, profiles and masking
    (``sensitive_patterns``, default: ``llms.settings.retrieval.sensitive_patterns``). Entries already in
    ``out_path`` are skipped; ``force`` regenerates pending and rejected ones (approved/edited are kept).
    Every LLM call uses role "generator" through :func:`core.llm.invoke_structured` and is recorded in
    ``usage``; ``model_name`` and ``today`` (default: today) are the recorded provenance. A table whose call
    fails (LLMError) is recorded in ``report.errors`` and the run continues; the file is rewritten after
    each table that produced text. ``on_table(j, m, name)`` is called before table ``j`` of ``m`` (1-based).
    ``opaque_only`` describes only the tables and columns whose names say nothing
    (:func:`knowledge.abbreviations.is_opaque_name`: ``c14``, ``t_03``): on a wide warehouse that is the
    fraction of the work where a description matters most (the other names read as words or abbreviations).

    Raises:
        ValueError: ``out_path`` exists but is not a valid enrichment file; database/catalog errors pass.
    """
    started = time.perf_counter()
    patterns = llms.settings.retrieval.sensitive_patterns if sensitive_patterns is None else sensitive_patterns
    tables = read_schema(db, sample_rows=SAMPLE_ROWS, metadata_path=metadata_path, profile=True,
                         sensitive_patterns=patterns, use_enriched=False)
    data: dict[str, Any] = load_enriched(out_path) if out_path.is_file() else {"version": VERSION, "tables": {}}
    stamp = (today or dt.date.today()).isoformat()
    report = EnrichReport(out_path=out_path)
    names = {name.lower(): name for name in data["tables"]}
    for done, table in enumerate(tqdm(tables, desc=f"Enriching {db.key}", unit="table", disable=not progress)):
        if on_table is not None:
            on_table(done + 1, len(tables), table.name)
        key = names.get(table.name.lower(), table.name)
        spec = data["tables"].get(key) or {"description": None, "columns": {}}
        by_lower = {c.lower(): c for c in spec["columns"]}
        want_table = (not table.comment and _todo(spec["description"], force)
                      and (not opaque_only or is_opaque_name(table.name)))
        want_cols = [c.name for c in table.columns
                     if not c.comment and _todo(spec["columns"].get(by_lower.get(c.name.lower(), "")), force)
                     and (not opaque_only or is_opaque_name(c.name))]
        if not want_table and not want_cols:
            report.tables_skipped += 1
            continue
        if not table.comment and spec["description"] and spec["description"]["status"] != "rejected":
            table.comment = spec["description"]["text"]  # context for the column descriptions
        changed = False
        try:
            if want_table:
                reply = invoke_structured(llms, "generator", summary_prompt(table, db.dialect), TableSummary,
                                          usage, max_tokens=ENRICH_MAX_TOKENS)
                if not reply.summary.strip():
                    raise LLMError("empty table summary")
                spec["description"] = _stamp(reply.summary, model_name, stamp)
                table.comment, changed = spec["description"]["text"], True
                report.tables_described.append(table.name)
            for i in range(0, len(want_cols), COLUMN_BATCH):
                batch = want_cols[i : i + COLUMN_BATCH]
                described, failed = _describe_columns(llms, table, batch, db.dialect, usage, tables)
                if failed is not None:
                    report.errors[table.name] = str(failed)
                wanted = {n.lower(): n for n in batch}
                for item in described:
                    name = wanted.pop(item.name.strip().lower(), None)
                    if name is not None and item.description.strip():
                        spec["columns"].pop(by_lower.get(name.lower(), name), None)
                        spec["columns"][name] = _stamp(item.description, model_name, stamp)
                        report.columns_described += 1
                        changed = True
        except LLMError as exc:
            report.errors[table.name] = str(exc)
        if changed:
            data["tables"][key] = spec
            write_atomic(out_path, dump_enriched(data))
    report.seconds = time.perf_counter() - started
    return report
