"""Per kind of LLM call, the warm questions' median seconds, prompt tokens read anew, cached, and written.

Usage: python calls_by_label.py LATENCY.json (a ``scripts/bench_latency.py --json`` file, grouped order).
"""

from __future__ import annotations

import collections
import json
import statistics
import sys


def main(path: str) -> None:
    """Print one line per call label (numbers dropped: ``candidate 2 plain`` -> ``candidate plain``)."""
    with open(path, encoding="utf-8") as handle:
        records = json.load(handle)["orders"]["grouped"]["records"]
    by: dict[str, list[dict]] = collections.defaultdict(list)
    for r in records:
        if r["cold"]:
            continue
        for c in r["calls"]:
            label = " ".join(w for w in (c.get("label") or c["role"]).split() if not w.isdigit())
            by[label].append(c)
    print(f"{'call':30} {'n':>3} {'median s':>8} {'read':>6} {'cached':>7} {'written':>7}")
    for label, calls in sorted(by.items(), key=lambda kv: -len(kv[1])):
        seconds = statistics.median([c["latency_s"] for c in calls])
        read = statistics.median([c["prompt_tokens"] - c["cached_tokens"] for c in calls])
        cached = statistics.median([c["cached_tokens"] for c in calls])
        written = statistics.median([c["completion_tokens"] for c in calls])
        print(f"{label:30} {len(calls):3d} {seconds:8.1f} {read:6.0f} {cached:7.0f} {written:7.0f}")
    warm = [r for r in records if not r["cold"]]
    print(f"warm questions {len(warm)}: LLM seconds {sum(c['latency_s'] for r in warm for c in r['calls']):.0f}, "
          f"wall seconds {sum(r['seconds'] for r in warm):.0f}")


if __name__ == "__main__":
    main(sys.argv[1])
