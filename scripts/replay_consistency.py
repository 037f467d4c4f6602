"""Self-consistency on recorded runs: the answer with the vote against the answer of the first candidate alone.

    python scripts/replay_consistency.py --spider ../shared/benchmarks/spider-wide RECORDS.jsonl
    python scripts/replay_consistency.py --sqlite data/markets/markets.sqlite RECORDS.jsonl

Reads evaluation records made with ``generation.consistency.agree`` >= 2 (each record lists every cascade
candidate with its SQL and status). For each question it scores (strict EX against the gold query):

- ``first``: the first candidate that returned rows - the answer of the cascade without self-consistency
  (``agree = 1``), which stops there; exact up to the judge and verifier, which do not act on a candidate that
  returned rows;
- ``final``: the recorded answer (the vote, then the judge on ties);
- each strategy alone (``direct``, ``plain``, ...) where it was written.

Prints EX of each with the paired difference ``final - first`` (bootstrap interval), the questions won and lost,
EX by agreement share (the calibration signal: how often an answer is right when all candidates agreed, when
a majority did, when none did), and the candidates, calls and seconds per question. Needs no model.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.metrics import paired_bootstrap  # noqa: E402
from scripts.replay_pruning import Databases, load_records, score  # noqa: E402


def first_vote(candidates: list[dict[str, Any]]) -> str | None:
    """SQL of the first candidate that returned rows (status ``ok``), else of the first that ran at all."""
    for wanted in ("ok", "empty"):
        for cand in candidates:
            if cand.get("status") == wanted and cand.get("sql"):
                return str(cand["sql"])
    return None


def bucket(agreement: float | None) -> str:
    """The agreement share as a calibration bucket: all agreed, a majority, no majority, no candidate ran."""
    if agreement is None:
        return "none ran"
    if agreement >= 0.999:
        return "all agreed"
    return "majority" if agreement > 0.5 else "no majority"


def main(argv: list[str] | None = None) -> int:
    """Score the recorded runs and print the comparison; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--spider", help="Spider folder (database/<db_id>/<db_id>.sqlite)")
    where.add_argument("--sqlite", help="one SQLite file for every record")
    parser.add_argument("records", nargs="+", help="evaluation record files (JSONL)")
    args = parser.parse_args(argv)
    rows = [r for r in load_records(args.records) if r.get("config") != "single_shot"]
    if not rows:
        print("no agent records with a gold query in the given files")
        return 1
    dbs = Databases(args.sqlite, args.spider)
    first, final = [], []
    by_strategy: dict[str, list[int]] = defaultdict(list)
    by_bucket: dict[str, list[int]] = defaultdict(list)
    changed = []
    for row in rows:
        db, _ = dbs.of(row)
        cands = row.get("candidates") or []
        f = score(db, row["gold_sql"], first_vote(cands))[0]
        a = int(str(row.get("ex")) in ("1", "True"))
        first.append(f)
        final.append(a)
        by_bucket[bucket(row.get("agreement"))].append(a)
        for cand in cands:
            if cand.get("status") in ("ok", "empty") and cand.get("sql"):
                by_strategy[str(cand.get("strategy"))].append(score(db, row["gold_sql"], str(cand["sql"]))[0])
        if f != a:
            changed.append(("won" if a else "lost", row))
    n = len(rows)
    diff = paired_bootstrap([float(x) for x in final], [float(x) for x in first])
    print(f"{n} questions")
    print(f"first candidate with rows (no vote): {sum(first)}/{n} = {100 * sum(first) / n:.1f}%")
    print(f"recorded answer (vote):              {sum(final)}/{n} = {100 * sum(final) / n:.1f}%")
    print(f"paired difference: {100 * diff['diff']:+.1f} points [{100 * diff['low']:+.1f}, {100 * diff['high']:+.1f}]"
          f"; won {sum(1 for k, _ in changed if k == 'won')}, lost {sum(1 for k, _ in changed if k == 'lost')}")
    print("\nEX of each strategy where it ran (not paired: later strategies run only on disagreement):")
    for strategy, hits in sorted(by_strategy.items()):
        print(f"  {strategy:20} {sum(hits)}/{len(hits)} = {100 * sum(hits) / len(hits):.1f}%")
    print("\nEX by agreement (calibration):")
    for name in ("all agreed", "majority", "no majority", "none ran"):
        hits = by_bucket.get(name, [])
        if hits:
            print(f"  {name:12} {len(hits):4} questions  EX {100 * sum(hits) / len(hits):.1f}%")
    ran = [len([c for c in r.get("candidates") or [] if c.get("sql")]) for r in rows]
    calls = [int(r.get("llm_calls") or 0) for r in rows]
    seconds = sorted(float(r.get("latency_s") or 0) for r in rows)
    print(f"\ncandidates/question {statistics.mean(ran):.2f}, LLM calls/question {statistics.mean(calls):.2f}, "
          f"median {statistics.median(seconds):.1f} s, p95 {seconds[int(0.95 * (n - 1))]:.1f} s")
    for kind, row in changed:
        print(f"\n{kind}: {row.get('question')}\n  first: {first_vote(row.get('candidates') or [])}\n"
              f"  final: {row.get('pred_sql')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
