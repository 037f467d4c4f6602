"""Paired comparison of two evaluation record files (JSONL, matched by qid) on one database, or on Spider.

    python scripts/compare_runs.py sqlite:///data/markets/markets.sqlite RUN_A.jsonl RUN_B.jsonl
    python scripts/compare_runs.py spider:data/spider-dev RUN_A.jsonl RUN_B.jsonl   # each record's db_id

Strict and tolerant EX are recomputed from each record's gold and predicted SQL (so runs written before the
tolerant metric existed compare too), then: means with 95% bootstrap intervals, latency median/p95, LLM calls
and tokens per question, paired bootstrap differences A - B, and the questions whose strict EX differs.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from database.connection import Database  # noqa: E402
from eval.metrics import bootstrap_ci, gold_is_ordered, paired_bootstrap, results_match, tolerant_match  # noqa: E402


def load(path: str) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return {r["qid"]: r for r in rows if r.get("gold_sql")}


class Databases:
    """One :class:`Database` for a URL, or for ``spider:DIR`` the SQLite file of each record's ``db_id``."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.open: dict[str, Database] = {}

    def __call__(self, row: dict[str, Any]) -> Database:
        url = self.target
        if url.startswith("spider:"):
            folder = url.removeprefix("spider:")
            url = f"sqlite:///{folder}/database/{row['db_id']}/{row['db_id']}.sqlite"
        if url not in self.open:
            self.open[url] = Database(url)
        return self.open[url]


def rescore(db: Database, row: dict[str, Any]) -> tuple[int, int]:
    gold = db.run_query(row["gold_sql"], row_cap=10_000)
    pred = db.run_query(row["pred_sql"], row_cap=10_000) if row.get("pred_sql") else None
    if not (gold.ok and pred is not None and pred.ok):
        return 0, 0
    ordered = gold_is_ordered(row["gold_sql"], db.dialect)
    return int(results_match(gold.rows, pred.rows, ordered=ordered)), int(tolerant_match(gold.rows, pred.rows,
                                                                                         ordered=ordered))


def summary(name: str, rows: dict[str, dict[str, Any]], dbs: Databases) -> None:
    for row in rows.values():
        row["_ex"], row["_tol"] = rescore(dbs(row), row)
    lat = sorted(r["latency_s"] for r in rows.values())
    ex, tol = bootstrap_ci([r["_ex"] for r in rows.values()]), bootstrap_ci([r["_tol"] for r in rows.values()])
    print(f"{name}: n={len(rows)} EX {ex[0]:.1%} [{ex[1]:.1%}, {ex[2]:.1%}] tolerant {tol[0]:.1%} "
          f"[{tol[1]:.1%}, {tol[2]:.1%}] latency median {statistics.median(lat):.1f} s "
          f"p95 {lat[int(0.95 * (len(lat) - 1))]:.1f} s; per question {statistics.mean(r['llm_calls'] for r in rows.values()):.2f} "
          f"calls, {statistics.mean(r['prompt_tokens'] for r in rows.values()):.0f} prompt + "
          f"{statistics.mean(r['completion_tokens'] for r in rows.values()):.0f} completion tokens")


def main() -> None:
    db = Databases(sys.argv[1])
    a, b = load(sys.argv[2]), load(sys.argv[3])
    summary(f"A {sys.argv[2]}", a, db)
    summary(f"B {sys.argv[3]}", b, db)
    common = sorted(set(a) & set(b))
    for key, label in (("_ex", "EX"), ("_tol", "tolerant EX")):
        d = paired_bootstrap([a[q][key] for q in common], [b[q][key] for q in common])
        print(f"paired A - B {label}: n={len(common)} {d['diff']:+.1%} [{d['low']:+.1%}, {d['high']:+.1%}]")
    print("strict EX differs (qid: A, B):", [(q, a[q]["_ex"], b[q]["_ex"]) for q in common if a[q]["_ex"] != b[q]["_ex"]])


if __name__ == "__main__":
    main()
