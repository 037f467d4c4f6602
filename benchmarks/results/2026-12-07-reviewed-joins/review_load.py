"""What a reviewer sees of the candidate joins onboarding drafts, and how many are right. No model.

    python benchmarks/results/2026-12-07-reviewed-joins/review_load.py ../shared/benchmarks/spider-wide   # repo root

For every database of the Spider-layout folder: profile and summarise each table as onboarding's ``profile`` step
does, remove the declared foreign keys from the summaries (a warehouse that declares none), run
:func:`retrieval.onboarding.joins.candidate_joins` and keep one join per column as the ``draft_joins`` step does
(:func:`retrieval.onboarding.joins.best_joins`). A draft is right when it is one of the declared
single-column foreign keys. Prints the drafts per database (median, max), how many are right by evidence kind, and
how many of the declared keys the drafts hold.
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path

from database.connection import Database
from database.profiling import profile_table
from database.schema_reader import read_schema
from retrieval.onboarding.joins import best_joins, candidate_joins
from retrieval.onboarding.profile import ENUM_MAX_CODES, LOW_CARDINALITY, summarise

root = Path(sys.argv[1])
counts: Counter[str] = Counter()
per_db: list[int] = []
for path in sorted((root / "database").glob("*/*.sqlite")):
    db = Database(f"sqlite:///{path}")
    tables = read_schema(db, sample_rows=0, use_enriched=False)
    declared = {(f"{t.name}.{own}".lower(), f"{fk.ref_table}.{ref}".lower())
                for t in tables for fk in t.foreign_keys if len(fk.columns) == 1
                for own, ref in zip(fk.columns, fk.ref_columns or [], strict=False)}
    summary = {}
    for table in tables:
        profiles = profile_table(db, table, top_n=ENUM_MAX_CODES, low_cardinality=LOW_CARDINALITY)
        for col in table.columns:
            col.profile = profiles.get(col.name)
        summary[table.name] = {**summarise(table), "foreign_keys": []}
    joins, _ = candidate_joins(db, summary)
    db.dispose()
    drafts = best_joins(joins)
    per_db.append(len(drafts))
    counts["declared"] += len(declared)
    for (table, column), join in drafts.items():
        right = (f"{table}.{column}".lower(), join["parent"].lower()) in declared
        counts[f"drafts {join['evidence']}"] += 1
        counts[f"right {join['evidence']}"] += right
        counts["right"] += right
drafts_total = sum(per_db)
print(f"{len(per_db)} databases, {drafts_total} join drafts: median {statistics.median(per_db)} per database, "
      f"max {max(per_db)}")
for kind in ("name+values", "values"):
    n = counts[f"drafts {kind}"]
    print(f"  {kind}: {n} drafts, {counts[f'right {kind}']} right ({counts[f'right {kind}'] / max(1, n):.1%})")
print(f"right {counts['right']} of {drafts_total} ({counts['right'] / max(1, drafts_total):.1%}); "
      f"the drafts hold {counts['right']} of {counts['declared']} declared single-column keys "
      f"({counts['right'] / max(1, counts['declared']):.1%})")
