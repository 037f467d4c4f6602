"""Seconds of :func:`retrieval.onboarding.joins.candidate_joins` on a synthetic 300-table warehouse that declares no key.

    python benchmarks/results/2026-12-07-inferred-joins/scale.py

300 tables of 15 integer columns with abbreviated names drawn from 20 parts (seed 0), one key each, every range
compatible with every key (the worst case for the pair search: nothing is ruled out by kind or range); the overlap
statements are answered by a stand-in database object (no real database). Prints the joins found, the statements asked and the seconds.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from retrieval.onboarding.joins import candidate_joins  # noqa: E402

PARTS = ["cust", "ord", "prod", "acct", "txn", "bal", "amt", "dt", "rgn", "br", "emp", "dept", "inv", "pmt", "ship",
         "itm", "cat", "sup", "loc", "ctry"]


class StubDb:
    """Answers every overlap statement with 5 of 10 values found (below the containment threshold)."""

    dialect = "sqlite"
    statements = 0

    def run_query(self, *_args: Any, **_kwargs: Any) -> Any:
        """One row ``(10, 5)``."""
        StubDb.statements += 1
        return type("Result", (), {"ok": True, "rows": [(10, 5)]})()


rng = random.Random(0)
tables: dict[str, dict[str, Any]] = {}
for i in range(300):
    name = f"{rng.choice(PARTS).upper()}_{rng.choice(PARTS).upper()}_{i}"
    columns = {f"{name}_ID": {"kind": "number", "distinct": 1000, "min": 1, "max": 1000, "null_share": 0}}
    for j in range(14):
        columns[f"{rng.choice(PARTS).upper()}_{rng.choice(PARTS).upper()}_{j}"] = {
            "kind": "number", "distinct": 500, "min": 1, "max": 900, "null_share": 0}
    tables[name] = {"rows": 1000, "columns": columns, "keys": [f"{name}_ID"], "primary_key": [f"{name}_ID"],
                    "foreign_keys": []}
started = time.perf_counter()
joins, _ = candidate_joins(StubDb(), tables)  # type: ignore[arg-type]
print(f"{len(joins)} joins, {StubDb.statements} statements, {time.perf_counter() - started:.1f} s")
