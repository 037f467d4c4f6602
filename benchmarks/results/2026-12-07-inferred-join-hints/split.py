"""The paired run split by whether the gold query joins tables, from the repository root.

Usage::

    python benchmarks/results/2026-12-07-inferred-join-hints/split.py OFF.jsonl ON.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def records(path: str) -> dict[str, dict]:
    """The records of one run by question id."""
    return {r["qid"]: r for r in map(json.loads, Path(path).read_text().splitlines())}


off, on = records(sys.argv[1]), records(sys.argv[2])
common = [q for q in off if q in on]
for label, pick in (("gold joins tables", True), ("gold reads one table", False)):
    qs = [q for q in common if (" JOIN " in off[q]["gold_sql"].upper()) == pick]
    won = sum(on[q]["ex"] and not off[q]["ex"] for q in qs)
    lost = sum(off[q]["ex"] and not on[q]["ex"] for q in qs)
    print(f"{label}: {len(qs)} questions, off {sum(off[q]['ex'] for q in qs)}, on {sum(on[q]['ex'] for q in qs)} "
          f"({won} won, {lost} lost); calls {sum(off[q]['llm_calls'] for q in qs) / max(1, len(qs)):.2f} -> "
          f"{sum(on[q]['llm_calls'] for q in qs) / max(1, len(qs)):.2f}")
