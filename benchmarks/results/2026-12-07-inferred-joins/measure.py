"""How well onboarding's candidate joins recover the declared foreign keys when none is declared. No model.

    python benchmarks/results/2026-12-07-inferred-joins/measure.py ../shared/benchmarks/spider-wide   # from the repo root

For every database of the Spider-layout folder: profile and summarise each table as onboarding's ``profile`` step
does, remove the declared foreign keys from the summaries (a warehouse that declares none), run
:func:`retrieval.onboarding.joins.candidate_joins`, and compare the joins found with the declared single-column
foreign keys (child column -> parent column, case-insensitive). Prints pooled recall and precision, the count per
evidence kind, and the seconds.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

from database.connection import Database
from database.profiling import profile_table
from database.schema_reader import read_schema
from retrieval.onboarding.joins import candidate_joins
from retrieval.onboarding.profile import ENUM_MAX_CODES, LOW_CARDINALITY, summarise

root = Path(sys.argv[1])
counts: Counter[str] = Counter()
started = time.perf_counter()
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
    found = {(j["child"].lower(), j["parent"].lower()) for j in joins}
    counts["databases"] += 1
    counts["declared"] += len(declared)
    counts["found"] += len(found)
    counts["found and declared"] += len(found & declared)
    for j in joins:
        counts[f"evidence {j['evidence']}"] += 1
        counts[f"evidence {j['evidence']} declared"] += (j["child"].lower(), j["parent"].lower()) in declared
recall = counts["found and declared"] / max(1, counts["declared"])
precision = counts["found and declared"] / max(1, counts["found"])
print(dict(counts))
print(f"recall {recall:.3f}, precision {precision:.3f}, {time.perf_counter() - started:.0f} s")
