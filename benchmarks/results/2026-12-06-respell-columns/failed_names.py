"""How many failed candidates of recorded abbreviated runs the respelling would have let run.

    python failed_names.py WIDE_ABBREV RUN.jsonl...

Each distinct (question, SQL) of a candidate that failed with "no such column: X" is rewritten by
:func:`rewrites.respell.respell_columns` with the database's columns. Prints the count of such candidates, how
many the step rewrites, whether the rewritten query now runs, and the names it respelled; then the names it left
alone whose column no table has (the model's readable name for an opaque column, misspellings).
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from collections import Counter
from pathlib import Path

import sqlalchemy

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
warnings.filterwarnings("ignore")

from database.connection import Database  # noqa: E402
from rewrites.respell import respell_columns  # noqa: E402
from scripts.replay_cascade import raw_sql  # noqa: E402

_ERROR = re.compile(r"no such column: ([\w.]+)")


def main() -> int:
    """Print the counts."""
    root, runs = Path(sys.argv[1]), sys.argv[2:]
    dbs: dict[str, tuple[Database, dict[str, list[str]]]] = {}
    seen: set[tuple[str, str]] = set()
    rewritten, runs_now, total = Counter(), 0, 0
    unknown: Counter[str] = Counter()
    for run in runs:
        for line in Path(run).read_text().splitlines():
            rec = json.loads(line)
            for cand in rec.get("candidates") or []:
                found = _ERROR.search(str(cand.get("error", ""))) if isinstance(cand, dict) else None
                sql = raw_sql(cand) if found else ""
                if not found or not sql or (rec["qid"], sql) in seen:
                    continue
                seen.add((rec["qid"], sql))
                total += 1
                if rec["db_id"] not in dbs:
                    db = Database(f"sqlite:///{root / 'database' / rec['db_id'] / (rec['db_id'] + '.sqlite')}")
                    insp = sqlalchemy.inspect(db.engine)
                    dbs[rec["db_id"]] = (db, {t.lower(): [c["name"] for c in insp.get_columns(t)]
                                              for t in insp.get_table_names()})
                db, columns = dbs[rec["db_id"]]
                new = respell_columns(sql, "sqlite", columns)
                if new != sql:
                    rewritten[found.group(1)] += 1
                    runs_now += int(db.run_query(new).ok)
                elif found.group(1).rpartition(".")[2].lower() not in {c.lower() for v in columns.values()
                                                                       for c in v}:
                    unknown[found.group(1)] += 1
    print(f"{len(runs)} runs: {total} distinct failed candidates with 'no such column'; respelled "
          f"{sum(rewritten.values())}, of which {runs_now} now run")
    print("respelled:", ", ".join(f"{k} x{v}" for k, v in rewritten.most_common()))
    print(f"left alone, a name no table has ({sum(unknown.values())}):",
          ", ".join(f"{k} x{v}" for k, v in unknown.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
