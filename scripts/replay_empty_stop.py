"""Replay the cascade's empty-result stop (``generation.consistency.empty_agree``) on recorded runs, without a model.

    python scripts/replay_empty_stop.py --spider ../shared/benchmarks/spider-wide --empty-agree 3 RECORDS.jsonl ...

For each record whose cascade ran without the stop, the recorded candidates are walked in order: a candidate
with status ``empty`` counts as an empty result unless a model-free rescue of it follows (then the rescue's
status counts), one with ``ok`` is a vote. Where ``N`` empty results come before any vote and more candidates
followed, the stop would have ended the cascade there: the answer becomes the empty result (the first empty
candidate's SQL, scored against the gold query), except when the recorded run itself ended with every candidate
empty and the verifier's repair answered (that repair would still run after the stop, so the recorded answer
stands). The verifier is not replayed when the recorded cascade found rows after the stop point: such a
question is scored as the empty answer, which the live verifier's one attempt may still change.

Prints per file and in total: the questions the stop acts on, right before and after (won / lost with ids), the
fresh candidates not written (calls) and their recorded seconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rewrites.pipeline import STEPS  # noqa: E402
from scripts.replay_pruning import Databases, load_records, score  # noqa: E402

RESCUED = frozenset(s.label for s in STEPS if s.phase == "rescue")
"""Strategies of rescued candidates (model-free, no call)."""


def stop_point(candidates: list[dict[str, Any]], empty_agree: int) -> int | None:
    """The index (0-based) of the candidate after which the stop ends the cascade, or None (no stop, or nothing
    was written after it)."""
    empties = votes = 0
    for i, cand in enumerate(candidates):
        strategy, status = cand.get("strategy"), cand.get("status")
        if strategy == "verifier":
            return None
        rescued_next = i + 1 < len(candidates) and candidates[i + 1].get("strategy") in RESCUED
        if status == "ok":
            votes += 1
        elif status == "empty" and not rescued_next:
            empties += 1
            if votes == 0 and empties >= empty_agree:
                later = [c for c in candidates[i + 1:] if c.get("strategy") != "verifier"]
                return i if later else None
    return None


def seconds_of(record: dict[str, Any], indexes: set[int]) -> float:
    """Recorded model seconds of the candidate calls numbered ``indexes`` (usage labels ``candidate N ...``)."""
    total = 0.0
    for use in record.get("usage") or []:
        words = str(use.get("label") or "").split()
        if len(words) >= 2 and words[0] == "candidate" and words[1].isdigit() and int(words[1]) in indexes:
            total += float(use.get("latency_s") or 0.0)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    Databases.add_arguments(parser)
    parser.add_argument("--empty-agree", type=int, default=3, help="empty results that end the cascade (3)")
    parser.add_argument("records", nargs="+", help="evaluation record files (JSONL)")
    args = parser.parse_args()
    dbs = Databases.from_args(args)
    totals = [0, 0, 0, 0, 0.0]  # acted, won, lost, calls saved, seconds saved
    for path in args.records:
        acted = won = lost = calls = 0
        seconds = 0.0
        ids: list[str] = []
        for row in load_records([path]):
            cands = row.get("candidates")
            if row.get("config") == "single_shot" or not isinstance(cands, list):
                continue
            stop = stop_point(cands, args.empty_agree)
            if stop is None:
                continue
            db, _ = dbs.of(row)
            before = score(db, row["gold_sql"], row.get("pred_sql"))[0]
            ended_empty = all(c.get("status") != "ok" for c in cands if c.get("strategy") != "verifier")
            first_empty = next(c["sql"] for c in cands if c.get("status") == "empty")
            after = before if ended_empty else score(db, row["gold_sql"], first_empty)[0]
            skipped = [c for c in cands[stop + 1:] if c.get("strategy") not in RESCUED | {"verifier"}]
            acted += 1
            calls += len(skipped)
            seconds += seconds_of(row, {int(c.get("index") or 0) for c in skipped})
            if after != before:
                won, lost = won + (after > before), lost + (after < before)
                ids.append(f"{row['qid']}{'+' if after > before else '-'}")
        print(f"{path}: acted {acted}, won {won}, lost {lost}, calls saved {calls}, seconds saved {seconds:.0f}"
              + (f" ({' '.join(ids)})" if ids else ""))
        for i, value in enumerate((acted, won, lost, calls, seconds)):
            totals[i] += value
    print(f"total: acted {totals[0]}, won {totals[1]}, lost {totals[2]}, calls saved {totals[3]}, "
          f"seconds saved {totals[4]:.0f}")


if __name__ == "__main__":
    main()
