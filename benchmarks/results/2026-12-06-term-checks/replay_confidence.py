"""Answers called verified before and after: recorded confidence features with the term-check count replayed.

    ROOT=/path/to/dataset python replay_confidence.py RUN.jsonl[,RUN2.jsonl] BEFORE.json.gz AFTER.json.gz

RUN is an evaluation run (``nl2sql eval`` records with confidence features). BEFORE and AFTER are
``measure_answerability.py --term-checks --json`` outputs on the same questions. For each record the shipped
confidence model (agent/confidence_model.json) scores the recorded features, once with the term-check count of
BEFORE and once with that of AFTER (``term_checks`` is one of the signals that keep an answer below verified).
Records written before the guessed-column and unread-term signals existed get them computed from their SQL
against ROOT (``database/<db_id>/*.sqlite``). Prints EX per level, before and after.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings("ignore")

from diff_checks import load  # noqa: E402

from agent.confidence import load_model  # noqa: E402
from database.connection import Database  # noqa: E402
from tools.opaque_reads import guessed_columns, unread_terms  # noqa: E402


def main() -> int:
    """Print the levels' EX before and after."""
    runs, before_path, after_path = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
    root = Path(os.environ.get("ROOT", "WIDE_ABBREV"))
    before = {q: len(r["term_checks"]) for q, r in load(before_path).items()}
    after = {q: len(r["term_checks"]) for q, r in load(after_path).items()}
    model = load_model()
    dbs: dict[str, Database] = {}
    records = [json.loads(line) for run in runs for line in Path(run).read_text().splitlines() if line.strip()]
    cells: dict[tuple[str, str], list[int]] = {}
    for rec in records:
        features = (rec.get("confidence") or {}).get("features")
        if not features or rec["qid"] not in after:
            continue
        if "unread_terms" not in features:
            if rec["db_id"] not in dbs:
                dbs[rec["db_id"]] = Database(f"sqlite:///{next((root / 'database' / rec['db_id']).glob('*.sqlite'))}")
            db, sql = dbs[rec["db_id"]], rec.get("pred_sql") or ""
            features = {**features, "guessed_columns": float(len(guessed_columns(db, False, sql))) if sql else 0.0,
                        "unread_terms": float(bool(unread_terms(db, False, rec["question"], sql))) if sql else 0.0}
        for name, count in (("before", before[rec["qid"]]), ("after", after[rec["qid"]])):
            feats = {**features, "term_checks": float(count)}
            cell = cells.setdefault((name, model.level(model.score(feats), feats)), [0, 0])
            cell[0] += int(rec["ex"])
            cell[1] += 1
    print(f"{', '.join(Path(r).name for r in runs)}: {len(records)} records")
    for name in ("before", "after"):
        levels = {lvl: cells.get((name, lvl), [0, 0]) for lvl in ("verified", "likely", "unsure")}
        print(f"  {name:6s} " + "; ".join(f"{lvl} {r}/{n}" for lvl, (r, n) in levels.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
