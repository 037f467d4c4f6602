"""Step ``profile``: every table and column profiled, with date, code-like and key columns, and candidate joins.

Per table :func:`database.profiling.profile_table` runs its aggregate statement (row count, null share, distinct
count, min/max) and the top values of low-cardinality text columns; values of sensitive columns are masked
(:func:`database.masking.mask_table`) before anything is kept. On top of it this step marks:

- **date** columns: observed ISO dates, or a DATE/TIME type;
- **code-like** columns (:func:`is_code_like`): text with 2 to :data:`ENUM_MAX_CODES` distinct values, all known,
  each a short upper-case code (``XNYS``, ``MCAP_CAPPED_10``), the material of enum drafts;
- **candidate keys** (:func:`is_candidate_key`): no NULLs and as many distinct values as rows;
- **candidate joins** where no foreign key is declared (:mod:`retrieval.onboarding.joins`).

The result (``{"tables": {T: summary}, "joins": [...]}``, shapes in :func:`summarise`) is checkpointed after
every table, so an interrupted profile resumes at the next table. RubikSQL builds its knowledge base from such
profiling; here it feeds the drafts and the review order.
"""

from __future__ import annotations

import re
from typing import Any

from database.masking import mask_table
from database.profiling import profile_table
from database.schema_reader import read_schema
from database.schema_types import ColumnInfo, TableInfo
from retrieval.onboarding.context import StepOutcome, StepRun
from retrieval.onboarding.joins import candidate_joins

ENUM_MAX_CODES = 30
"""A code-like column has at most this many distinct values (and all of them are in its profile)."""

LOW_CARDINALITY = 50
"""Text columns with at most this many distinct values get their top values profiled."""

CODE_RE = re.compile(r"^[A-Z0-9][A-Z0-9_.\-/]{0,15}$")
_DATE_TYPE = re.compile(r"DATE|TIME", re.IGNORECASE)


def is_code_like(column: dict[str, Any]) -> bool:
    """True for a summarised column (see :func:`summarise`) whose values look like a small set of codes.

    Text, not masked, 2 to :data:`ENUM_MAX_CODES` distinct values, all of them among its top values, each
    matching :data:`CODE_RE` (upper case, at most 16 characters) and at least one with a letter.
    """
    top = [str(v) for v, _n in column.get("top") or []]
    distinct = column.get("distinct") or 0
    return (column.get("kind") == "text" and not column.get("masked") and 2 <= distinct <= ENUM_MAX_CODES
            and len(top) == distinct and all(CODE_RE.match(v) for v in top)
            and any(ch.isalpha() for v in top for ch in v))


def is_candidate_key(column: dict[str, Any], rows: int) -> bool:
    """True when a summarised column has no NULLs and ``rows`` distinct values (``rows`` > 0), text or integer.

    A column of a sampled table (``distinct_sample``: its distinct values were counted over that many rows) needs
    as many distinct values as the sample has rows.
    """
    counted = min(rows, int(column.get("distinct_sample") or rows))
    return (rows > 0 and column.get("null_share") == 0 and column.get("distinct") == counted
            and column.get("kind") in ("text", "number") and not isinstance(column.get("min"), float))


def _column(table: TableInfo, col: ColumnInfo) -> dict[str, Any]:
    prof = col.profile
    out: dict[str, Any] = {"type": col.type, "documented": bool(col.comment), "comment": col.comment or ""}
    if prof is not None:
        out |= {"kind": prof.kind, "null_share": round(prof.null_share, 4), "distinct": prof.distinct_count,
                "min": prof.min, "max": prof.max, "top": [[v, n] for v, n in prof.top_values],
                "masked": prof.masked, "distinct_sample": prof.distinct_sample}
    out["date"] = out.get("kind") == "date" or bool(_DATE_TYPE.search(col.type or ""))
    return out


def summarise(table: TableInfo) -> dict[str, Any]:
    """The JSON-ready summary of a profiled (and masked) ``table``.

    ``{"rows", "documented", "comment", "primary_key", "foreign_keys": [{"columns", "ref_table", "ref_columns"}],
    "columns": {name: {"type", "documented", "comment", "kind", "null_share" (0..1), "distinct", "min", "max",
    "top": [[value, count]], "masked", "distinct_sample" (None, or the rows "distinct" was counted over), "date",
    "code", "key"}}, "keys": [candidate key columns]}``.
    """
    columns = {c.name: _column(table, c) for c in table.columns}
    rows = next((c.profile.row_count for c in table.columns if c.profile is not None), 0)
    keys = [name for name, c in columns.items()
            if is_candidate_key(c, rows) or (table.primary_key == [name] and rows > 0)]
    for name, c in columns.items():
        c["code"] = is_code_like(c)
        c["key"] = name in keys
    return {"rows": rows, "documented": bool(table.comment), "comment": table.comment or "",
            "primary_key": list(table.primary_key),
            "foreign_keys": [{"columns": fk.columns, "ref_table": fk.ref_table, "ref_columns": fk.ref_columns}
                             for fk in table.foreign_keys],
            "columns": columns, "keys": keys}


def run_profile(run: StepRun) -> StepOutcome:
    """Profile every table (resuming after the last checkpointed one), then look for candidate joins."""
    job = run.job
    tables = read_schema(job.db, sample_rows=0, use_enriched=False)
    done: dict[str, Any] = dict(run.partial.get("tables") or {})
    for i, table in enumerate(tables, start=1):
        run.item(i, len(tables), table.name)
        if table.name in done:
            continue
        profiles = profile_table(job.db, table, top_n=ENUM_MAX_CODES, low_cardinality=LOW_CARDINALITY)
        for col in table.columns:
            col.profile = profiles.get(col.name)
        done[table.name] = summarise(mask_table(table, job.sensitive_patterns))
        run.checkpoint({"tables": done})
    summary = {name: done[name] for name in (t.name for t in tables)}
    joins, checked = candidate_joins(job.db, summary, on_check=lambda j, m, label: run.item(j, m, label))
    found = [j for j in joins if not j["declared"]]
    codes = sum(c["code"] for t in summary.values() for c in t["columns"].values())
    dates = sum(c["date"] for t in summary.values() for c in t["columns"].values())
    note = (f"{len(summary)} tables, {sum(len(t['columns']) for t in summary.values())} columns: {dates} date, "
            f"{codes} code-like; {len(found)} candidate joins beyond {len(joins) - len(found)} declared "
            f"({checked} overlap checks)")
    return StepOutcome(items=len(summary), result={"tables": summary, "joins": joins}, note=note)
