"""Per run: the opaque-column links made, how many name a column the gold query reads, and the confidence levels.

    python links.py RUN.jsonl [RUN.jsonl ...]

A link is "in gold" when its column (``c10``) is one the gold SQL reads (sqlglot); "verified" counts the answers
at that confidence level and how many of them are right (strict EX). Only the questions every run answered count.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import sqlglot
from sqlglot import exp


def gold_columns(sql: str) -> set[str]:
    """Opaque column names (``c<N>``) the gold query reads; empty when it does not parse."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return set()
    return {c.name for c in tree.find_all(exp.Column) if re.fullmatch(r"c\d+", c.name)}


def main() -> int:
    """Print one line per run."""
    runs = [{(r := json.loads(line))["qid"]: r for line in Path(path).read_text().splitlines()}
            for path in sys.argv[1:]]
    common = set.intersection(*(set(run) for run in runs))
    for path, run in zip(sys.argv[1:], runs, strict=True):
        counts: Counter[str] = Counter()
        for qid in common:
            r = run[qid]
            gold = gold_columns(r["gold_sql"])
            links = r.get("column_links") or []
            counts["questions with links"] += bool(links)
            counts["links"] += len(links)
            counts["links in gold"] += sum(k["column"] in gold for k in links)
            counts["right"] += r["ex"]
            counts["calls"] += r["llm_calls"]
            if r.get("confidence_level") == "verified":
                counts["verified"] += 1
                counts["verified right"] += r["ex"]
            counts["unread terms"] += bool(r.get("unread_terms"))
        n = len(common)
        print(f"{path}: n={n} EX {counts['right']}; {counts['calls'] / n:.2f} calls/q; questions with links "
              f"{counts['questions with links']}, links {counts['links']} of which in gold {counts['links in gold']}; "
              f"answers with unread terms {counts['unread terms']}; verified {counts['verified']} "
              f"({counts['verified right']} right)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
