"""Build an abbreviated ("warehouse-style") Spider-format copy of some databases (see eval/abbreviate/).

    python scripts/abbreviate_db.py --source ../shared/benchmarks/spider-wide --out .nl2sql/bench/wide-abbrev \\
        --databases concert_singer,flight_1 [--seed 2026]
    python scripts/abbreviate_db.py --source ../shared/benchmarks/spider-wide --out .nl2sql/bench/wide-abbrev \\
        --from-dev benchmarks/sets/wide-dev.jsonl [--count 12] [--all-questions]

With --from-dev, COUNT databases of the development set are chosen (seeded, among its sorted db_ids) and only
that set's questions are kept, so a run on the copy pairs qid by qid with a run on the set
(``nl2sql eval --dataset spider --path .nl2sql/bench/wide-abbrev``). --all-questions keeps every question of
those databases instead: the evaluation then draws its few-shot examples from the other questions, as it does
on the source, and ``--per-db 2 --seed 2026`` selects the set's questions again (those that survived).
Prints the questions kept and dropped per database and a few renamings; renames.json in OUT holds them all.
--drop-foreign-keys declares no foreign key in the copies (as a warehouse or a CSV load often does) and keeps the
names, rows and questions of the same seed without it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eval.abbreviate import build_copy, databases_from_dev  # noqa: E402

DEFAULT_COUNT = 12


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default=str(ROOT.parent / "shared" / "benchmarks" / "spider-wide"),
                        help="Spider-format folder (dev.json, database/<db_id>/<db_id>.sqlite)")
    parser.add_argument("--out", default=str(ROOT / ".nl2sql" / "bench" / "wide-abbrev"))
    pick = parser.add_mutually_exclusive_group(required=True)
    pick.add_argument("--databases", help="comma-separated db_ids (every question of them is kept)")
    pick.add_argument("--from-dev", help="development set JSONL (qid, db_id): choose --count of its databases")
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT, help="databases chosen with --from-dev")
    parser.add_argument("--all-questions", action="store_true",
                        help="with --from-dev: keep every question of the chosen databases, not only the set's")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--column-share", type=float, default=0.3, help="share of non-key columns named c<N>")
    parser.add_argument("--table-share", type=float, default=0.2, help="share of tables named t_<NN>")
    parser.add_argument("--drop-foreign-keys", action="store_true",
                        help="declare no foreign key in the copies (same names as without the flag)")
    args = parser.parse_args()

    indices: set[int] | None = None
    if args.from_dev:
        db_ids, dev_indices = databases_from_dev(Path(args.from_dev), args.count, args.seed)
        indices = None if args.all_questions else dev_indices
    else:
        db_ids = [d.strip() for d in args.databases.split(",") if d.strip()]
    report = build_copy(Path(args.source), Path(args.out), db_ids, seed=args.seed, indices=indices,
                        column_share=args.column_share, table_share=args.table_share,
                        foreign_keys=not args.drop_foreign_keys)
    for db, counts in report.per_db.items():
        rename = report.renames[db]
        lost = report.foreign_keys_dropped[db]
        print(f"{db} -> {rename.new_db_id}: {len(rename.tables)} tables, kept {counts['kept']}, "
              f"dropped {counts['dropped']}" + (f", foreign keys left out: {len(lost)}" if lost else ""))
    print(f"questions: kept {report.kept}, dropped {len(report.dropped)}")
    for d in report.dropped:
        print(f"  dropped spider-{d['source_index']} ({d['db_id']}): {d['reason'][:160]}")
    print("examples of renamings:")
    for db in list(report.renames)[:3]:  # each database's widest table
        table, renamed = max(report.renames[db].tables.items(), key=lambda kv: len(kv[1].columns))
        columns = ", ".join(f"{old} -> {new}" for old, new in list(renamed.columns.items())[:8])
        print(f"  {db}.{table} -> {renamed.name}: {columns}")
    print(f"written to {args.out} (dev.json, database/, renames.json)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
