"""Reviewable descriptions of tables and columns: the human metadata file and the LLM-enriched file.

Two YAML files fill comments the database lacks. The metadata file is written by people
(``tables: {TABLE: {description: str, columns: {COL: comment}, references: {COL: PARENT.KEY}}}``; for SQLite
the sidecar ``<stem>.metadata.yaml``); ``references`` states joins the database does not declare. The enrichment file holds generated descriptions with a review status
(written by :mod:`retrieval.enrichment`, reviewed in the developer panel)::

    version: 1
    tables:
      EQ_PX_D:
        description: {text: "...", status: pending, model: qwen2.5-coder-1.5b-instruct, generated: "2025-06-01"}
        columns:
          PX_HI: {text: "...", status: pending, model: ..., generated: ...}
        references: {CUST_ID: {target: CUST.CUST_ID, status: pending, evidence: "name and values: ...", generated: ...}}

``status`` is pending (new), approved, edited (a reviewer changed the text) or rejected (never merged); a
bare string entry counts as ``edited``. Pending entries are merged only when drafts are opted into
(``knowledge.use_drafts``). Comments stored in the database always win. ``references`` are candidate joins
onboarding found in the data (:mod:`retrieval.onboarding.join_drafts`) awaiting the same review: an approved one
is a foreign key with ``origin="reviewed"``; a rejected one is never inferred again
(:func:`rejected_references`); a bare string target counts as approved.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from database.connection import Database
from database.schema_types import ForeignKey, TableInfo

log = logging.getLogger(__name__)

VERSION = 1
STATUSES = ("pending", "approved", "edited", "rejected")


def load_metadata(path: Path) -> dict[str, Any]:
    """Parse a metadata YAML file into ``{table: {"description", "columns", "references"}}``.

    ``description`` is a str or None, ``columns`` ``{col: comment}``, ``references`` ``{col: "TABLE.COLUMN"}``:
    ``references`` (optional, per table) states relations the database does not declare, one column each:
    ``references: {CUST_ID: CUST_MSTR.CUST_ID}``. Keys are lower-cased for case-insensitive matching. Raises
    FileNotFoundError / yaml.YAMLError.
    """
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    result: dict[str, Any] = {}
    for tname, spec in ((raw.get("tables") or {}) if isinstance(raw, dict) else {}).items():
        spec = spec if isinstance(spec, dict) else {"description": spec}
        columns = spec.get("columns")
        columns = columns if isinstance(columns, dict) else {}
        references = spec.get("references")
        references = references if isinstance(references, dict) else {}
        result[str(tname).lower()] = {
            "description": spec.get("description"),
            "columns": {str(c).lower(): str(v) for c, v in columns.items() if v},
            "references": {str(c).lower(): str(v).strip() for c, v in references.items() if v and "." in str(v)},
        }
    return result


def merge_metadata(tables: list[TableInfo], metadata: dict[str, Any]) -> None:
    """Fill missing table and column comments in place from :func:`load_metadata` output.

    A comment stored in the database wins; the file only supplies what the database lacks. A ``references``
    entry becomes a foreign key with ``origin="metadata"`` when its column, table and key exist (names
    case-insensitive) and the database declares no foreign key on that column; others are skipped with a warning
    in the log.
    """
    by_name = {t.name.lower(): t for t in tables}
    for table in tables:
        spec = metadata.get(table.name.lower())
        if not spec:
            continue
        if not table.comment and spec.get("description"):
            table.comment = str(spec["description"]).strip()
        for col in table.columns:
            doc = spec["columns"].get(col.name.lower())
            if not col.comment and doc:
                col.comment = doc.strip()
        for column, target in spec.get("references", {}).items():
            _add_reference(table, column, target, by_name)


def _add_reference(table: TableInfo, column: str, target: str, by_name: dict[str, TableInfo],
                   origin: str = "metadata") -> None:
    """Append the reference ``table.column`` -> ``target`` ("TABLE.COLUMN") when it resolves.

    ``origin`` names the file it came from (metadata; reviewed or inferred from the enrichment file); a column
    that already has a foreign key keeps it.
    """
    own = table.column(column)
    parent_name, _, key_name = target.rpartition(".")
    parent = by_name.get(parent_name.lower())
    key = parent.column(key_name) if parent is not None else None
    if own is None or parent is None or key is None:
        log.warning("%s: %s.%s references %s, which is not in the database; skipped",
                    "metadata" if origin == "metadata" else "enrichment file", table.name, column, target)
        return
    if any(own.name in fk.columns for fk in table.foreign_keys):
        return
    table.foreign_keys.append(ForeignKey([own.name], parent.name, [key.name], origin=origin))


def default_enriched_path(db: Database, state_dir: Path | None = None) -> Path | None:
    """Path of the enrichment file: ``<stem>.enriched.yaml`` next to a SQLite file.

    For server databases ``state_dir/<key>.enriched.yaml`` when ``state_dir`` is given, else None.
    """
    if db.sqlite_path is not None:
        return db.sqlite_path.with_name(f"{db.sqlite_path.stem}.enriched.yaml")
    return state_dir / f"{db.key}.enriched.yaml" if state_dir is not None else None


def _status(raw: dict[str, Any], where: str) -> str:
    """The entry's review status, lower-cased (pending when absent). Raises ValueError for an unknown one."""
    status = str(raw.get("status") or "pending").strip().lower()
    if status not in STATUSES:
        raise ValueError(f"{where}: unknown review status {status!r}; expected one of {STATUSES}")
    return status


def _entry(raw: Any, where: str) -> dict[str, Any] | None:
    """Normalise one entry to ``{"text", "status", "model", "generated"}`` (None when empty)."""
    if isinstance(raw, str):
        raw = {"text": raw, "status": "edited"}
    if not isinstance(raw, dict) or not str(raw.get("text") or "").strip():
        return None
    return {"text": str(raw["text"]).strip(), "status": _status(raw, where), "model": raw.get("model"),
            "generated": str(raw["generated"]) if raw.get("generated") is not None else None}


def _reference(raw: Any, where: str) -> dict[str, Any] | None:
    """Normalise one join entry to ``{"target", "status", "evidence", "generated"}`` (None when empty)."""
    if isinstance(raw, str):
        raw = {"target": raw, "status": "approved"}
    if not isinstance(raw, dict) or "." not in str(raw.get("target") or ""):
        return None
    return {"target": str(raw["target"]).strip(), "status": _status(raw, where), "evidence": raw.get("evidence"),
            "generated": str(raw["generated"]) if raw.get("generated") is not None else None}


def load_enriched(path: Path) -> dict[str, Any]:
    """Parse an enrichment file.

    The result is ``{"version": 1, "tables": {table: {"description": entry | None, "columns": {column:
    entry}, "references": {column: join}}}}`` with entries ``{"text", "status", "model", "generated"}`` and joins
    ``{"target": "TABLE.COLUMN", "status", "evidence", "generated"}``.

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
        refs: dict[str, Any] = spec["references"] if isinstance(spec.get("references"), dict) else {}
        references = {str(c): r for c, v in refs.items() if (r := _reference(v, f"{path}: {tname}.{c}"))}
        tables[str(tname)] = {"description": _entry(spec.get("description"), f"{path}: {tname}"),
                              "columns": columns, "references": references}
    return {"version": VERSION, "tables": tables}


def usable(entry: dict[str, Any] | None, use_drafts: bool = False) -> bool:
    """True when an enriched ``entry`` may fill a gap: approved or edited; pending only with ``use_drafts``."""
    if not entry or entry["status"] == "rejected":
        return False
    return use_drafts or entry["status"] != "pending"


def merge_enriched(tables: list[TableInfo], enriched: dict[str, Any], *, use_drafts: bool = False,
                   table_descriptions: bool = True) -> None:
    """Fill missing table/column comments in place from :func:`load_enriched` output.

    Names match case-insensitively; existing comments always win. Approved and edited entries are used,
    pending ones (drafts nobody reviewed yet) only with ``use_drafts`` (the setting ``knowledge.use_drafts``),
    rejected ones never (:func:`usable`). A column filled from a pending entry gets ``drafted=True``.
    ``table_descriptions=False`` fills column comments only. Usable ``references`` become foreign keys of
    columns that have none: ``origin="reviewed"`` when approved, ``"inferred"`` when pending (drafts opted into).
    """
    specs = {name.lower(): spec for name, spec in enriched.get("tables", {}).items()}
    by_name = {t.name.lower(): t for t in tables}
    for table in tables:
        spec = specs.get(table.name.lower())
        if not spec:
            continue
        desc = spec.get("description")
        if table_descriptions and not table.comment and desc and usable(desc, use_drafts):
            table.comment = desc["text"]
        columns = {name.lower(): entry for name, entry in spec.get("columns", {}).items()}
        for col in table.columns:
            entry = columns.get(col.name.lower())
            if not col.comment and entry and usable(entry, use_drafts):
                col.comment = entry["text"]
                col.drafted = entry["status"] == "pending"
        for column, ref in (spec.get("references") or {}).items():
            if usable(ref, use_drafts):
                _add_reference(table, column, ref["target"], by_name,
                               origin="inferred" if ref["status"] == "pending" else "reviewed")


def rejected_references(path: Path | None) -> frozenset[tuple[str, str]]:
    """``(table, column)`` pairs, lower-cased, whose candidate join a reviewer rejected in the enrichment file.

    Empty when ``path`` is None or missing. Raises ValueError for a malformed file (yaml.YAMLError for bad YAML).
    """
    if path is None or not Path(path).is_file():
        return frozenset()
    return frozenset((t.lower(), c.lower()) for t, spec in load_enriched(Path(path))["tables"].items()
                     for c, ref in spec.get("references", {}).items() if ref["status"] == "rejected")


def dump_enriched(data: dict[str, Any]) -> str:
    """Deterministic YAML text of :func:`load_enriched`-shaped ``data``.

    ``version`` first, tables and columns sorted by name, entry keys in a fixed order, one line per text;
    empty tables left out.
    """
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
        refs = spec.get("references") or {}
        if refs:
            out["references"] = {c: {k: refs[c].get(k) for k in ("target", "status", "evidence", "generated")}
                                 for c in sorted(refs, key=lambda n: (n.lower(), n))}
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
