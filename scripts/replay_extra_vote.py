"""One more candidate in the vote, replayed on recorded runs: an agent run's candidates plus another run's answer.

    python scripts/replay_extra_vote.py --spider ../shared/benchmarks/spider-wide AGENT.jsonl SINGLE_SHOT.jsonl

For each question of ``AGENT.jsonl`` (records of ``nl2sql eval`` with their candidates) that ``SINGLE_SHOT.jsonl``
also answered, the other run's ``pred_sql`` joins the agent's candidates that returned rows, at three positions
(first, second, last), and the vote is replayed: results grouped by :func:`tools.execution.result_signature`, the
largest group wins, ties go to the group of the earliest candidate (no judge). Prints strict EX of the recorded
answer, of the other run, of each position, the paired difference to the other run and to the recorded answer
(95% bootstrap), the questions won and lost, and how the changed answers were decided (a majority, a tie, or a
single result). This is how the whole-schema candidate (the single-shot prompt, first in the local cascade) was
chosen before it was built; it approximates the cascade, which would have stopped at other points. Needs no model.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from database.connection import Database  # noqa: E402
from eval.metrics import paired_bootstrap  # noqa: E402
from scripts.replay_pruning import Databases, load_records, score  # noqa: E402
from tools.execution import result_signature  # noqa: E402

POSITIONS = ("first", "second", "last")


def vote(db: Database, sqls: list[str]) -> tuple[str | None, str]:
    """(SQL of the largest result group, ties to the earliest; how it won: majority, tie, single or none)."""
    groups: dict[str, list[int]] = {}
    for i, sql in enumerate(sqls):
        res = db.run_query(sql, row_cap=10_000)
        if res.ok and res.rows:
            groups.setdefault(result_signature(res), []).append(i)
    if not groups:
        return None, "none"
    sizes = sorted((len(m) for m in groups.values()), reverse=True)
    best = max(groups.values(), key=lambda m: (len(m), -m[0]))
    how = "tie" if len(sizes) > 1 and sizes[0] == sizes[1] else ("single" if sizes[0] == 1 else "majority")
    return sqls[best[0]], how


def placed(extra: str | None, sqls: list[str], position: str) -> list[str]:
    """``sqls`` with ``extra`` inserted at ``position`` (unchanged when there is no extra SQL)."""
    if not extra:
        return sqls
    return {"first": [extra, *sqls], "second": [*sqls[:1], extra, *sqls[1:]], "last": [*sqls, extra]}[position]


def hit(row: dict[str, Any]) -> int:
    """The record's strict EX as 0/1."""
    return int(str(row.get("ex")) in ("1", "True"))


def main(argv: list[str] | None = None) -> int:
    """Replay and print the comparison; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    Databases.add_arguments(parser)
    parser.add_argument("agent", help="records of the agent run (with candidates)")
    parser.add_argument("other", help="records of the run whose answer joins the vote (e.g. single-shot)")
    args = parser.parse_args(argv)
    other = {r["qid"]: r for r in load_records([args.other])}
    rows = [r for r in load_records([args.agent]) if r["qid"] in other]
    if not rows:
        print("no question answered by both runs")
        return 1
    dbs = Databases.from_args(args)
    recorded, single = [hit(r) for r in rows], [hit(other[r["qid"]]) for r in rows]
    by_position: dict[str, list[int]] = {p: [] for p in POSITIONS}
    how_changed: dict[str, Counter[str]] = {p: Counter() for p in POSITIONS}
    for row, was in zip(rows, recorded, strict=True):
        db, _ = dbs.of(row)
        sqls = [str(c["sql"]) for c in row.get("candidates") or [] if c.get("sql") and c.get("status") == "ok"]
        for position in POSITIONS:
            sql, how = vote(db, placed(other[row["qid"]].get("pred_sql"), sqls, position))
            now = score(db, row["gold_sql"], sql)[0] if sql else was
            by_position[position].append(now)
            if now != was:
                how_changed[position][f"{'won' if now else 'lost'} by {how}"] += 1
    n = len(rows)
    print(f"{n} questions")
    print(f"recorded answer: {sum(recorded)}/{n} = {100 * sum(recorded) / n:.1f}%")
    print(f"other run alone: {sum(single)}/{n} = {100 * sum(single) / n:.1f}%")
    for position in POSITIONS:
        hits = by_position[position]
        vs_other = paired_bootstrap([float(x) for x in hits], [float(x) for x in single])
        vs_rec = paired_bootstrap([float(x) for x in hits], [float(x) for x in recorded])
        won = sum(1 for a, b in zip(hits, recorded, strict=True) if a and not b)
        lost = sum(1 for a, b in zip(hits, recorded, strict=True) if b and not a)
        print(f"\nother answer {position} in the vote: {sum(hits)}/{n} = {100 * sum(hits) / n:.1f}%")
        print(f"  vs the other run:  {100 * vs_other['diff']:+.1f} [{100 * vs_other['low']:+.1f}, "
              f"{100 * vs_other['high']:+.1f}]")
        print(f"  vs the recorded:   {100 * vs_rec['diff']:+.1f} [{100 * vs_rec['low']:+.1f}, "
              f"{100 * vs_rec['high']:+.1f}]; won {won}, lost {lost}")
        print(f"  changed answers:   {dict(sorted(how_changed[position].items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
