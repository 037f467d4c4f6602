"""Split a paired comparison of two evaluation runs by whether the opaque-column links call was made.

    python by_links.py NEW.jsonl OLD.jsonl

A question of NEW had the call when its ``usage`` lists an LLM call labelled ``opaque links``. For each group it
prints the questions, EX of both runs and the questions won and lost; then the links of NEW (``column_links``)
and how many of them name a column the gold query reads (a rough precision: the gold query may read a column
for another word), and the calls per question.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any


def load(path: str) -> dict[str, dict[str, Any]]:
    """Records of a JSONL file by question id."""
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return {r["qid"]: r for r in rows}


def ex(record: dict[str, Any]) -> int:
    """Strict EX of a record as 0/1."""
    return int(str(record.get("ex")) in ("1", "True"))


def called(record: dict[str, Any]) -> bool:
    """True when the record's question made the opaque-links call."""
    return any(u.get("label") == "opaque links" for u in record.get("usage") or [])


def reads(gold: str, column: str) -> bool:
    """True when the gold SQL names ``column`` as a whole word."""
    return re.search(rf"(?<!\w){re.escape(column)}(?!\w)", gold, re.I) is not None


def main(argv: list[str]) -> int:
    """Print the split; returns the exit code."""
    new, old = load(argv[0]), load(argv[1])
    common = [q for q in new if q in old]
    groups: dict[str, list[str]] = {"links call": [], "no call": []}
    for q in common:
        groups["links call" if called(new[q]) else "no call"].append(q)
    for name, qs in groups.items():
        won = [q for q in qs if ex(new[q]) > ex(old[q])]
        lost = [q for q in qs if ex(new[q]) < ex(old[q])]
        print(f"{name}: {len(qs)} questions, new {sum(ex(new[q]) for q in qs)}, old {sum(ex(old[q]) for q in qs)}, "
              f"won {len(won)}, lost {len(lost)}")
        print("  won: " + " ".join(won))
        print("  lost: " + " ".join(lost))
    links = [(new[q], k) for q in common for k in new[q].get("column_links") or []]
    asked = sum(1 for q in common if new[q].get("column_links"))
    hits = sum(reads(r["gold_sql"], str(k["column"])) for r, k in links)
    print(f"links: {len(links)} on {asked} questions; the gold query reads the linked column in {hits}")
    calls = [sum(1 for u in new[q].get("usage") or [] if u.get("label") == "opaque links") for q in common]
    print(f"opaque-links calls per question: {sum(calls) / max(1, len(common)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
