"""Model seconds and tokens per call role on the warm questions of an evaluation run.

Usage: ``python time_by_role.py RECORDS.jsonl``. A question is warm when an earlier question of the run asked
the same database (its schema prefix is cached). Prints, per role (candidate strategy, links call, repair,
answer, ...), the calls, the summed and median seconds and the median prompt and completion tokens, then the
warm median with each question's opaque-links seconds taken out.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict


def role(label: str) -> str:
    """The role of a usage label: ``"candidate 2 direct"`` -> ``"direct"``; other labels as they are."""
    parts = label.split(" ")
    return " ".join(parts[2:]) if parts[0] == "candidate" and len(parts) > 2 else label


def main(path: str) -> None:
    """Print the per-role table of the warm questions in ``path``."""
    with open(path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    seen: set[str] = set()
    calls: dict[str, list[tuple[float, int, int]]] = defaultdict(list)
    warm: list[float] = []
    without_links: list[float] = []
    split: dict[bool, list[float]] = {True: [], False: []}
    for record in records:
        cached = record["db_id"] in seen
        seen.add(record["db_id"])
        if not cached:
            continue
        warm.append(record["latency_s"])
        links = sum(u["latency_s"] for u in record.get("usage") or [] if u["label"] == "opaque links")
        without_links.append(record["latency_s"] - links)
        split[links > 0].append(record["latency_s"])
        for use in record.get("usage") or []:
            calls[role(use["label"])].append((use["latency_s"], use["prompt_tokens"], use["completion_tokens"]))
    print(f"warm questions {len(warm)}, median {statistics.median(warm):.1f} s, "
          f"model seconds {sum(s for v in calls.values() for s, _, _ in v):.0f}")
    print(f"{'role':24s} {'calls':>5s} {'sum s':>7s} {'median s':>8s} {'prompt':>7s} {'completion':>10s}")
    for name, uses in sorted(calls.items(), key=lambda kv: -sum(s for s, _, _ in kv[1])):
        print(f"{name:24s} {len(uses):5d} {sum(s for s, _, _ in uses):7.1f} "
              f"{statistics.median(s for s, _, _ in uses):8.1f} {statistics.median(p for _, p, _ in uses):7.0f} "
              f"{statistics.median(c for _, _, c in uses):10.0f}")
    for made, times in split.items():
        if times:
            print(f"warm questions {'with' if made else 'without'} the opaque-links call: {len(times)}, "
                  f"median {statistics.median(times):.1f} s")
    print(f"warm median with each question's opaque-links seconds taken out: {statistics.median(without_links):.1f} s")


if __name__ == "__main__":
    main(sys.argv[1])
