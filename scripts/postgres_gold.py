"""The demo gold set for the PostgreSQL copy of ``markets`` (``make postgres``): gold SQL transpiled and checked.

Each gold query of ``data/markets/gold.jsonl`` is transpiled from SQLite to PostgreSQL with sqlglot and run on
both engines; a question is kept when the two results are equal (EX rules: multisets, order when the gold query
orders), so the PostgreSQL evaluation scores against the same answers. Writes a ``--dataset file`` JSONL with the
read-only PostgreSQL URL and prints what was dropped and why.

    python scripts/postgres_target.py start
    python scripts/postgres_gold.py --out benchmarks/sets/postgres/markets_pg.jsonl
    nl2sql eval --dataset file --path benchmarks/sets/postgres/markets_pg.jsonl --configs with_examples
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.settings import DEMO_DB_PATH  # noqa: E402
from database.connection import Database  # noqa: E402
from database.transpile import transpile_sql  # noqa: E402
from eval.metrics import gold_is_ordered, results_match  # noqa: E402

DEFAULT_URL = "postgresql+psycopg://nl2sql_ro@127.0.0.1:55432/markets"


def to_postgres(sql: str) -> str:
    """``sql`` (SQLite) in PostgreSQL (:func:`database.transpile.transpile_sql`)."""
    return transpile_sql(sql, "sqlite", "postgres")


def main(argv: list[str] | None = None) -> int:
    """Transpile, run on both engines, keep the equal ones."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=DEFAULT_URL, help="the PostgreSQL markets database (read-only role)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "sets" / "postgres" / "markets_pg.jsonl"))
    args = parser.parse_args(argv)
    sqlite, pg = Database(f"sqlite:///{DEMO_DB_PATH}"), Database(args.url)
    kept, dropped = [], []
    for line in (ROOT / "data" / "markets" / "gold.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        gold = json.loads(line)
        sql = to_postgres(gold["sql"])
        a, b = sqlite.run_query(gold["sql"], row_cap=10_000), pg.run_query(sql, row_cap=10_000)
        ordered = gold_is_ordered(gold["sql"])
        if a.ok and b.ok and results_match(a.rows, b.rows, ordered=ordered):
            kept.append({"id": gold["id"], "category": gold.get("category"), "question": gold["question"],
                         "gold_sql": sql, "database_url": args.url})
        else:
            dropped.append((gold["id"], b.error or "results differ"))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("".join(json.dumps(k) + "\n" for k in kept))
    print(f"kept {len(kept)} of {len(kept) + len(dropped)} gold questions -> {args.out}")
    for qid, why in dropped:
        print(f"  dropped {qid}: {str(why)[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
