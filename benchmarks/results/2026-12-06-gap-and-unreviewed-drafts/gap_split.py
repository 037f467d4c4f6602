"""The gap between the abbreviated copies and the original names, split by whether the gold query reads a c<N> column.

    python gap_split.py ORIGINAL_NAMES.jsonl

Reads the abbreviated run with stored-value hints (4e48ca4, seed 2031) from ../2026-12-06-opaque-value-hints/
and pairs it with ORIGINAL_NAMES.jsonl by qid.
"""

import json
import re
import sys
from pathlib import Path

HINTS = Path(__file__).resolve().parent.parent / "2026-12-06-opaque-value-hints"
FILES = ("abbrev-no_examples-4e48ca4-hints-on-seed2031-90.jsonl", "abbrev-no_examples-4e48ca4-hints-on-seed2031-last40.jsonl")


def load(path: Path) -> dict[str, dict]:
    """Evaluation records of ``path`` by qid."""
    return {r["qid"]: r for r in map(json.loads, path.read_text().splitlines())}


abbrev = {q: r for f in FILES for q, r in load(HINTS / f).items()}
orig = load(Path(sys.argv[1]))
common = [q for q in orig if q in abbrev]
print(len(common), "questions: original names", sum(orig[q]["ex"] for q in common),
      "abbreviated", sum(abbrev[q]["ex"] for q in common))
opaque = lambda q: bool(re.search(r"\bc\d+\b", abbrev[q]["gold_sql"]))  # noqa: E731
for name, keep in (("gold reads a c<N> column", opaque), ("other", lambda q: not opaque(q))):
    qs = [q for q in common if keep(q)]
    print(f"{name}: {len(qs)} questions, original names {sum(orig[q]['ex'] for q in qs)}, "
          f"abbreviated {sum(abbrev[q]['ex'] for q in qs)}")
