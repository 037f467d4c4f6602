"""The stored-range check at selection, replayed on recorded runs: which answers it changes, and which of those were right.

    python scripts/replay_range_check.py --spider ../shared/benchmarks/spider-wide RUN.jsonl [RUN2.jsonl ...]

For each recorded question (records of ``nl2sql eval`` with their candidates) the candidates' SQL is run again on
the database, the outcomes are built as the execution step builds them (status ok / empty / error, result
signature), and :func:`tools.number_ranges.out_of_range_candidates` names the candidates the stored values argue
against. When leaving them out of the vote (:func:`tools.execution.pick_majority` over the rest) picks a
different result than the vote over all of them, the new answer replaces the recorded one and both are scored
against the gold query. Prints the trigger count, the questions won and lost (with the conflicts), and the
paired difference over all records (95% bootstrap). It replays the selection only: the later steps a live run
takes after it (column choice, verifier) are not replayed, and the cascade would have stopped at the same
candidates. Needs no model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from database.connection import Database  # noqa: E402
from eval.metrics import paired_bootstrap  # noqa: E402
from scripts.replay_pruning import Databases, load_records, score  # noqa: E402
from tools.execution import pick_majority, result_signature  # noqa: E402
from tools.number_ranges import out_of_range_candidates, range_conflicts  # noqa: E402


def outcomes_of(db: Database, row: dict[str, Any]) -> list[dict[str, Any]]:
    """Execution outcomes of the record's candidates (``index``, ``sql``, ``status``, ``signature``)."""
    out = []
    for c in row.get("candidates") or []:
        sql = c.get("sql")
        o: dict[str, Any] = {"index": c.get("index"), "sql": sql, "status": "invalid", "signature": None}
        if sql and not c.get("error"):
            res = db.run_query(sql, row_cap=10_000)
            if res.ok:
                o.update(status="ok" if res.rows else "empty", signature=result_signature(res))
            else:
                o["status"] = "error"
        out.append(o)
    return out


def main(argv: list[str] | None = None) -> int:
    """Replay the records and print the table; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    Databases.add_arguments(parser)
    parser.add_argument("records", nargs="+", help="evaluation record files (JSONL)")
    args = parser.parse_args(argv)
    dbs = Databases.from_args(args)
    before, after, triggered, changed = [], [], 0, []
    for row in load_records(args.records):
        db, _ = dbs.of(row)
        recorded = int(str(row.get("ex")) in ("1", "True"))
        before.append(recorded)
        outcomes = outcomes_of(db, row)
        left_out = out_of_range_candidates(db, outcomes)
        new = recorded
        if left_out:
            triggered += 1
            all_pick = pick_majority(outcomes, db.dialect)
            kept = pick_majority([o for o in outcomes if o["index"] not in left_out], db.dialect)
            if kept is not None and kept != all_pick:
                old_sig = next(o["signature"] for o in outcomes if o["index"] == all_pick)
                new_o = next(o for o in outcomes if o["index"] == kept)
                if new_o["signature"] != old_sig:
                    new = score(db, row["gold_sql"], new_o["sql"])[0]
                    conflicts = "; ".join(dict.fromkeys(c.describe() for o in outcomes if o["index"] in left_out
                                                            for c in range_conflicts(db, str(o["sql"]))))
                    changed.append((row["qid"], row["db_id"], recorded, new, row["question"], conflicts))
        after.append(new)
    n = len(before)
    print(f"records {n}; a candidate left out in {triggered}; answer changed in {len(changed)}")
    for qid, db_id, old, new, question, conflicts in changed:
        verdict = "won" if new > old else "lost" if new < old else "same"
        print(f"  {verdict:4} {qid} {db_id}: {question[:80]} | {conflicts}")
    won = sum(a > b for a, b in zip(after, before, strict=True))
    lost = sum(a < b for a, b in zip(after, before, strict=True))
    boot = paired_bootstrap(after, before)
    print(f"EX {sum(before)}/{n} -> {sum(after)}/{n}: {100 * boot['diff']:+.1f} [{100 * boot['low']:+.1f}, "
          f"{100 * boot['high']:+.1f}] "
          f"({won} won, {lost} lost)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
