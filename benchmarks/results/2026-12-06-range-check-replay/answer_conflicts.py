"""How often an answer whose SQL compares a number outside its column's stored values is right, on recorded runs.

    python answer_conflicts.py SPIDER_FOLDER RUN.jsonl [RUN2.jsonl ...]

For each record with a ``pred_sql``, :func:`tools.number_ranges.range_conflicts` on the database; prints the
answers with a conflict (right or wrong, the recorded confidence level) and the totals.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from database.connection import Database  # noqa: E402
from tools.number_ranges import range_conflicts  # noqa: E402

folder, files = sys.argv[1], sys.argv[2:]
dbs: dict[str, Database] = {}
total = flagged = right = verified = verified_right = 0
for f in files:
    for line in Path(f).read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if not rec.get("pred_sql"):
            continue
        total += 1
        db = dbs.setdefault(rec["db_id"], Database(f"sqlite:///{folder}/database/{rec['db_id']}/{rec['db_id']}.sqlite"))
        found = range_conflicts(db, rec["pred_sql"])
        if not found:
            continue
        ok = str(rec.get("ex")) in ("1", "True")
        level = rec.get("confidence_level")
        flagged += 1
        right += ok
        verified += level == "verified"
        verified_right += level == "verified" and ok
        print(f"{'right' if ok else 'wrong'} {level} {rec['qid']} {rec['db_id']}: {rec['question'][:70]} | "
              f"{found[0].describe()}")
print(f"answers {total}; with a range conflict {flagged}, right {right}; recorded as verified {verified} "
      f"({verified_right} right)")
