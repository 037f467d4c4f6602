"""No repair after a failing candidate of one strategy, replayed on recorded runs.

    python scripts/replay_skip_repair.py --spider ../shared/benchmarks/spider-wide RECORDS.jsonl
    python scripts/replay_skip_repair.py --sqlite data/markets/markets.sqlite --strategy whole_schema RECORDS.jsonl

For each record whose first candidate of ``--strategy`` (default ``whole_schema``) failed its dry run and was
followed by a ``repair`` turn, the repair is dropped and the vote is replayed over the remaining candidates that
returned rows (results grouped by :func:`tools.execution.result_signature`, the largest group wins, ties to the
earliest, no judge - the local cascade's rule). Without the repair's turn the cascade would have written one more
fresh candidate at its end, which the records do not hold: a question whose remaining candidates return no rows
is ``undecided`` and counted as lost (lower bound) and as recorded (upper bound). Prints how often the strategy
failed, how often its repair ran again, EX recorded against the replay with the paired difference (95%
bootstrap), the questions won and lost, and the LLM calls and generator seconds the repairs took (the
``usage`` entries labelled ``candidate N repair``). Needs no model. Used on 2026-11-27 to decide
``generation.consistency.repair_whole_schema``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.metrics import paired_bootstrap  # noqa: E402
from scripts.replay_extra_vote import hit, vote  # noqa: E402
from scripts.replay_pruning import Databases, load_records, score  # noqa: E402


def repaired_turn(row: dict[str, Any], strategy: str) -> int | None:
    """Position in ``row["candidates"]`` of the repair that follows the failing ``strategy`` candidate, or None."""
    cands = list(row.get("candidates") or [])
    for i, cand in enumerate(cands[:-1]):
        if cand.get("strategy") == strategy:
            nxt = cands[i + 1]
            return i + 1 if cand.get("status") == "error" and nxt.get("strategy") == "repair" else None
    return None


def repair_seconds(row: dict[str, Any], cand: dict[str, Any]) -> float:
    """Generator seconds of the repair candidate ``cand`` (0.0 when its call is not in ``usage``)."""
    label = f"candidate {cand.get('index')} repair"
    return sum(float(u.get("latency_s") or 0.0) for u in row.get("usage") or [] if u.get("label") == label)


def main(argv: list[str] | None = None) -> int:
    """Replay and print the comparison; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    Databases.add_arguments(parser)
    parser.add_argument("--strategy", default="whole_schema", help="the failing candidate's strategy")
    parser.add_argument("records", nargs="+", help="evaluation records with their candidates")
    args = parser.parse_args(argv)
    rows = load_records(args.records)
    dbs = Databases.from_args(args)
    failed = sum(any(c.get("strategy") == args.strategy and c.get("status") == "error"
                     for c in r.get("candidates") or []) for r in rows)
    cases = [(r, t) for r in rows if (t := repaired_turn(r, args.strategy)) is not None]
    recorded = [hit(r) for r, _ in cases]
    low, high, seconds, again = [], [], 0.0, 0
    for (row, turn), was in zip(cases, recorded, strict=True):
        cands = list(row["candidates"])
        repair = cands[turn]
        again += repair.get("status") == "error"
        seconds += repair_seconds(row, repair)
        rest = [str(c["sql"]) for i, c in enumerate(cands) if i != turn and c.get("sql") and c.get("status") == "ok"]
        db, _ = dbs.of(row)
        sql, how = vote(db, rest)
        now = score(db, row["gold_sql"], sql)[0] if sql else None
        low.append(0 if now is None else now)
        high.append(was if now is None else now)
        if now is None or now != was:
            print(f"  {row['qid']}: recorded {was}, replay {'undecided' if now is None else now} ({how})")
    n = len(cases)
    print(f"{len(rows)} records; {args.strategy} failed its dry run on {failed}; repaired on {n}; "
          f"the repair failed again on {again}")
    if not n:
        return 0
    print(f"repairs: {n} LLM calls, {seconds:.0f} s of generation ({seconds / len(rows):.1f} s per question "
          "of the run)")
    print(f"recorded EX on these {n}: {sum(recorded)}")
    for name, hits in (("lower bound (undecided = lost)", low), ("upper bound (undecided = recorded)", high)):
        d = paired_bootstrap([float(x) for x in hits], [float(x) for x in recorded])
        won = sum(1 for a, b in zip(hits, recorded, strict=True) if a and not b)
        lost = sum(1 for a, b in zip(hits, recorded, strict=True) if b and not a)
        print(f"without the repair, {name}: {sum(hits)}; won {won}, lost {lost}; per question of the run "
              f"{100 * (sum(hits) - sum(recorded)) / len(rows):+.1f} points "
              f"(on the {n}: {100 * d['diff']:+.1f} [{100 * d['low']:+.1f}, {100 * d['high']:+.1f}])")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
