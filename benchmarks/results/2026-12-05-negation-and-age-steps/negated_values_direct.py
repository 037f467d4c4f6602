"""Apply the rejected single-table anti-join to each recorded answer alone and score it (no cascade, no model).

    python negated_values_direct.py   (from the repository root; WIDE_ABBREV at /tmp/WIDE_ABBREV)

Prints every answer the step changes with its strict EX before and after, then the totals. The step is the one
in ``negated_values_rejected_step.py`` (a copy of ``rewrites/negated_values.py`` at d83a673).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, ".")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from negated_values_rejected_step import fix_negated_values  # noqa: E402

from database.connection import Database  # noqa: E402
from scripts.replay_pruning import score  # noqa: E402


def folder(name: str) -> str:
    """The database folder of a run file by its name."""
    if name.startswith("abbrev"):
        return "/tmp/WIDE_ABBREV/database"
    if name.startswith("spider200"):
        return "data/spider-dev/database"
    return "../shared/benchmarks/spider-wide/database"


def main() -> None:
    """Walk the distinct development runs and tabulate the step's changes."""
    seen: set[str] = set()
    dbs: dict[str, Database] = {}
    totals = {"fired": 0, "won": 0, "lost": 0}
    for path in sorted(glob.glob("benchmarks/results/*/*.jsonl")):
        name = os.path.basename(path)
        if not re.match(r"(wide-syn|wide-orig|abbrev|spider200)-", name) or "single" in name:
            continue
        digest = hashlib.md5(open(path, "rb").read()).hexdigest()  # noqa: S324, SIM115 - a file identity
        if digest in seen:
            continue
        seen.add(digest)
        for line in open(path):  # noqa: SIM115
            row = json.loads(line)
            if "question" not in row or not row.get("pred_sql"):
                continue
            file = os.path.abspath(f"{folder(name)}/{row['db_id']}/{row['db_id']}.sqlite")
            db = dbs.setdefault(file, Database(f"sqlite:///{file}"))
            new = fix_negated_values(row["pred_sql"], "sqlite", row["question"], db)
            if not new:
                continue
            totals["fired"] += 1
            after = score(db, row["gold_sql"], new)[0]
            if after != row["ex"]:
                totals["won" if after else "lost"] += 1
                print(name[:25], row["qid"], row["ex"], "->", after, row["question"][:80])
    print(totals)


if __name__ == "__main__":
    main()
