"""Paired reading of two runs' opaque-links calls.

Usage: python links_paired.py NEW.jsonl OLD.jsonl

Prints, for the questions both runs hold: the questions whose recorded column links differ (term, table,
column), EX of each run, and the links call's seconds and prompt tokens (median and sum) where both made it.
"""

import json
import statistics
import sys


def load(path: str) -> dict[str, dict]:
    """Evaluation records of one JSONL file by qid."""
    with open(path, encoding="utf-8") as handle:
        return {r["qid"]: r for r in map(json.loads, handle) if r}


def links(record: dict) -> list[tuple[str, str, str]]:
    """The record's column links as sorted (term, table, column) triples."""
    return sorted((k["term"], k["table"], k["column"]) for k in record.get("column_links") or [])


def links_call(record: dict) -> dict | None:
    """The usage entry of the record's opaque-links call, or None when it made none."""
    calls = [u for u in record["usage"] if u["label"] == "opaque links"]
    return calls[0] if calls else None


def main() -> None:
    """Print the paired reading of the two record files named on the command line."""
    new, old = load(sys.argv[1]), load(sys.argv[2])
    common = [q for q in new if q in old]
    same = 0
    seconds: tuple[list[float], list[float]] = ([], [])
    tokens: tuple[list[int], list[int]] = ([], [])
    for qid in common:
        a, b = new[qid], old[qid]
        if links(a) == links(b):
            same += 1
        else:
            print("links differ", qid, "new", links(a), "old", links(b), "ex", a["ex"], b["ex"])
        ua, ub = links_call(a), links_call(b)
        if ua and ub:
            seconds[0].append(ua["latency_s"])
            seconds[1].append(ub["latency_s"])
            tokens[0].append(ua["prompt_tokens"])
            tokens[1].append(ub["prompt_tokens"])
    print(f"questions {len(common)}; same links {same}, different {len(common) - same}")
    print(f"EX new {sum(new[q]['ex'] for q in common)} old {sum(old[q]['ex'] for q in common)}")
    if seconds[0]:
        print(
            f"links calls in both {len(seconds[0])}: median s new {statistics.median(seconds[0]):.1f} "
            f"old {statistics.median(seconds[1]):.1f}; median prompt tokens new "
            f"{statistics.median(tokens[0]):.0f} old {statistics.median(tokens[1]):.0f}"
        )


if __name__ == "__main__":
    main()
