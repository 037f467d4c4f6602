"""Paired comparison of two evaluation record files (JSONL, matched by qid) on one database, or on Spider.

    python scripts/compare_runs.py sqlite:///data/markets/markets.sqlite RUN_A.jsonl RUN_B.jsonl
    python scripts/compare_runs.py spider:data/spider-dev RUN_A.jsonl RUN_B.jsonl   # each record's db_id
    python scripts/compare_runs.py --common spider:DIR PARTIAL.jsonl FULL.jsonl      # both on the shared questions
    python scripts/compare_runs.py spider:ABBREV ABBREV.jsonl ORIG.jsonl --target-b spider:ORIG  # two copies

Strict and tolerant EX are recomputed from each record's gold and predicted SQL (so runs written before the
tolerant metric existed compare too), then: means with 95% bootstrap intervals, latency median/p95, LLM calls
and tokens per question, paired bootstrap differences A - B, and the questions whose strict EX differs. Warm
latency leaves out the first question of each database in a run's order (it pays for reading the schema).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

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


def _p95(values: list[float]) -> float:
    """The 0.95 quantile (linear interpolation, as the evaluation summary computes it)."""
    return float(np.quantile(values, 0.95))


def summary(name: str, rows: dict[str, dict[str, Any]], dbs: Databases) -> None:
    """Print EX, tolerant EX (95% bootstrap intervals), latency (all and warm), calls and tokens of ``rows``."""
    for row in rows.values():
        row["_ex"], row["_tol"] = rescore(dbs(row), row)
    seen: set[str] = set()
    warm: list[float] = []
    for row in rows.values():  # file order is run order
        if row.get("db_id") in seen:
            warm.append(row["latency_s"])
        seen.add(row.get("db_id", ""))
    lat = [r["latency_s"] for r in rows.values()]
    ex, tol = bootstrap_ci([r["_ex"] for r in rows.values()]), bootstrap_ci([r["_tol"] for r in rows.values()])
    warm_text = f" (warm {statistics.median(warm):.1f} / {_p95(warm):.1f} s, n={len(warm)})" if warm else ""
    print(f"{name}: n={len(rows)} EX {sum(r['_ex'] for r in rows.values())} = {ex[0]:.1%} [{ex[1]:.1%}, "
          f"{ex[2]:.1%}] tolerant {tol[0]:.1%} [{tol[1]:.1%}, {tol[2]:.1%}] latency median "
          f"{statistics.median(lat):.1f} s p95 {_p95(lat):.1f} s{warm_text}; per question "
          f"{statistics.mean(r['llm_calls'] for r in rows.values()):.2f} calls, "
          f"{statistics.mean(r['prompt_tokens'] for r in rows.values()):.0f} prompt + "
          f"{statistics.mean(r['completion_tokens'] for r in rows.values()):.0f} completion tokens")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", help="a database URL, or spider:DIR for each record's db_id")
    parser.add_argument("run_a", help="evaluation records A (JSONL)")
    parser.add_argument("run_b", help="evaluation records B (JSONL)")
    parser.add_argument("--common", action="store_true", help="summarise both runs on their shared questions only")
    parser.add_argument("--target-b", help="B's database when it is another copy (abbreviated names against the "
                        "original ones, same qids); default: target")
    args = parser.parse_args()
    try:
        a, b = load(args.run_a), load(args.run_b)
    except (OSError, ValueError, KeyError) as exc:
        parser.error(f"cannot read the records: {exc}")
    common = sorted(set(a) & set(b))
    if args.common:
        a, b = {q: r for q, r in a.items() if q in b}, {q: r for q, r in b.items() if q in a}
    summary(f"A {args.run_a}", a, Databases(args.target))
    summary(f"B {args.run_b}", b, Databases(args.target_b or args.target))
    for key, label in (("_ex", "EX"), ("_tol", "tolerant EX")):
        d = paired_bootstrap([a[q][key] for q in common], [b[q][key] for q in common])
        print(f"paired A - B {label}: n={len(common)} {d['diff']:+.1%} [{d['low']:+.1%}, {d['high']:+.1%}]")
    differs = [(q, a[q]["_ex"], b[q]["_ex"]) for q in common if a[q]["_ex"] != b[q]["_ex"]]
    won, lost = sum(1 for _, x, _y in differs if x), sum(1 for _, x, _y in differs if not x)
    print(f"strict EX differs (qid: A, B), A won {won}, lost {lost}:", differs)


if __name__ == "__main__":
    main()
