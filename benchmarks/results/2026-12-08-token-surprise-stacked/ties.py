"""Ties of the vote broken by the model's token probability instead of by the earliest candidate.

    PYTHONPATH=CHECKOUT python ties.py RUN.jsonl [MORE.jsonl ...] --roots ROOT [ROOT ...]

Model-free replay of evaluation records whose candidates carry ``logprob`` (from 6d1bb43). Where the largest
result groups of the vote tie, the shipped rule keeps the group of the earliest candidate
(``generation.consistency.ties`` = auto); the replayed rule keeps the group whose best candidate has the highest
mean token log-probability (confidence-weighted self-consistency as in CISC, Taubenfeld et al. 2025, reduced to
ties). Both are scored against the gold query (strict EX). Prints ties, answers changed, won and lost.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("replays", HERE.parent / "2026-12-07-selection-replays" / "replays.py")
replays = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
sys.modules["replays"] = replays
_spec.loader.exec_module(replays)  # type: ignore[union-attr]


def main() -> None:
    """Print the tie counts and the won/lost table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--roots", nargs="+", type=Path, required=True)
    a = ap.parse_args()
    replays.ROOTS[:] = a.roots
    answers = ties = changed = won = lost = 0
    for f in a.runs:
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("kind") != "answer" or not r.get("gold_sql") or replays.db_path(r["db_id"]) is None:
                continue
            answers += 1
            groups: dict[object, list[tuple[dict, object]]] = defaultdict(list)
            for c, res in replays.ran_with_rows(r):
                groups[replays.signature(res)].append((c, res))
            if len(groups) < 2:
                continue
            top = max(len(g) for g in groups.values())
            tied = [g for g in groups.values() if len(g) == top]
            if len(tied) < 2 or any(not isinstance(c.get("logprob"), float) for g in tied for c, _ in g):
                continue
            ties += 1
            earliest = min(tied, key=lambda g: min(c["index"] for c, _ in g))
            surest = max(tied, key=lambda g: max(c["logprob"] for c, _ in g))
            if surest is earliest:
                continue
            changed += 1
            a_right, b_right = replays.is_right(r, earliest[0][1]), replays.is_right(r, surest[0][1])
            won += int(b_right and not a_right)
            lost += int(a_right and not b_right)
            print(f"{'WON ' if b_right and not a_right else 'LOST' if a_right else 'same'} {r['question']}")
    print(f"{answers} answers, {ties} ties among candidates with log-probabilities; the surest group differs from "
          f"the earliest in {changed}: won {won}, lost {lost}")


if __name__ == "__main__":
    main()
