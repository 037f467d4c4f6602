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
the sweep over the number of candidates (``N`` = 1, 2, 3, 4: the vote over the first N candidates the cascade
wrote, largest result group, ties to the earliest candidate; with the LLM calls those N candidates cost), EX by
agreement share (the calibration signal: how often an answer is right when all candidates agreed, when
a majority did, when none did), and the candidates, calls and seconds per question. Needs no model.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from database.connection import Database  # noqa: E402
from eval.metrics import paired_bootstrap  # noqa: E402
from scripts.replay_pruning import Databases, load_records, score  # noqa: E402
from tools.execution import result_signature  # noqa: E402


def first_vote(candidates: list[dict[str, Any]]) -> str | None:
    """SQL of the first candidate that returned rows (status ``ok``), else of the first that ran at all."""
    for wanted in ("ok", "empty"):
        for cand in candidates:
            if cand.get("status") == wanted and cand.get("sql"):
                return str(cand["sql"])
    return None


def capped_vote(db: Database, candidates: list[dict[str, Any]], cap: int) -> tuple[str | None, int]:
    """(SQL chosen by the vote over the first ``cap`` written candidates, the model calls they cost).

    Candidates are counted in the recorded order; a model-free rescue (``literal``, ``as_of``, ``relaxed``,
    ``unasked``) rides with the candidate it rescued and costs no call. Results are grouped by
    :func:`tools.execution.result_signature` (the grouping of the agent's vote); the largest group wins, ties go to
    the group whose first member came first. Only candidates that returned rows vote; with none, the first that
    ran at all is chosen (as :func:`first_vote`).
    """
    kept: list[dict[str, Any]] = []
    written = 0
    for cand in candidates:
        if cand.get("strategy") not in _FREE:
            if written == cap:
                break
            written += 1
        kept.append(cand)
    groups: dict[str, list[int]] = {}
    for i, cand in enumerate(kept):
        if cand.get("status") == "ok" and cand.get("sql"):
            res = db.run_query(str(cand["sql"]), row_cap=10_000)
            if res.ok and res.rows:
                groups.setdefault(result_signature(res), []).append(i)
    if not groups:
        return first_vote(kept), written
    best = max(groups.values(), key=lambda members: (len(members), -members[0]))
    return str(kept[best[0]]["sql"]), written


_FREE = {"literal", "as_of", "relaxed", "unasked"}
"""Strategies of the model-free rescues of an empty result (no LLM call)."""


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
    Databases.add_arguments(parser)
    parser.add_argument("records", nargs="+", help="evaluation record files (JSONL)")
    args = parser.parse_args(argv)
    rows = [r for r in load_records(args.records) if r.get("config") != "single_shot"]
    if not rows:
        print("no agent records with a gold query in the given files")
        return 1
    dbs = Databases.from_args(args)
    first, final = [], []
    by_strategy: dict[str, list[int]] = defaultdict(list)
    by_bucket: dict[str, list[int]] = defaultdict(list)
    changed = []
    caps = (1, 2, 3, 4)
    by_cap: dict[int, list[int]] = defaultdict(list)
    calls_by_cap: dict[int, list[int]] = defaultdict(list)
    for row in rows:
        db, _ = dbs.of(row)
        cands = row.get("candidates") or []
        f = score(db, row["gold_sql"], first_vote(cands))[0]
        a = int(str(row.get("ex")) in ("1", "True"))
        first.append(f)
        final.append(a)
        for cap in caps:
            sql, calls = capped_vote(db, cands, cap)
            by_cap[cap].append(score(db, row["gold_sql"], sql)[0])
            calls_by_cap[cap].append(calls)
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
    print("\nCandidates N (vote over the first N written; ties to the earliest), EX and candidate calls/question:")
    for cap in caps:
        hits = by_cap[cap]
        d = paired_bootstrap([float(x) for x in hits], [float(x) for x in by_cap[1]])
        print(f"  N={cap}: {sum(hits)}/{n} = {100 * sum(hits) / n:.1f}%  vs N=1 {100 * d['diff']:+.1f} "
              f"[{100 * d['low']:+.1f}, {100 * d['high']:+.1f}]  calls {statistics.mean(calls_by_cap[cap]):.2f}")
    print("  (N=4 with the cascade's stop at two agreeing results is the recorded run)")
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
          f"median {statistics.median(seconds):.1f} s, p95 {float(np.quantile(seconds, 0.95)):.1f} s")
    for kind, row in changed:
        print(f"\n{kind}: {row.get('question')}\n  first: {first_vote(row.get('candidates') or [])}\n"
              f"  final: {row.get('pred_sql')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
