"""Profiles of a time-ordered fact table from the first rows against a sample spread over the table. No model.

    python measure.py CHECKOUT DB_PATH [--rows 3000000]

Writes (once; reused when DB_PATH exists) a trades table filled in time order, as a real fact table is: trade
dates rise with the row number, ticker k is first traded at row k * 800 (3,000 tickers, the last listed near the
end), the desk 'DER' only trades in the last 15% of the rows, and ``ref`` (a settlement reference) is unique over
the first 60% of the rows and then repeats. Then, with the code of CHECKOUT, it profiles the table
(:func:`database.profiling.profile_table`, the default 200,000-row sample), reads its value entries
(:func:`retrieval.value_entries.read_entries`) and prints per column the distinct count, the rows it was counted
over and whether onboarding would call the column a candidate key, with the seconds each step took.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from pathlib import Path

TRUE = {"ticker": 3000, "desk": 5, "ref": None}  # ref: filled in from the table


def build(path: Path, rows: int) -> None:
    """The time-ordered trades table described in the module docstring."""
    rng = random.Random(7)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE trades (trade_id INTEGER PRIMARY KEY, trade_dt TEXT, ticker TEXT, desk TEXT, "
                 "ref TEXT, qty INTEGER, px REAL)")
    late = int(rows * 0.85)
    unique_until = int(rows * 0.6)

    def row(i: int) -> tuple:
        listed = min(3000, i // 800 + 1)
        day = 20_000 + i * 2000 // rows
        dt = time.strftime("%Y-%m-%d", time.gmtime(day * 86400))
        desks = ["EQ", "FI", "FX", "CMD"] + (["DER"] if i >= late else [])
        ref = f"R{i:08d}" if i < unique_until else f"R{rng.randrange(unique_until):08d}"
        return (i, dt, f"T{rng.randrange(listed):04d}", rng.choice(desks), ref, rng.randint(1, 10_000),
                round(rng.uniform(1, 500), 2))

    conn.executemany("INSERT INTO trades VALUES (?, ?, ?, ?, ?, ?, ?)", (row(i) for i in range(rows)))
    conn.commit()
    conn.close()


def main() -> int:
    """Build if needed, profile, print."""
    parser = argparse.ArgumentParser()
    parser.add_argument("checkout", type=Path)
    parser.add_argument("db", type=Path)
    parser.add_argument("--rows", type=int, default=3_000_000)
    args = parser.parse_args()
    if not args.db.exists():
        started = time.perf_counter()
        build(args.db, args.rows)
        print(f"built {args.rows:,} rows in {time.perf_counter() - started:.0f} s")
    sys.path.insert(0, str(args.checkout.resolve()))
    from database.connection import Database
    from database.profiling import profile_table
    from database.schema_reader import read_schema
    from retrieval.onboarding.profile import is_candidate_key
    from retrieval.value_entries import read_entries

    db = Database(f"sqlite:///{args.db}")
    truth = dict(db.run_query("SELECT 'ref', COUNT(DISTINCT ref) FROM trades UNION ALL "
                              "SELECT 'ticker', COUNT(DISTINCT ticker) FROM trades", row_cap=2).rows)
    table = next(t for t in read_schema(db, sample_rows=0) if t.name == "trades")
    started = time.perf_counter()
    prof = profile_table(db, table)
    seconds = time.perf_counter() - started
    print(f"profile: {seconds:.1f} s")
    total = prof["trade_id"].row_count
    for name in ("ticker", "desk", "ref", "trade_dt"):
        p = prof[name]
        summary = {"null_share": p.null_share, "distinct": p.distinct_count,
                   "distinct_sample": p.distinct_sample, "kind": p.kind}
        key = is_candidate_key(summary, total)
        top = [v for v, _n in p.top_values]
        print(f"  {name:8s} distinct {p.distinct_count} over {p.distinct_sample} rows (table: "
              f"{truth.get(name, '-')}); candidate key {key}; top values {top[:6]}")
    started = time.perf_counter()
    entries = read_entries(db, table, ())
    by_column: dict[str, int] = {}
    for e in entries:
        by_column[e.column] = by_column.get(e.column, 0) + 1
    print(f"value entries: {by_column} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
