"""The abbreviated-vs-original gap with examples, pooled over the recorded samples (each question counted once).

    PYTHONPATH=CHECKOUT python pooled.py

Pairs each sample's abbreviated and original-names records by qid (questions in both runs of a sample); a question
drawn by two samples counts once, from the earlier sample. Prints the paired difference with a bootstrap interval
(eval.metrics.paired_bootstrap).
"""

import json
from pathlib import Path

from eval.metrics import paired_bootstrap

HERE = Path(__file__).resolve().parent
SAMPLES = [
    (HERE.parent / "2026-12-06-with-examples-gap-seed2034", "abbrev-with_examples-44856c3-seed2034-60.jsonl",
     "wide-orig-with_examples-44856c3-seed2034-60.jsonl"),
    (HERE.parent / "2026-12-06-with-examples-gap-seed2037", "abbrev-with_examples-dc655c2-seed2037-60.jsonl",
     "wide-orig-with_examples-dc655c2-seed2037-60.jsonl"),
    (HERE, "abbrev-with_examples-d749ed6-seed2041-first48.jsonl", "wide-orig-with_examples-d749ed6-seed2041-first58.jsonl"),
]


def load(path: Path) -> dict[str, int]:
    """Strict EX of each qid of an evaluation JSONL."""
    return {r["qid"]: int(r["ex"]) for r in map(json.loads, path.read_text().splitlines())}


abbrev: dict[str, int] = {}
orig: dict[str, int] = {}
for folder, a_name, o_name in SAMPLES:
    a, o = load(folder / a_name), load(folder / o_name)
    common = [q for q in a if q in o and q not in abbrev]
    print(f"{folder.name}: {len(common)} new questions, abbreviated {sum(a[q] for q in common)}, "
          f"original {sum(o[q] for q in common)}")
    for q in common:
        abbrev[q], orig[q] = a[q], o[q]
qs = sorted(abbrev)
diff = paired_bootstrap([abbrev[q] for q in qs], [orig[q] for q in qs])
print(f"pooled: {len(qs)} questions, abbreviated {sum(abbrev.values())}, original {sum(orig.values())}; "
      f"difference {diff}")
