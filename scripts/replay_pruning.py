"""Replay the deterministic SQL fixes on recorded predictions: EX before/after, paired, without a model.

    python scripts/replay_pruning.py --spider data/spider-dev eval/runs/spider200/no_examples.jsonl
    python scripts/replay_pruning.py --sqlite data/markets/markets.sqlite eval/runs/demo59/with_examples.jsonl

Each record's ``pred_sql`` is rewritten as the agent rewrites a candidate: :func:`rewrites.qualify.fix_qualifiers`
(wrongly qualified columns), then :func:`rewrites.dangling.prune_dangling_joins` (table columns read from the
database, tables named by the question kept, only joins that cannot change the rows dropped); ``--steps`` picks which and both are scored against ``gold_sql``
with the evaluation's strict and tolerant metrics. Prints counts, the paired difference with a 95% bootstrap
interval, and every question whose strict EX changed. This measures the rule on final answers only: in the
agent the pruned candidate also changes which cascade step answers.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from database.connection import Database  # noqa: E402
from eval.metrics import gold_is_ordered, paired_bootstrap, results_match, tolerant_match  # noqa: E402
from rewrites.dangling import any_join, prune_dangling_joins  # noqa: E402
from rewrites.join_facts import lossless_join  # noqa: E402
from rewrites.literals import degenerate, drop_unasked_filters, fix_literals, named_in  # noqa: E402
from rewrites.qualify import fix_qualifiers  # noqa: E402
from tools.coverage import question_names_table  # noqa: E402


def score(db: Database, gold_sql: str, sql: str | None) -> tuple[int, int]:
    """(strict, tolerant) EX of ``sql`` against ``gold_sql`` on ``db`` (0, 0 when either fails)."""
    if not sql:
        return 0, 0
    gold, pred = db.run_query(gold_sql, row_cap=10_000), db.run_query(sql, row_cap=10_000)
    if not (gold.ok and pred.ok):
        return 0, 0
    ordered = gold_is_ordered(gold_sql, db.dialect)
    return int(results_match(gold.rows, pred.rows, ordered=ordered)), int(tolerant_match(gold.rows, pred.rows,
                                                                                         ordered=ordered))


def columns_of(db: Database) -> dict[str, set[str]]:
    """Lower-cased table -> lower-cased column names, from SQLAlchemy's inspector."""
    from sqlalchemy import inspect

    inspector = inspect(db.engine)
    return {t.lower(): {c["name"].lower() for c in inspector.get_columns(t)} for t in inspector.get_table_names()}


def load_records(files: list[str]) -> list[dict[str, Any]]:
    """Evaluation records with a gold query, from JSONL ``files`` in order."""
    rows = [json.loads(line) for f in files for line in Path(f).read_text().splitlines() if line.strip()]
    return [r for r in rows if r.get("gold_sql")]


class Databases:
    """The SQLite database of each record (one file, or Spider's ``database/<db_id>/<db_id>.sqlite``), opened once."""

    def __init__(self, sqlite: str | None, spider: str | None) -> None:
        self.sqlite, self.spider = sqlite, spider
        self.open: dict[str, tuple[Database, dict[str, set[str]]]] = {}

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """Add the required choice of ``--spider FOLDER`` or ``--sqlite FILE`` that :meth:`from_args` reads."""
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("--spider", help="Spider folder (database/<db_id>/<db_id>.sqlite)")
        where.add_argument("--sqlite", help="one SQLite file for every record")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Databases:
        """The databases named by the arguments of :meth:`add_arguments`."""
        return cls(args.sqlite, args.spider)

    def of(self, row: dict[str, Any]) -> tuple[Database, dict[str, set[str]]]:
        """(database, lower-cased table -> columns) of ``row``."""
        path = self.sqlite or f"{self.spider}/database/{row['db_id']}/{row['db_id']}.sqlite"
        if path not in self.open:
            db = Database(f"sqlite:///{path}")
            self.open[path] = (db, columns_of(db))
        return self.open[path]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    Databases.add_arguments(parser)
    parser.add_argument("--steps", default="qualify,prune",
                        help="comma list of: qualify, prune, literal (an empty result's filter values respelled "
                        "as stored), unasked (an empty result without filters on values the question does not name), "
                        "relax (an empty result without unread joins)")
    parser.add_argument("records", nargs="+", help="evaluation record files (JSONL)")
    args = parser.parse_args()
    rows = load_records(args.records)
    dbs = Databases.from_args(args)
    before, after, changed = [], [], []
    for row in rows:
        db, columns = dbs.of(row)
        sql = row.get("pred_sql")
        names = functools.partial(question_names_table, str(row["question"]))
        pruned = sql
        if pruned and "qualify" in args.steps:
            pruned = fix_qualifiers(pruned, db.dialect, columns)
        if pruned and "prune" in args.steps:
            pruned = prune_dangling_joins(pruned, db.dialect, columns, names, lossless_join(db))
        if pruned and "literal" in args.steps and (res := db.run_query(pruned, row_cap=10)).ok \
                and degenerate(res.rows):
            respelled = fix_literals(db, pruned)
            pruned = respelled if respelled and not degenerate(db.run_query(respelled, row_cap=10).rows) else pruned
        if pruned and "unasked" in args.steps and not db.run_query(pruned, row_cap=10).rows:
            kept = drop_unasked_filters(pruned, db.dialect, functools.partial(named_in, str(row["question"])))
            pruned = kept if kept and not degenerate(db.run_query(kept, row_cap=10).rows) else pruned
        if pruned and "relax" in args.steps and (res := db.run_query(pruned, row_cap=10)).ok and not res.rows:
            relaxed = prune_dangling_joins(pruned, db.dialect, columns, lambda _t: False, any_join)
            pruned = relaxed if (again := db.run_query(relaxed, row_cap=10)).ok and again.rows else pruned
        b, a = score(db, row["gold_sql"], sql), score(db, row["gold_sql"], pruned)
        before.append(b)
        after.append(a)
        if pruned != sql:
            changed.append((row["qid"], b[0], a[0], sql, pruned))
    n = len(rows)
    for i, label in ((0, "strict EX"), (1, "tolerant EX")):
        x, y = [a[i] for a in after], [b[i] for b in before]
        d = paired_bootstrap(x, y)
        print(f"{label}: before {sum(y)}/{n} after {sum(x)}/{n}; paired after - before {d['diff']:+.1%} "
              f"[{d['low']:+.1%}, {d['high']:+.1%}]")
    print(f"rewritten: {len(changed)}/{n}")
    for qid, b0, a0, sql, pruned in changed:
        print(f"  {qid}: {b0} -> {a0}\n    {sql}\n    {pruned}")


if __name__ == "__main__":
    main()
