"""The questions of the inferred-join run: unseen questions on key-dropped abbreviated copies whose database gets joins.

    python benchmarks/results/2026-12-07-inferred-join-hints/pick_ids.py WIDE_ABBREV_NOFK > ids-seed2071.txt

WIDE_ABBREV_NOFK is ``scripts/abbreviate_db.py ... --seed 2026 --drop-foreign-keys`` (the copies of
``WIDE_ABBREV`` without their foreign keys: same names, rows and question ids). A question counts as seen when a
record of ``benchmarks/results/`` holds its id (on the copies, or its source question on spider-wide), an id file
there lists it, or it is among the first 2,000 of the seed-0 shuffle of the copies' questions that the term-recall
work read. Databases on which :func:`retrieval.inferred_joins.with_inferred_joins` adds no join are left out (both
arms see the same prompts there); from each of the others two unseen questions are drawn (seed 2071), in question
id order.
"""

from __future__ import annotations

import glob
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from retrieval.inferred_joins import with_inferred_joins  # noqa: E402

root = Path(sys.argv[1])
dev = json.loads((root / "dev.json").read_text())
seen: set[tuple[str, str]] = set()
for f in glob.glob(str(ROOT / "benchmarks" / "results" / "**" / "*.jsonl"), recursive=True):
    if "inferred-join-hints" in f:
        continue
    for line in Path(f).read_text().splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if "qid" in r:
            seen.add((str(r.get("db_id", "")), r["qid"]))
seen_q = {q for _, q in seen}
for f in glob.glob(str(ROOT / "benchmarks" / "results" / "**" / "ids*.txt"), recursive=True):
    if "inferred-join-hints" not in f:  # this run's own list and records
        seen_q |= {line.strip() for line in Path(f).read_text().splitlines() if line.strip()}
order = list(range(len(dev)))
random.Random(0).shuffle(order)
seen_q |= {f"spider-{i + 1}" for i in order[:2000]}
source_seen = {q for db, q in seen if "_abbr_" not in db}
by_db: dict[str, list[str]] = {}
for i, row in enumerate(dev):
    qid = f"spider-{i + 1}"
    if qid not in seen_q and f"spider-{row['source_index'] + 1}" not in source_seen:
        by_db.setdefault(row["db_id"], []).append(qid)
rng = random.Random(2071)
ids: list[str] = []
for db_id in sorted(by_db):
    db = Database(f"sqlite:///{root}/database/{db_id}/{db_id}.sqlite")
    _, added = with_inferred_joins(db, read_schema(db, sample_rows=0, profile=True))
    db.dispose()
    if added:
        qs = by_db[db_id][:]
        rng.shuffle(qs)
        ids += qs[:2]
print("\n".join(ids))
