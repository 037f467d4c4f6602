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

from core.llm import LLMError, LLMProvider, UsageLog, chat, invoke_structured
from database.connection import Database, format_cell
from database.descriptions import VERSION, dump_enriched, load_enriched, write_atomic
from database.schema_reader import format_sample_rows, read_schema
from database.schema_types import ColumnInfo, TableInfo
from knowledge.abbreviations import expand_name, is_opaque_name
from prompts import column_description, table_summary
from retrieval.documents import clip_words, profile_hint

COLUMN_BATCH = 8
"""At most this many columns per LLM call, so the JSON reply fits the generator's ``max_tokens``."""
ENRICH_MAX_TOKENS = 900
"""Completion cap for one enrichment call: a 150-word summary or 8 column descriptions, as JSON."""
SAMPLE_ROWS = 5
PROMPT_ROWS = 3
"""Sample rows shown in a column-description prompt (the described columns beside their neighbours)."""
ROW_COLUMNS = 12
"""At most this many columns in those rows, so a wide table's batch stays within the model's context."""
LINKED_COLUMNS = 8
"""Column names shown for each table linked to the described one by a foreign key."""


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


def _facts(table: TableInfo, col: ColumnInfo) -> str:
    """Profile hint, numeric range and foreign-key target of ``col`` ("; "-separated, may be "")."""
    parts = [profile_hint(col, 5)]
    prof = col.profile
    if prof is not None and prof.kind == "number" and prof.min is not None and not prof.masked:
        parts.append(f"range {format_cell(prof.min)}..{format_cell(prof.max)}")
    parts += [f"-> {fk.ref_table}.{ref}" for fk in table.foreign_keys
              for own, ref in zip(fk.columns, fk.ref_columns, strict=False) if own == col.name]
    return "; ".join(p for p in parts if p)


def _column_lines(table: TableInfo, names: list[str]) -> str:
    lines = []
    for name in names:
        col = table.column(name)
        assert col is not None
        values = list(dict.fromkeys(format_cell(r.get(col.name), 30) for r in table.sample_rows))[:3]
        parts = [f"- {col.name} {col.type or '(no type)'}", _facts(table, col), ", ".join(values)]
        lines.append(" | ".join(p for p in parts if p))
    return "\n".join(lines)


def _summary_prompt(table: TableInfo, dialect: str) -> list[Any]:
    cols = "\n".join(
        f"- {c.name} {c.type}" + (f" -- {c.comment}" if c.comment else "")
        + (f" | {facts}" if (facts := profile_hint(c, 5)) else "")
        for c in table.columns
    )
    keys = f"Primary key: {', '.join(table.primary_key)}\n" if table.primary_key else ""
    keys += "".join(f"Foreign key: {', '.join(fk.columns)} -> {fk.ref_table}({', '.join(fk.ref_columns)})\n"
                    for fk in table.foreign_keys)
    rows = format_sample_rows(table, SAMPLE_ROWS) or "(no rows)"
    return chat(table_summary.SYSTEM.format(dialect=dialect),
                table_summary.USER.format(table=table.name, columns=cols, keys=keys, rows=rows))


def _reading(name: str) -> str:
    """``name`` followed by its plain-words reading when it has one: ``"CUST_NM (customer name)"``."""
    words = expand_name(name)
    return f"{name} ({words})" if words else name


def _links(table: TableInfo, tables: list[TableInfo]) -> str:
    """The tables joined to ``table`` by declared foreign keys, each with its first columns, one per line.

    Outgoing keys read ``c3 -> PPL.ID``, incoming ones ``<- RSRV.c5``; each linked table is shown once with up
    to :data:`LINKED_COLUMNS` of its column names (and readings), so an opaque key column's meaning can be read
    from what it points at. "(none declared)" when there is none.
    """
    by_name = {t.name.lower(): t for t in tables}
    joins: dict[str, list[str]] = {}
    for fk in table.foreign_keys:
        joins.setdefault(fk.ref_table.lower(), []).append(
            f"{', '.join(fk.columns)} -> {fk.ref_table}.{', '.join(fk.ref_columns)}")
    for other in tables:
        for fk in other.foreign_keys:
            if fk.ref_table.lower() == table.name.lower() and other is not table:
                joins.setdefault(other.name.lower(), []).append(f"<- {other.name}.{', '.join(fk.columns)}")
    lines = []
    for key, how in joins.items():
        linked = by_name.get(key)
        cols = ", ".join(_reading(c.name) for c in linked.columns[:LINKED_COLUMNS]) if linked else ""
        name = _reading(linked.name) if linked else key
        lines.append(f"- {name}: {'; '.join(how)}" + (f" (columns: {cols})" if cols else ""))
    return "\n" + "\n".join(lines) if lines else "(none declared)"


def _rows(table: TableInfo, names: list[str]) -> str:
    """:data:`PROMPT_ROWS` sample rows of ``table`` restricted to ``names`` and their neighbours.

    At most :data:`ROW_COLUMNS` columns: the described ones plus the table's other columns in order (keys and
    readable names give the context). "(no rows)" for an empty table.
    """
    if not table.sample_rows:
        return "(no rows)"
    wanted = {n.lower() for n in names}
    others = [c.name for c in table.columns if c.name.lower() not in wanted]
    keep = {n.lower() for n in names} | {n.lower() for n in others[: max(0, ROW_COLUMNS - len(names))]}
    view = dataclasses.replace(table, sample_rows=[{k: v for k, v in row.items() if k.lower() in keep}
                                                   for row in table.sample_rows])
    return format_sample_rows(view, PROMPT_ROWS) or "(no rows)"


def _columns_prompt(table: TableInfo, names: list[str], dialect: str,
                    tables: list[TableInfo] | None = None) -> list[Any]:
    user = column_description.USER.format(
        table=_reading(table.name), about=clip_words(table.comment or "(undocumented)", 60),
        links=_links(table, tables or [table]), rows=_rows(table, names),
        all_columns=", ".join(_reading(c.name) for c in table.columns), columns=_column_lines(table, names))
    return chat(column_description.SYSTEM.format(dialect=dialect), user)


def _describe_columns(llms: LLMProvider, table: TableInfo, batch: list[str], dialect: str,
                      usage: UsageLog, tables: list[TableInfo] | None = None,
                      ) -> tuple[list[ColumnDescription], LLMError | None]:
    """The model's descriptions of the columns ``batch`` of ``table``, and the last failure (None: none).

    One call for the batch; when it fails (a malformed reply, or a reply that runs into
    :data:`ENRICH_MAX_TOKENS` - a small model sometimes repeats itself on a long list), each column is asked
    again alone, so one runaway reply costs a few calls instead of the whole batch. Raises LLMError when a
    one-column batch fails or no column of the batch could be described.
    """
    try:
        return invoke_structured(llms, "generator", _columns_prompt(table, batch, dialect, tables), ColumnDescriptions,
                                 usage, max_tokens=ENRICH_MAX_TOKENS).columns, None
    except LLMError:
        if len(batch) == 1:
            raise
    described: list[ColumnDescription] = []
    failed: LLMError | None = None
    for name in batch:
        try:
            described += invoke_structured(llms, "generator", _columns_prompt(table, [name], dialect, tables),
                                           ColumnDescriptions, usage, max_tokens=ENRICH_MAX_TOKENS).columns
        except LLMError as exc:
            failed = exc
    if not described and failed is not None:
        raise failed
    return described, failed


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
                reply = invoke_structured(llms, "generator", _summary_prompt(table, db.dialect), TableSummary,
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
