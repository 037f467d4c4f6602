"""Model-free replay: would the vote do better preferring a result group whose SQL reads a linked opaque column?

    python replay_link_preference.py SPIDER_FOLDER RECORDS.jsonl [MORE.jsonl ...]

For each question with opaque-column links (``column_links``) and at least two result groups among the
candidates that returned rows (grouped by :func:`tools.execution.result_signature`, as the agent's vote is),
two rules are replayed against the recorded answer: ``tie`` - among the largest groups, the one reading a
linked column; ``bonus`` - a group reading a linked column counts one vote more. A rule that picks another
group than the largest is scored against the gold query (strict EX); the rest keep the recorded answer. Prints
the questions won and lost per rule.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from scripts.replay_pruning import Databases, load_records, score  # noqa: E402
from tools.execution import result_signature  # noqa: E402

Group = list[tuple[int, dict[str, Any]]]


def reads(sql: str, columns: set[str]) -> bool:
    """True when ``sql`` names one of ``columns`` (bare or qualified) as a whole word."""
    return any(re.search(rf"(?<![\w.])(?:\w+\.)?{re.escape(c)}(?!\w)", sql, re.I) for c in columns)


def main(argv: list[str]) -> int:
    """Print the won/lost table; returns the exit code."""
    warnings.filterwarnings("ignore")
    dbs = Databases(None, argv[0])
    tally: dict[str, list[str]] = {"tie": [], "bonus": []}
    asked = 0
    for rec in load_records(argv[1:]):
        columns = {str(k["column"]).lower() for k in rec.get("column_links") or []}
        if not columns:
            continue
        asked += 1
        db, _ = dbs.of(rec)
        groups: dict[str, Group] = {}
        for i, cand in enumerate(rec["candidates"]):
            if cand.get("status") == "ok" and cand.get("sql"):
                res = db.run_query(cand["sql"], row_cap=10_000)
                if res.ok and res.rows:
                    groups.setdefault(result_signature(res), []).append((i, cand))
        if len(groups) < 2:
            continue
        every = list(groups.values())
        linked = [g for g in every if any(reads(c["sql"], columns) for _, c in g)]
        top = max(every, key=lambda g: (len(g), -g[0][0]))
        picks = {"tie": next((g for g in every if len(g) == len(top) and g in linked), top),
                 "bonus": max(every, key=lambda g: (len(g) + (g in linked), g in linked, -g[0][0]))}
        for rule, group in picks.items():
            if group is top:
                continue
            new, old = score(db, rec["gold_sql"], group[0][1]["sql"])[0], int(rec["ex"])
            if new != old:
                tally[rule].append(("+" if new > old else "-") + rec["qid"])
    print(f"questions with links: {asked}")
    for rule, ids in tally.items():
        won, lost = sum(i[0] == "+" for i in ids), sum(i[0] == "-" for i in ids)
        print(f"{rule}: won {won}, lost {lost}  {' '.join(ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
