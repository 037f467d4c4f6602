"""A team's own data dictionary (a spreadsheet of table, column, description) imported as reviewed descriptions.

Most analyst teams already keep one: a sheet exported from a data catalogue or written by whoever built the
warehouse. On a database whose columns are named ``c14`` or ``t_fed_rev`` it is the only text that says what a
column holds, and it is text people wrote, so it needs no review. :func:`read_dictionary` reads ``.csv``,
``.tsv``/``.txt`` (tab-separated), ``.xlsx`` (first sheet) or the YAML of a metadata file
(``tables: {T: {description, columns: {C: text}}}``); the header names are matched loosely (``table`` / ``table_name``
/ ``entity``; ``column`` / ``field`` / ``attribute``; ``description`` / ``definition`` / ``comment`` / ``meaning``;
case, spaces and underscores ignored). A row without a column describes its table.

:func:`import_dictionary` writes the rows that name a table (and column) of the database into the enrichment file
(:mod:`database.descriptions`) with status ``edited``, the status of text a person wrote, provenance
``dictionary:<file name>``: the agent uses them at once (an opaque column becomes documented, so its value hints,
links and hold-backs stop), the ``describe`` step of onboarding skips them, and the review queue never shows them.
Text already reviewed in that file (approved or edited) and comments stored in the database are kept unless
``overwrite``; pending and rejected drafts are replaced. Rows naming nothing in the schema are reported, not
written. The file is written atomically.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from core.errors import ConfigurationError
from database.descriptions import dump_enriched, load_enriched, write_atomic
from database.schema_types import TableInfo

HEADERS: dict[str, tuple[str, ...]] = {
    "table": ("table", "tablename", "tbl", "entity", "object", "dataset"),
    "column": ("column", "columnname", "col", "field", "fieldname", "attribute", "variable"),
    "description": ("description", "desc", "definition", "comment", "comments", "meaning", "notes", "businessdefinition"),
}
"""Accepted header names per role, compared with case, spaces, underscores and hyphens removed."""


@dataclass(frozen=True)
class DictionaryRow:
    """One described table (``column`` None) or column, as the file names them."""

    table: str
    column: str | None
    text: str


@dataclass
class DictionaryReport:
    """What :func:`import_dictionary` did.

    ``tables`` and ``columns``: descriptions written; ``kept``: rows not written because reviewed text or a
    database comment was already there (``"T.C"``); ``unknown``: rows naming no table or column of the database.
    """

    tables: int = 0
    columns: int = 0
    kept: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def _key(header: Any) -> str:
    return re.sub(r"[\s_\-.]+", "", str(header)).lower()


def _rows_from_frame(frame: pd.DataFrame, path: Path) -> list[DictionaryRow]:
    roles: dict[str, str] = {}
    for header in frame.columns:
        for role, names in HEADERS.items():
            if _key(header) in names and role not in roles:
                roles[role] = header
    missing = [role for role in ("table", "description") if role not in roles]
    if missing:
        raise ConfigurationError(
            f"the data dictionary {path.name} has no {' and no '.join(missing)} header (headers: "
            f"{', '.join(map(str, frame.columns)) or 'none'})",
            remedy="Name the columns of its first row table, column and description.")
    rows = []
    for record in frame.to_dict("records"):
        table = str(record.get(roles["table"]) or "").strip()
        text = str(record.get(roles["description"]) or "").strip()
        column = str(record.get(roles["column"]) or "").strip() if "column" in roles else ""
        if table and text and text.lower() != "nan" and table.lower() != "nan":
            rows.append(DictionaryRow(table, column if column and column.lower() != "nan" else None, text))
    return rows


def _rows_from_yaml(raw: Any, path: Path) -> list[DictionaryRow]:
    if not isinstance(raw, dict) or not isinstance(raw.get("tables"), dict):
        raise ConfigurationError(f"the data dictionary {path.name} has no 'tables' mapping",
                                 remedy="Use the metadata layout: tables: {TABLE: {description: ..., columns: {COL: ...}}}.")
    rows = []
    for table, spec in raw["tables"].items():
        spec = spec if isinstance(spec, dict) else {"description": spec}
        if spec.get("description"):
            rows.append(DictionaryRow(str(table), None, str(spec["description"]).strip()))
        for column, text in (spec.get("columns") or {}).items():
            if text:
                rows.append(DictionaryRow(str(table), str(column), str(text).strip()))
    return rows


def read_dictionary(path: Path) -> list[DictionaryRow]:
    """The described tables and columns of the data dictionary at ``path`` (see the module docstring).

    Raises:
        ConfigurationError: the file is missing, unreadable, of an unknown kind, or lacks a table or
            description header; the message names the file and what to change.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigurationError(f"no data dictionary at {path}", remedy="Give --dictionary an existing file.")
    suffix = path.suffix.lower()
    try:
        if suffix in (".yaml", ".yml"):
            return _rows_from_yaml(yaml.safe_load(path.read_text(encoding="utf-8")), path)
        if suffix == ".xlsx":
            frame = pd.read_excel(path, dtype=str)
        elif suffix in (".csv", ".tsv", ".txt"):
            frame = pd.read_csv(path, dtype=str, sep="\t" if suffix != ".csv" else ",", encoding="utf-8-sig")
        else:
            raise ConfigurationError(f"the data dictionary {path.name} is not .csv, .tsv, .xlsx or .yaml",
                                     remedy="Export it as CSV (table, column, description).")
    except ConfigurationError:
        raise
    except Exception as exc:  # pandas/yaml/openpyxl raise many kinds for a damaged file
        raise ConfigurationError(f"cannot read the data dictionary {path.name}: {type(exc).__name__}: {exc}",
                                 remedy="Export it again as UTF-8 CSV (table, column, description).") from None
    return _rows_from_frame(frame, path)


def import_dictionary(tables: Iterable[TableInfo], rows: Iterable[DictionaryRow], enriched_path: Path, *,
                      source: str, overwrite: bool = False) -> DictionaryReport:
    """Write ``rows`` into the enrichment file at ``enriched_path`` as reviewed text (see the module docstring).

    Args:
        tables: the database's tables as :func:`database.schema_reader.read_schema` reads them (their comments
            are what the database stores; names are matched case-insensitively and written as stored).
        rows: from :func:`read_dictionary`.
        enriched_path: the enrichment file (created when missing).
        source: the dictionary's file name, kept as provenance (``model: dictionary:<source>``).
        overwrite: also replace reviewed entries of the file (never a comment stored in the database).

    Raises:
        ValueError: the existing enrichment file is malformed (nothing is written then).
    """
    by_name = {t.name.lower(): t for t in tables}
    data: dict[str, Any] = load_enriched(enriched_path) if enriched_path.is_file() else {"version": 1, "tables": {}}
    specs: dict[str, Any] = data["tables"]
    report = DictionaryReport()
    entry = {"status": "edited", "model": f"dictionary:{source}", "generated": None}
    for row in rows:
        table = by_name.get(row.table.strip().lower())
        column = None
        if table is not None and row.column is not None:
            column = next((c for c in table.columns if c.name.lower() == row.column.strip().lower()), None)
        where = f"{row.table}.{row.column}" if row.column else row.table
        if table is None or (row.column is not None and column is None):
            report.unknown.append(where)
            continue
        named = next((name for name in specs if name.lower() == table.name.lower()), table.name)
        spec = specs.setdefault(named, {"description": None, "columns": {}})
        if column is None:
            current, stored = spec.get("description"), table.comment
        else:
            columns = spec.setdefault("columns", {})
            same = next((name for name in columns if name.lower() == column.name.lower()), column.name)
            current, stored = columns.get(same), column.comment
        reviewed = current is not None and current["status"] in ("approved", "edited")
        if stored or (reviewed and not overwrite):
            report.kept.append(where)
            continue
        if column is None:
            spec["description"] = {"text": row.text, **entry}
            report.tables += 1
        else:
            spec["columns"].pop(same, None)
            spec["columns"][column.name] = {"text": row.text, **entry}
            report.columns += 1
    if report.tables or report.columns:
        write_atomic(enriched_path, dump_enriched(data))
    return report
