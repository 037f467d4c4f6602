"""Build the question file of this measurement from a recorded run on the abbreviated wide copies.

Usage: python make_questions.py RECORDS WIDE_ABBREV OUT_DIR [N]
  RECORDS      the abbreviated run's records (its first N, default 134, are the questions considered)
  WIDE_ABBREV  the abbreviated copy of the wide set (database/<db_id>/<db_id>.sqlite)
  OUT_DIR      gets database/<db_id>/ copies of every database with a question whose gold query reads a
               column renamed c<N>, and questions.jsonl (every question on those databases, the c<N> ones
               first, ids kept so that the records pair with the source run's)
"""

import json
import re
import shutil
import sys
from pathlib import Path

records, abbrev, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
limit = int(sys.argv[4]) if len(sys.argv) > 4 else 134
runs = [json.loads(line) for line in records.read_text().splitlines() if line.strip()][:limit]
opaque = re.compile(r"\bc\d+\b")
dbs = sorted({r["db_id"] for r in runs if opaque.search(r.get("gold_sql") or "")})
for db in dbs:
    (out / "database" / db).mkdir(parents=True, exist_ok=True)
    for src in (abbrev / "database" / db).glob("*.sqlite"):
        shutil.copy(src, out / "database" / db / src.name)
items = []
for r in runs:
    if r["db_id"] in dbs:
        path = next((out / "database" / r["db_id"]).glob("*.sqlite")).resolve()
        items.append({"id": r["qid"], "question": r["question"], "gold_sql": r["gold_sql"],
                      "database_url": f"sqlite:///{path}", "db_id": r["db_id"],
                      "category": r.get("category") or "answer"})
items.sort(key=lambda it: not opaque.search(it["gold_sql"]))  # stable: the c<N> questions first
(out / "questions.jsonl").write_text("".join(json.dumps(it) + "\n" for it in items))
print(f"{len(dbs)} databases, {len(items)} questions")
