"""Won and lost questions of two runs, split by whether the opaque-links prompt changed between them.

    python split.py NEW.jsonl OLD.jsonl

A question's links prompt changed when the prompt tokens of its ``opaque links`` call differ between the runs
(the span adds tokens; the rest of that prompt is the same). Questions without the call in either run are left
out. Prints, for the changed and the unchanged questions, how many are right in both, won, lost and wrong in
both, with the won and lost ids, the mean LLM calls and tokens per question, and the links on a column the gold
query reads (a rough proxy of a right link) out of all links, new against old.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path


def link_tokens(rec: dict) -> int | None:
    """Prompt tokens of the record's opaque-links call, None without one."""
    calls = [u for u in rec.get("usage") or [] if u.get("label") == "opaque links"]
    return calls[0].get("prompt_tokens") if calls else None


def gold_links(rec: dict) -> tuple[int, int]:
    """(links whose column the gold query names, links) of one record."""
    links = rec.get("column_links") or []
    named = sum(bool(re.search(rf"\b{re.escape(k['column'])}\b", rec["gold_sql"], re.IGNORECASE)) for k in links)
    return named, len(links)


def main() -> int:
    """Print the split; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("new")
    parser.add_argument("old")
    args = parser.parse_args()

    def load(path: str) -> dict[str, dict]:
        return {r["qid"]: r for r in map(json.loads, Path(path).read_text().splitlines()) if r}

    new, old = load(args.new), load(args.old)
    groups: dict[str, list[tuple[str, dict, dict]]] = {"prompt changed": [], "prompt unchanged": []}
    for qid in sorted(set(new) & set(old)):
        a, b = link_tokens(new[qid]), link_tokens(old[qid])
        if a is None and b is None:
            continue
        groups["prompt changed" if a != b else "prompt unchanged"].append((qid, new[qid], old[qid]))
    for name, rows in groups.items():
        both = sum(n["ex"] and o["ex"] for _, n, o in rows)
        won = [q for q, n, o in rows if n["ex"] and not o["ex"]]
        lost = [q for q, n, o in rows if o["ex"] and not n["ex"]]
        calls = [sum(r["llm_calls"] for r in side) / max(len(rows), 1) for side in ([n for _, n, _ in rows],
                                                                                    [o for _, _, o in rows])]
        tokens = [sum(r["prompt_tokens"] for r in side) / max(len(rows), 1) for side in ([n for _, n, _ in rows],
                                                                                         [o for _, _, o in rows])]
        links = [[sum(x) for x in zip(*(gold_links(r) for r in side), strict=True)] or [0, 0]
                 for side in ([n for _, n, _ in rows], [o for _, _, o in rows])]
        print(f"{name}: {len(rows)} questions; new {both + len(won)}, old {both + len(lost)}; both right {both}, "
              f"won {len(won)} {won}, lost {len(lost)} {lost}; calls {calls[0]:.2f} vs {calls[1]:.2f}, "
              f"prompt tokens {tokens[0]:.0f} vs {tokens[1]:.0f}; links on a gold column "
              f"{links[0][0]}/{links[0][1]} vs {links[1][0]}/{links[1][1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
