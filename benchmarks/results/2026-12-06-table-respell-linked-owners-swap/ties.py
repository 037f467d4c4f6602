"""Ties among candidate results in recorded runs: the earliest group (the shipped rule) or the first hinted one?

Usage (repository root): ``python ties.py ROOT:RUN.jsonl [ROOT:RUN.jsonl ...]`` with ROOT the Spider-style folder
of the run's databases. Every recorded candidate that ran is executed again; results are grouped as the cascade
groups them (``tools.execution.result_signature``); a tie is two or more groups of the largest size.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

from database.connection import Database
from eval.metrics import gold_is_ordered, results_match
from tools.execution import result_signature


def main(specs: list[str]) -> None:
    """Print, per kind of run (abbreviated or readable), ties and how often each choice is right."""
    stats: collections.Counter[tuple[str, str]] = collections.Counter()
    for spec in specs:
        root, run = spec.split(":", 1)
        kind = "abbreviated" if "ABBREV" in root.upper() else "readable"
        dbs: dict[str, Database] = {}
        for line in Path(run).read_text().splitlines():
            rec = json.loads(line)
            ran = [c for c in rec.get("candidates") or [] if c.get("sql") and not c.get("error")]
            if len(ran) < 2:
                continue
            db_id = rec["db_id"]
            db = dbs.setdefault(db_id, Database(f"sqlite:///{root}/database/{db_id}/{db_id}.sqlite"))
            gold = db.run_query(rec["gold_sql"])
            if not gold.ok:
                continue
            groups: dict[str, list[tuple[str, object]]] = {}
            for cand in ran:
                res = db.run_query(cand["sql"])
                if res.ok and res.rows:
                    groups.setdefault(result_signature(res), []).append((cand["strategy"], res))
            top = max((len(g) for g in groups.values()), default=0)
            tied = [sig for sig, g in groups.items() if len(g) == top]
            if len(tied) < 2:
                continue
            ordered = gold_is_ordered(rec["gold_sql"])
            right = {sig: results_match(gold.rows, groups[sig][0][1].rows, ordered=ordered)  # type: ignore[attr-defined]
                     for sig in tied}
            hinted = next((sig for sig in tied if groups[sig][0][0] != "whole_schema"), tied[0])
            stats[(kind, "ties")] += 1
            stats[(kind, "earliest group right")] += right[tied[0]]
            stats[(kind, "first group not from the whole-schema candidate right")] += right[hinted]
            stats[(kind, "earliest group is the whole-schema candidate's")] += groups[tied[0]][0][0] == "whole_schema"
    for key, value in sorted(stats.items()):
        print(f"{key[0]:<12} {key[1]:<56} {value}")


if __name__ == "__main__":
    main(sys.argv[1:])
