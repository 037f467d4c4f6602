"""The questions of the live example-joins run: where the examples' joins change the index, not read before.

    python benchmarks/results/2026-12-07-example-joins/pick_ids.py WIDE_ABBREV_NOFK 2081 > ids-seed2081.txt

The evaluation's own selection (``--per-db 2 --seed SEED``) and disjoint example split (40 per database, the same
seed) are rebuilt; a database is kept when the examples' joins (:func:`retrieval.example_joins`) change the keys
the index holds (``retrieval.example_joins`` on against off), and its selected questions are kept when no
record, id file or earlier reading of ``benchmarks/results/`` holds them (as ``../2026-12-07-inferred-join-hints/
pick_ids.py`` decides). Prints the ids, in selection order.
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
from eval.datasets import load_spider, select  # noqa: E402
from eval.splits import example_split  # noqa: E402
from retrieval.inferred_joins import with_inferred_joins  # noqa: E402

root, seed = Path(sys.argv[1]), int(sys.argv[2])
items = load_spider(root)
chosen = select(items, per_db=2, seed=seed)
split = example_split(items, chosen, per_db=40, seed=seed)
seen: set[str] = set()
for f in glob.glob(str(ROOT / "benchmarks" / "results" / "**" / "*.jsonl"), recursive=True):
    for line in Path(f).read_text().splitlines():
        try:
            seen.add(json.loads(line)["qid"])
        except (ValueError, KeyError, TypeError):
            continue
for f in glob.glob(str(ROOT / "benchmarks" / "results" / "**" / "ids*.txt"), recursive=True):
    if "example-joins" not in f:
        seen |= {line.strip() for line in Path(f).read_text().splitlines() if line.strip()}
order = list(range(len(items)))
random.Random(0).shuffle(order)
seen |= {f"spider-{i + 1}" for i in order[:2000]}
changed: dict[str, bool] = {}
for it in chosen:
    if it.db_id not in changed:
        db = Database(it.database_url)
        tables = read_schema(db, sample_rows=0, profile=True)
        off, _ = with_inferred_joins(db, tables)
        on, _ = with_inferred_joins(db, tables, example_sql=[e["sql"] for e in split.get(it.db_id, [])])
        db.dispose()
        changed[it.db_id] = [t.foreign_keys for t in off] != [t.foreign_keys for t in on]
    if changed[it.db_id] and it.qid not in seen:
        print(it.qid)
print(f"{sum(changed.values())} of {len(changed)} databases change", file=sys.stderr)
