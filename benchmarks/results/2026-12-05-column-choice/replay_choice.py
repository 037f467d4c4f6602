"""Replay the column-choice check (tools.column_choice) on recorded answers of the abbreviated copies.

    python replay_choice.py --spider WIDE_ABBREV RECORDS.jsonl [RECORDS.jsonl ...]

For each recorded answer whose SQL reads a look-alike column (find_lookalikes), asks the model the choice
(choose_column, the embedded model at temperature 0, the generator's system prompt over the whole-schema listing),
rewrites the SQL when it picks an opaque column, and keeps the rewrite when it runs and returns rows - what the
check does after selection. Prints every flagged answer and strict EX before/after with the paired difference.
The check acts on the final SQL only, so this is exact up to the system prompt (the live one lists the linked
tables) and the server's run-to-run variation.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
warnings.filterwarnings("ignore")

from core.llm import LLMProvider  # noqa: E402
from core.local_server import ensure_local_server  # noqa: E402
from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from eval.metrics import gold_is_ordered, paired_bootstrap, results_match  # noqa: E402
from tools.base import ToolContext  # noqa: E402
from tools.candidate import system_prompt  # noqa: E402
from tools.column_choice import choose_column, find_lookalikes, substitute_column  # noqa: E402
from tools.whole_schema import whole_schema_listing  # noqa: E402


def main() -> int:
    """Replay the check on the records given; print flagged answers and EX before/after."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--spider", required=True)
    parser.add_argument("records", nargs="+")
    args = parser.parse_args()
    settings = Settings()
    ensure_local_server(settings)
    llms = LLMProvider(settings)
    dbs: dict[str, tuple[Database, list, str]] = {}
    before: list[float] = []
    after: list[float] = []
    flagged = calls = changed = 0
    for path in args.records:
        for line in Path(path).read_text().splitlines():
            rec = json.loads(line)
            sql = rec.get("pred_sql")
            if not sql or rec.get("gold_error"):
                continue
            db_id = rec["db_id"]
            if db_id not in dbs:
                file = next((Path(args.spider) / "database" / db_id).glob("*.sqlite"))
                db = Database(f"sqlite:///{file}")
                dbs[db_id] = (db, read_schema(db, sample_rows=0), system_prompt("sqlite", whole_schema_listing(db)))
            db, tables, system = dbs[db_id]
            ex = float(bool(rec.get("ex")))
            new_ex = ex
            looks = find_lookalikes(rec["question"], sql, tables, "sqlite")
            if looks:
                flagged += 1
                ctx = ToolContext(settings=settings, db=db, store=None, llms=llms)  # type: ignore[arg-type]
                new_sql = sql
                picks = []
                for look in looks:
                    table = next(t for t in tables if t.name == look.table)
                    picked = choose_column(ctx, system, rec["question"], new_sql, look, table)
                    calls += 1
                    picks.append((look.column, look.term, picked))
                    if picked:
                        new_sql = substitute_column(new_sql, "sqlite", tables, look.table, look.column, picked)
                if new_sql != sql:
                    res = db.run_query(new_sql)
                    if res.ok and res.rows:
                        gold = db.run_query(rec["gold_sql"])
                        new_ex = float(gold.ok and results_match(gold.rows, res.rows,
                                                                 ordered=gold_is_ordered(rec["gold_sql"])))
                        changed += 1
                    else:
                        new_sql = sql
                print(f"{rec['qid']} ex {int(ex)}->{int(new_ex)} {picks} | {rec['question'][:90]}")
                if new_sql != sql:
                    print(f"    {sql}\n => {new_sql}")
            before.append(ex)
            after.append(new_ex)
    n = len(before)
    diff = paired_bootstrap(after, before)
    print(f"records {n}, flagged {flagged}, choice calls {calls}, answers changed {changed}")
    print(f"EX before {sum(before):.0f}/{n}, after {sum(after):.0f}/{n}; paired {diff}")
    won = sum(1 for a, b in zip(after, before, strict=True) if a > b)
    lost = sum(1 for a, b in zip(after, before, strict=True) if a < b)
    print(f"won {won}, lost {lost}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
