"""Step ``draft_joins``: the candidate joins found in the data, written to the enrichment file for review.

The profile step finds joins the database does not declare (:func:`retrieval.onboarding.joins.candidate_joins`:
a candidate key holding at least 95% of another column's distinct values, by name and values or by values
alone). At question time the joins with name evidence already stand in for the keys of a database that declares
none (:mod:`retrieval.inferred_joins`); this step puts every candidate in front of a reviewer instead, as a
pending ``references`` entry of the enrichment file (:mod:`database.descriptions`)::

    ORD:
      references:
        CUST_ID: {target: CUST.CUST_ID, status: pending, evidence: "name and values: 100% of values found"}

Approved, the join is a foreign key of the listing, the join graph and the paths on every database, whether it
declares keys or not (``origin="reviewed"``); rejected, it is never inferred again. One join per column: when a
column's values fit two keys, the one its name points at, then the higher containment, then the first by name.
Entries already in the file are never changed (a reviewer's decision stays), so a rerun adds only new joins.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

from database.descriptions import dump_enriched, load_enriched, write_atomic
from retrieval.onboarding.context import StepOutcome, StepRun
from retrieval.onboarding.joins import best_joins

__all__ = ["add_join_drafts", "run_draft_joins"]


def _evidence(join: dict[str, Any]) -> str:
    share = join.get("containment")
    found = f"{share:.0%} of its distinct values found in {join['parent']}" if share is not None else "values found"
    return f"{'name and values' if join['evidence'] == 'name+values' else 'values only'}: {found}"


def add_join_drafts(path: Path, joins: list[dict[str, Any]], today: str | None = None) -> list[str]:
    """Write the undeclared candidate joins of ``joins`` (:func:`retrieval.onboarding.joins.best_joins`) to the enrichment file at ``path``.

    Each becomes a pending ``references`` entry ``{target, status, evidence, generated}`` unless its column
    already has one (whatever its status); a missing file is created. Returns the ``TABLE.COLUMN`` names added.
    Raises ValueError for a malformed enrichment file; written atomically.
    """
    data: dict[str, Any] = load_enriched(path) if path.is_file() else {"version": 1, "tables": {}}
    specs = {name.lower(): name for name in data["tables"]}
    added = []
    for (table, column), join in best_joins(joins).items():
        name = specs.setdefault(table.lower(), table)
        spec = data["tables"].setdefault(name, {"description": None, "columns": {}, "references": {}})
        refs = spec.setdefault("references", {})
        if column.lower() in {c.lower() for c in refs}:
            continue
        refs[column] = {"target": join["parent"], "status": "pending", "evidence": _evidence(join),
                        "generated": today or _dt.date.today().isoformat()}
        added.append(f"{table}.{column}")
    if added:
        write_atomic(path, dump_enriched(data))
    return added


def run_draft_joins(run: StepRun) -> StepOutcome:
    """Write the profile's undeclared candidate joins to the enrichment file, pending review."""
    job = run.job
    run.item(1, 1, "candidate joins")
    added = add_join_drafts(job.enriched_path, run.results["profile"]["joins"])
    return StepOutcome(items=len(added), result={"added": added},
                       note=f"{len(added)} candidate joins drafted for review")
