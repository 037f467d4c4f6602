"""LLM metadata enrichment: generated descriptions for undocumented tables and columns, kept for review.

:func:`enrich` asks the generator model for an 80-150 word summary of each table without documentation
(from its name, columns, types, keys and five masked sample rows) and for one short description of each
column without a comment (one call per table, returning a list; wide tables in batches of
:data:`COLUMN_BATCH`). Human comments (database comments, the metadata YAML) are never overwritten: only
gaps are described, and :func:`merge_enriched` fills only gaps. Output file (diff-friendly, written atomically
after each table, so a crash loses nothing; tables and columns sorted)::

    version: 1
    tables:
      EQ_PX_D:
        description: {text: "...", status: pending, model: qwen2.5-coder-1.5b-instruct, generated: "2025-06-01"}
        columns:
          PX_HI: {text: "...", status: pending, model: ..., generated: ...}

``status`` is the review status: pending (new), approved, edited (a reviewer changed the text) or rejected
(never merged). A bare string entry counts as ``edited``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import BaseModel, Field
from tqdm import tqdm

from agent.llm import LLMError, LLMProvider, UsageLog, chat, invoke_structured
from prompts import column_description, table_summary
from retrieval.database import Database, format_cell
from retrieval.documents import clip_words, profile_hint
from retrieval.schema_reader import format_sample_rows, read_schema
from retrieval.schema_types import ColumnInfo, TableInfo

if TYPE_CHECKING:
    import argparse

    from agent.configuration import Settings

VERSION = 1
STATUSES = ("pending", "approved", "edited", "rejected")
COLUMN_BATCH = 8
ENRICH_MAX_TOKENS = 900
"""Completion cap for one enrichment call: a 150-word summary or 8 column descriptions, as JSON."""
"""At most this many columns per LLM call, so the JSON reply fits the generator's ``max_tokens``."""
SAMPLE_ROWS = 5


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
    """Outcome of :func:`enrich`: tables given a summary, number of columns described, tables with nothing
    to do, per-table error messages (``{table: message}``), wall seconds and the output path."""

    out_path: Path
    tables_described: list[str] = dataclasses.field(default_factory=list)
    columns_described: int = 0
    tables_skipped: int = 0
    errors: dict[str, str] = dataclasses.field(default_factory=dict)
    seconds: float = 0.0


def default_enriched_path(db: Database, state_dir: Path | None = None) -> Path | None:
    """``<stem>.enriched.yaml`` next to a SQLite file; for server databases ``state_dir/<key>.enriched.yaml``
    when ``state_dir`` is given, else None."""
    if db.sqlite_path is not None:
        return db.sqlite_path.with_name(f"{db.sqlite_path.stem}.enriched.yaml")
    return state_dir / f"{db.key}.enriched.yaml" if state_dir is not None else None


def _entry(raw: Any, where: str) -> dict[str, Any] | None:
    """Normalise one entry to ``{"text", "status", "model", "generated"}`` (None when empty)."""
    if isinstance(raw, str):
        raw = {"text": raw, "status": "edited"}
    if not isinstance(raw, dict) or not str(raw.get("text") or "").strip():
        return None
    status = str(raw.get("status") or "pending").strip().lower()
    if status not in STATUSES:
        raise ValueError(f"{where}: unknown review status {status!r}; expected one of {STATUSES}")
    return {"text": str(raw["text"]).strip(), "status": status, "model": raw.get("model"),
            "generated": str(raw["generated"]) if raw.get("generated") is not None else None}


def load_enriched(path: Path) -> dict[str, Any]:
    """Parse an enrichment file into ``{"version": 1, "tables": {table: {"description": entry | None,
    "columns": {column: entry}}}}`` with entries ``{"text", "status", "model", "generated"}``.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: unsupported ``version`` or unknown review status (yaml.YAMLError for bad YAML).
    """
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    if not isinstance(raw, dict) or raw.get("version", VERSION) != VERSION:
        raise ValueError(f"{path}: unsupported enrichment file (expected version: {VERSION})")
    tables: dict[str, Any] = {}
    for tname, spec in (raw.get("tables") or {}).items():
        spec = spec if isinstance(spec, dict) else {"description": spec}
        cols: dict[str, Any] = spec["columns"] if isinstance(spec.get("columns"), dict) else {}
        columns = {str(c): e for c, v in cols.items() if (e := _entry(v, f"{path}: {tname}.{c}"))}
        tables[str(tname)] = {"description": _entry(spec.get("description"), f"{path}: {tname}"),
                              "columns": columns}
    return {"version": VERSION, "tables": tables}


def merge_enriched(tables: list[TableInfo], enriched: dict[str, Any]) -> None:
    """Fill missing table/column comments in place from :func:`load_enriched` output (case-insensitive
    names); existing comments always win and entries with status "rejected" are ignored."""
    specs = {name.lower(): spec for name, spec in enriched.get("tables", {}).items()}
    for table in tables:
        spec = specs.get(table.name.lower())
        if not spec:
            continue
        desc = spec.get("description")
        if not table.comment and desc and desc["status"] != "rejected":
            table.comment = desc["text"]
        columns = {name.lower(): entry for name, entry in spec.get("columns", {}).items()}
        for col in table.columns:
            entry = columns.get(col.name.lower())
            if not col.comment and entry and entry["status"] != "rejected":
                col.comment = entry["text"]


def dump_enriched(data: dict[str, Any]) -> str:
    """Deterministic YAML text of :func:`load_enriched`-shaped ``data``: ``version`` first, tables and
    columns sorted by name, entry keys in a fixed order, one line per text; empty tables left out."""
    def entry(e: dict[str, Any]) -> dict[str, Any]:
        return {k: e.get(k) for k in ("text", "status", "model", "generated")}

    tables: dict[str, Any] = {}
    for name in sorted(data.get("tables", {}), key=lambda n: (n.lower(), n)):
        spec = data["tables"][name]
        out: dict[str, Any] = {}
        if spec.get("description"):
            out["description"] = entry(spec["description"])
        cols = spec.get("columns") or {}
        if cols:
            out["columns"] = {c: entry(cols[c]) for c in sorted(cols, key=lambda n: (n.lower(), n))}
        if out:
            tables[name] = out
    doc = {"version": VERSION, "tables": tables}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=4096, default_flow_style=False)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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


def _columns_prompt(table: TableInfo, names: list[str], dialect: str) -> list[Any]:
    user = column_description.USER.format(
        table=table.name, about=clip_words(table.comment or "(undocumented)", 60),
        all_columns=", ".join(c.name for c in table.columns), columns=_column_lines(table, names))
    return chat(column_description.SYSTEM.format(dialect=dialect), user)


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
) -> EnrichReport:
    """Generate descriptions for the undocumented tables and columns of ``db`` into ``out_path`` (YAML).

    Reads the schema without enriched text (human comments only), with 5 sample rows, profiles and masking
    (``sensitive_patterns``, default: ``llms.settings.retrieval.sensitive_patterns``). Entries already in
    ``out_path`` are skipped; ``force`` regenerates pending and rejected ones (approved/edited are kept).
    Every LLM call uses role "generator" through :func:`agent.llm.invoke_structured` and is recorded in
    ``usage``; ``model_name`` and ``today`` (default: today) are the recorded provenance. A table whose call
    fails (LLMError) is recorded in ``report.errors`` and the run continues; the file is rewritten after
    each table that produced text.

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
    for table in tqdm(tables, desc=f"Enriching {db.key}", unit="table", disable=not progress):
        key = names.get(table.name.lower(), table.name)
        spec = data["tables"].get(key) or {"description": None, "columns": {}}
        by_lower = {c.lower(): c for c in spec["columns"]}
        want_table = not table.comment and _todo(spec["description"], force)
        want_cols = [c.name for c in table.columns
                     if not c.comment and _todo(spec["columns"].get(by_lower.get(c.name.lower(), "")), force)]
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
                described = invoke_structured(llms, "generator", _columns_prompt(table, batch, db.dialect),
                                              ColumnDescriptions, usage, max_tokens=ENRICH_MAX_TOKENS)
                wanted = {n.lower(): n for n in batch}
                for item in described.columns:
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


def cmd_enrich(args: argparse.Namespace, settings: Settings) -> int:
    """``nl2sql enrich [--database URL] [--out PATH] [--force]``: describe undocumented tables and columns.

    ``args`` needs ``out`` (path or None: the default of :func:`default_enriched_path`, server databases in
    ``settings.state_dir``) and ``force``; ``args.database`` (optional) overrides the database URL. Starts
    the local model server when the generator uses it. Returns 0, or 1 when some tables failed.
    Raises LocalServerError/ModelFileError (RuntimeError) when the local server cannot start.
    """
    from agent.local_server import ensure_local_server

    settings = settings.with_database(getattr(args, "database", None))
    db = Database.from_settings(settings)
    out = Path(args.out) if getattr(args, "out", None) else default_enriched_path(db, settings.state_dir)
    assert out is not None
    if settings.generator.is_local_default:
        ensure_local_server(settings)
    usage = UsageLog()
    report = enrich(db, LLMProvider(settings), out, usage=usage, model_name=settings.generator.model,
                    force=bool(getattr(args, "force", False)), progress=not getattr(args, "quiet", False))
    totals = usage.totals()
    print(f"Enriched '{db.key}' -> {out}: {len(report.tables_described)} table summaries, "
          f"{report.columns_described} column descriptions, {report.tables_skipped} tables already done; "
          f"{int(totals['llm_calls'])} LLM calls in {report.seconds:.1f} s")
    for table, error in sorted(report.errors.items()):
        print(f"  failed: {table}: {error}")
    return 1 if report.errors else 0
