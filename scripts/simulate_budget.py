"""What a soft time budget per question would have done to an evaluation run: EX and latency, offline.

For each record of a ``nl2sql eval`` run (JSONL), the LLM calls are replayed on a timeline from their recorded
latencies (in call order). With a budget of ``B`` seconds, a later candidate (cascade fallback or verifier repair)
is started only while less than ``B`` seconds have passed; the answer is then the first candidate made that ran
and returned rows, else the first that ran, else none (an error). Its SQL is executed against the record's
database and compared with the gold SQL (strict EX, as the evaluation does). Questions whose calls all start
before ``B`` keep their recorded EX and latency.

    python scripts/simulate_budget.py eval/runs/spider200/with_examples.jsonl --spider data/spider-dev \\
        --budgets 15,20,25,30
    python scripts/simulate_budget.py benchmarks/results/2026-11-23-latency-views-refusals-postgres/demo59-a70e271-with_examples.jsonl --database \\
        sqlite:///data/markets/markets.sqlite
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from database.connection import Database  # noqa: E402
from eval.metrics import bootstrap_ci, gold_is_ordered, paired_bootstrap, results_match  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) by linear interpolation."""
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def replay(row: dict[str, Any], budget: float) -> tuple[dict[str, Any] | None, float, bool]:
    """``(chosen candidate or None, simulated latency, cut)`` of one record under ``budget`` seconds."""
    calls = [u for u in row.get("usage", []) if u.get("role") == "generator"]
    other = max(0.0, float(row["latency_s"]) - sum(float(u.get("latency_s") or 0) for u in calls))
    elapsed, made = other, 0
    for i, call in enumerate(calls):
        if i > 0 and elapsed >= budget:
            break
        elapsed += float(call.get("latency_s") or 0)
        made += 1
    if made == len(calls):
        return None, float(row["latency_s"]), False
    labels = [str(c.get("label", "")) for c in calls[:made]]
    cands = [c for c in row.get("candidates", []) if c.get("strategy") != "verifier"]
    kept = cands[:sum(1 for lab in labels if lab.startswith("candidate"))]
    ok = [c for c in kept if c.get("status") == "ok" and c.get("sql")]
    chosen = next((c for c in ok if c.get("row_count")), ok[0] if ok else None)
    return chosen, elapsed, True


def main(argv: list[str] | None = None) -> int:
    """Print EX and latency per budget, paired against the recorded run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records")
    parser.add_argument("--spider", help="Spider folder (database/<db_id>/<db_id>.sqlite)")
    parser.add_argument("--database", help="one database URL for every record")
    parser.add_argument("--budgets", default="15,20,25,30")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in Path(args.records).read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("gold_sql") and r.get("ex") is not None]
    dbs: dict[str, Database] = {}

    def db_for(row: dict[str, Any]) -> Database:
        url = args.database or f"sqlite:///{Path(args.spider) / 'database' / row['db_id'] / (row['db_id'] + '.sqlite')}"
        if url not in dbs:
            dbs[url] = Database(url)
        return dbs[url]

    base_ex = [float(r["ex"]) for r in rows]
    base_lat = [float(r["latency_s"]) for r in rows]
    print(f"recorded: n={len(rows)} EX {100 * statistics.fmean(base_ex):.1f}% median {percentile(base_lat, .5):.1f} s "
          f"p95 {percentile(base_lat, .95):.1f} s")
    for budget in (float(b) for b in args.budgets.split(",")):
        ex, lat, cut = [], [], 0
        for row in rows:
            chosen, seconds, was_cut = replay(row, budget)
            lat.append(seconds)
            if not was_cut:
                ex.append(float(row["ex"]))
                continue
            cut += 1
            if chosen is None:
                ex.append(0.0)
                continue
            db = db_for(row)
            gold, pred = db.run_query(row["gold_sql"], row_cap=10_000), db.run_query(chosen["sql"], row_cap=10_000)
            ordered = gold_is_ordered(row["gold_sql"], db.dialect)
            ex.append(float(gold.ok and pred.ok and results_match(gold.rows, pred.rows, ordered=ordered)))
        mean, low, high = bootstrap_ci(ex)
        diff = paired_bootstrap(ex, base_ex)
        print(f"budget {budget:5.1f} s: cut {cut:3d}  EX {100 * mean:5.1f}% [{100 * low:.1f}, {100 * high:.1f}]  "
              f"paired {100 * diff['diff']:+.1f} [{100 * diff['low']:+.1f}, {100 * diff['high']:+.1f}]  "
              f"median {percentile(lat, .5):5.1f} s  p95 {percentile(lat, .95):5.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
