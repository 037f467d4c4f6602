"""Per-strategy figures derived from one full-pipeline evaluation run.

The full pipeline records every candidate (strategy, SQL) and every LLM call (role, label, seconds, tokens)
of each question, so one run also measures each candidate strategy on its own: the EX of candidate *k*'s
SQL, and the cost of the calls a pipeline with only that candidate would make (planner, that candidate,
organizer/chart; no judge, no verifier). On the local model candidates run sequentially, so these are the
same calls a single-strategy run would make, up to prompt-cache state. Also derived: the *cascade* (candidates
in order, stopping at the first whose result has rows; see ``GenerationSettings.cascade``), the oracle EX (any
candidate right) and how often the verifier repaired.

Usage: ``python -m eval.ablation benchmarks/results/<folder>/<run>.json [--path data/spider-dev]``
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from database.connection import Database
from eval.datasets import load_demo, load_spider
from eval.metrics import bootstrap_ci, gold_is_ordered, results_match

ROW_CAP = 100_000
def _shared(label: str) -> bool:
    """Calls every configuration makes: planner, value filter, organizer, chart.

    Candidates, judge and verifier calls are not shared.
    """
    return not label.startswith(("candidate ", "judge", "verifier"))


def _mean(rows: list[dict[str, Any]], fn: Callable[[dict[str, Any]], float]) -> float:
    return round(statistics.fmean(fn(r) for r in rows), 3) if rows else 0.0


def _calls(row: dict[str, Any], keep: Callable[[str], bool]) -> list[dict[str, Any]]:
    return [u for u in row.get("usage", []) if keep(u.get("label") or "")]


def summarize_strategy(rows: list[dict[str, Any]], index: int, ex: list[int]) -> dict[str, Any]:
    """EX (with bootstrap 95% CI) and per-question cost of candidate ``index`` alone."""
    def keep(label: str) -> bool:
        return _shared(label) or label.startswith(f"candidate {index} ")
    point, low, high = bootstrap_ci(ex)
    return {
        "ex": round(point, 4), "ex_ci95": [round(low, 4), round(high, 4)],
        "llm_calls_per_q": _mean(rows, lambda r: len(_calls(r, keep))),
        "llm_seconds_per_q": _mean(rows, lambda r: sum(u["latency_s"] for u in _calls(r, keep))),
        "prompt_tokens_per_q": _mean(rows, lambda r: sum(u["prompt_tokens"] for u in _calls(r, keep))),
        "completion_tokens_per_q": _mean(rows, lambda r: sum(u["completion_tokens"] for u in _calls(r, keep))),
    }


def _cascade(row: dict[str, Any], hits: list[int]) -> tuple[int, dict[str, float]]:
    """EX and cost of the cascade on one question.

    The first candidate whose result had rows answers; when none had rows the cascade made every candidate
    and the verifier ran, exactly as in the full run.
    """
    cands = [c for c in row["candidates"] if c.get("strategy") != "verifier"]
    first = next((i for i, c in enumerate(cands) if c.get("status") == "ok"), None)
    made = {c["index"] for c in cands[: (first + 1 if first is not None else len(cands))]}

    def keep(label: str) -> bool:
        if label.startswith("candidate "):
            return int(label.split()[1]) in made
        return _shared(label) or (first is None and label.startswith("verifier"))
    calls = _calls(row, keep)
    cost = {"llm_calls_per_q": float(len(calls)),
            "llm_seconds_per_q": sum(u["latency_s"] for u in calls),
            "prompt_tokens_per_q": float(sum(u["prompt_tokens"] for u in calls)),
            "completion_tokens_per_q": float(sum(u["completion_tokens"] for u in calls))}
    return (hits[first] if first is not None else int(row["ex"])), cost


def ablate(run: dict[str, Any], items_by_qid: dict[str, Any]) -> dict[str, Any]:
    """The derived figures for a loaded ``--json`` run file (see the module docstring)."""
    rows = [r for r in run["questions"] if r.get("candidates")]
    dbs: dict[str, Database] = {}
    per_index: dict[int, list[int]] = {}
    strategy: dict[int, str] = {}
    oracle, cascade, cascade_cost = [], [], []
    for row in rows:
        item = items_by_qid[row["qid"]]
        db = dbs.setdefault(item.database_url, Database(item.database_url, row_cap=ROW_CAP))
        gold = db.run_query(item.gold_sql, row_cap=ROW_CAP)
        ordered = gold_is_ordered(item.gold_sql, db.dialect)
        hits = []
        for cand in row["candidates"]:
            if cand.get("strategy") == "verifier":
                continue
            pred = db.run_query(cand["sql"], row_cap=ROW_CAP) if cand.get("sql") and not cand.get("error") else None
            hit = int(bool(gold.ok and pred is not None and pred.ok
                           and results_match(gold.rows, pred.rows, ordered=ordered)))
            per_index.setdefault(cand["index"], []).append(hit)
            strategy[cand["index"]] = cand["strategy"]
            hits.append(hit)
        oracle.append(int(any(hits)))
        hit, cost = _cascade(row, hits)
        cascade.append(hit)
        cascade_cost.append(cost)
    out: dict[str, Any] = {"questions": len(rows), "pipeline": run.get("summary", {})}
    for index in sorted(per_index):
        out[f"candidate {index} ({strategy[index]}) alone"] = summarize_strategy(rows, index, per_index[index])
    point, low, high = bootstrap_ci(cascade)
    out["cascade (candidates in order, stop at the first with rows)"] = {
        "ex": round(point, 4), "ex_ci95": [round(low, 4), round(high, 4)],
        **{k: round(statistics.fmean(c[k] for c in cascade_cost), 3) for k in cascade_cost[0]},
    } if cascade_cost else {}
    point, low, high = bootstrap_ci(oracle)
    out["oracle (any candidate right)"] = {"ex": round(point, 4), "ex_ci95": [round(low, 4), round(high, 4)]}
    out["verifier_repaired_and_right"] = sum(r["ex"] for r in rows if r.get("verifier_repaired"))
    out["verifier_repaired"] = sum(bool(r.get("verifier_repaired")) for r in rows)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the derived figures of a run file as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", help="a configuration's JSONL in an `nl2sql eval` run directory (or the JSON file "
                        "of earlier versions, with a \"questions\" list)")
    parser.add_argument("--path", help="Spider-format folder for spider runs (default: the demo gold set)")
    args = parser.parse_args(argv)
    text = Path(args.run).read_text()
    if args.run.endswith(".jsonl"):
        run: dict[str, Any] = {"questions": [json.loads(line) for line in text.splitlines() if line.strip()]}
    else:
        run = json.loads(text)
    items = load_spider(Path(args.path)) if args.path else load_demo()
    print(json.dumps(ablate(run, {it.qid: it for it in items}), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
