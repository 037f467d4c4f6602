"""EX of each run on the questions whose gold query reads a ``c<N>`` column and on the others.

python split.py ORIGINAL_NAMES.jsonl RUN.jsonl [RUN2.jsonl ...]   (paired on the first run's questions)
"""
import json
import re
import sys
from pathlib import Path

OPAQUE = re.compile(r"\bc\d+\b")


def load(path: str) -> dict[str, dict]:
    """Records of one run by qid."""
    rows = (json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip())
    return {r["qid"]: r for r in rows}


runs = {p: load(p) for p in sys.argv[1:]}
first = runs[sys.argv[2]]
opaque = {q for q, r in first.items() if OPAQUE.search(r["gold_sql"])}
for p, run in runs.items():
    hit = {q: int(str(run[q]["ex"]) in ("1", "True")) for q in first if q in run}
    print(f"{Path(p).name}: gold reads c<N> {sum(hit[q] for q in opaque)}/{len(opaque)}, "
          f"other {sum(v for q, v in hit.items() if q not in opaque)}/{len(hit) - len(opaque)}")
