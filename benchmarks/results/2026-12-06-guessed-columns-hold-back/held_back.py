"""Answers kept below "verified" only because they read an opaque column nobody described: how often right?

    python held_back.py WIDE_ABBREV

Scores the recorded abbreviated runs of three samples (seeds 2027, 2031, 2034; no examples) with the shipped
confidence model (agent/confidence_model.json) and the column-meaning counts of 4952356
(`../2026-12-06-term-checks/*-after-4952356.json.gz`). Records written before the guessed-column and
unread-term signals existed get them from their SQL. For each run prints EX of the answers called verified, of
those whose score reaches the verified threshold and that only the ``guessed_columns`` hold-back keeps below it,
and of the rest; then each held-back answer (qid, EX, score).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parent / "2026-12-06-term-checks"))
warnings.filterwarnings("ignore")

from diff_checks import load  # noqa: E402

from agent.confidence import load_model  # noqa: E402
from database.connection import Database  # noqa: E402
from tools.opaque_reads import guessed_columns, unread_terms  # noqa: E402

RUNS = {
    "seed 2027 (7d03b9f)": (["2026-12-05-column-choice/abbrev-no_examples-7d03b9f-seed2027.jsonl"], "2027"),
    "seed 2031 (4e48ca4)": (["2026-12-06-opaque-value-hints/abbrev-no_examples-4e48ca4-hints-on-seed2031-90.jsonl",
                             "2026-12-06-opaque-value-hints/abbrev-no_examples-4e48ca4-hints-on-seed2031-last40.jsonl"],
                            "2031"),
    "seed 2034 (4817035)": (["2026-12-06-term-checks/abbrev-no_examples-4817035-seed2034-100.jsonl"], "2034"),
}


def main() -> int:
    """Print the table."""
    root = Path(sys.argv[1])
    model = load_model()
    dbs: dict[str, Database] = {}
    for name, (runs, seed) in RUNS.items():
        checks = {q: len(r["term_checks"]) for q, r in
                  load(str(HERE.parent / "2026-12-06-term-checks" / f"abbrev-{seed}-after-4952356.json.gz")).items()}
        cells: dict[str, list[int]] = {"verified": [0, 0], "held back only for a guessed column": [0, 0], "rest": [0, 0]}
        held = []
        for run in runs:
            for line in (HERE.parent / run).read_text().splitlines():
                rec = json.loads(line)
                features = (rec.get("confidence") or {}).get("features")
                if not features or rec["qid"] not in checks:
                    continue
                if "unread_terms" not in features:
                    if rec["db_id"] not in dbs:
                        dbs[rec["db_id"]] = Database(f"sqlite:///{root / 'database' / rec['db_id'] / (rec['db_id'] + '.sqlite')}")
                    db, sql = dbs[rec["db_id"]], rec.get("pred_sql") or ""
                    features = {**features,
                                "guessed_columns": float(len(guessed_columns(db, False, sql))) if sql else 0.0,
                                "unread_terms": float(bool(unread_terms(db, False, rec["question"], sql))) if sql else 0.0}
                features = {**features, "term_checks": float(checks[rec["qid"]])}
                score = model.score(features)
                others = [h for h in model.hold_back if h != "guessed_columns" and features.get(h, 0) > 0]
                if model.level(score, features) == "verified":
                    cell = "verified"
                elif score >= model.verified and not others and features.get("guessed_columns", 0) > 0:
                    cell = "held back only for a guessed column"
                    held.append(f"{rec['qid']} ex={rec['ex']} score={score:.3f}")
                else:
                    cell = "rest"
                cells[cell][0] += int(rec["ex"])
                cells[cell][1] += 1
        print(f"{name}: " + "; ".join(f"{k} {r}/{n}" for k, (r, n) in cells.items()))
        for h in held:
            print(f"  {h}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
