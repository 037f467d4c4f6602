"""Where the missing-column probe could act: questions whose cascade repaired a query that failed with "no such column".

    python repairs.py NAMES_ONLY.jsonl WITH_VALUES.jsonl

Pairs the two runs by qid and prints, for the questions where either run wrote a repair after a missing-column
error, strict EX of each run, and how many repairs of each run returned rows; then every question whose EX
differs, with each run's repairs.
"""

import json
import sys
from pathlib import Path


def load(path: str) -> dict[str, dict]:
    """Evaluation records of ``path`` by qid."""
    return {r["qid"]: r for r in map(json.loads, Path(path).read_text().splitlines())}


def column_repairs(rec: dict) -> list[dict]:
    """The repair candidates of ``rec`` that follow a candidate failing with "no such column"."""
    cands = rec.get("candidates") or []
    out = []
    for i, cand in enumerate(cands):
        if cand["strategy"] == "repair" and i and "no such column" in (cands[i - 1].get("error") or ""):
            out.append(cand)
    return out


a, b = load(sys.argv[1]), load(sys.argv[2])
common = [q for q in a if q in b]
hit = [q for q in common if column_repairs(a[q]) or column_repairs(b[q])]
print(f"{len(common)} questions in both runs; EX names only {sum(a[q]['ex'] for q in common)}, "
      f"with values {sum(b[q]['ex'] for q in common)}")
print(f"{len(hit)} with a repair after a missing-column error in either run: EX names only "
      f"{sum(a[q]['ex'] for q in hit)}, with values {sum(b[q]['ex'] for q in hit)}")
for name, run in (("names only", a), ("with values", b)):
    reps = [c for q in hit for c in column_repairs(run[q])]
    print(f"  {name}: {len(reps)} such repairs, {sum(c['status'] == 'ok' for c in reps)} returned rows")
for q in common:
    if a[q]["ex"] != b[q]["ex"]:
        print(f"\n{q} names only {a[q]['ex']} / with values {b[q]['ex']}: {a[q]['question']}")
        for name, run in (("names only", a), ("with values", b)):
            for c in column_repairs(run[q]):
                print(f"  {name} repair ({c['status']}): {c['sql'][:200]}")
