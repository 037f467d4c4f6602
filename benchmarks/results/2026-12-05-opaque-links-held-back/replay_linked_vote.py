"""Replay: would preferring the candidates that read a linked opaque column change the answers?

    python replay_linked_vote.py WIDE_ABBREV RECORDS.jsonl [RECORDS.jsonl ...]

For each record with opaque-column links (``column_links``) and at least two candidates that returned rows, the
recorded candidates are run again (read-only) and grouped by result. Rule tested, not shipped: when the selected
answer reads none of the linked columns and another group's SQL reads one, that group is the answer. Prints per
file the questions where the rule changes the answer, and the strict EX won and lost against the recorded answer
(gold compared as the evaluation does: eval.metrics.results_match, ordered when the gold query orders).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import sqlglot
from sqlglot import exp

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
warnings.filterwarnings("ignore")

from database.connection import Database  # noqa: E402
from eval.metrics import gold_is_ordered, results_match  # noqa: E402


def columns_read(sql: str) -> set[str]:
    """Lower-cased column names ``sql`` reads (none when it does not parse)."""
    try:
        return {c.name.lower() for c in sqlglot.parse_one(sql, read="sqlite").find_all(exp.Column)}
    except sqlglot.errors.SqlglotError:
        return set()


def main() -> int:
    """Replay every file; print the changed questions and the tally."""
    root, files = Path(sys.argv[1]), sys.argv[2:]
    for path in files:
        won = lost = changed = 0
        for line in Path(path).read_text().splitlines():
            rec = json.loads(line)
            linked = {k["column"].lower() for k in rec.get("column_links") or []}
            pred = rec.get("pred_sql") or ""
            ran = [c for c in rec.get("candidates") or [] if c.get("status") == "ok" and c.get("sql")]
            if not linked or len(ran) < 2 or linked & columns_read(pred):
                continue
            alt = next((c for c in ran if linked & columns_read(c["sql"])), None)
            if alt is None:
                continue
            db = Database(f"sqlite:///{next((root / 'database' / rec['db_id']).glob('*.sqlite'))}")
            gold, new = db.run_query(rec["gold_sql"]), db.run_query(alt["sql"])
            if not (gold.ok and new.ok):
                continue
            ex = results_match(gold.rows, new.rows, ordered=gold_is_ordered(rec["gold_sql"]))
            changed += 1
            won += ex and not rec["ex"]
            lost += rec["ex"] and not ex
            print(f"{rec['qid']} recorded {rec['ex']} -> {int(ex)}: {alt['sql'][:100]}")
        print(f"{path}: {changed} answers changed, {won} won, {lost} lost")
    return 0


if __name__ == "__main__":
    sys.exit(main())
