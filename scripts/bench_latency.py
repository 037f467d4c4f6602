"""Latency benchmark: seconds and tokens per question and per stage, cold and warm, in two question orders.

Runs the agent (the same ``ask`` as the app, the CLI and the evaluation) over a dataset sample and prints:

* per question: wall seconds, LLM calls, prompt tokens (and those served from the prompt cache), completion
  tokens; the ``--json`` file also keeps each LLM call (role, label, seconds, tokens);
* per stage: the planner, each plan step's tool (schema retrieval, examples, values, generation, execution,
  judge, verifier, chart) and the answer, as median and p95 seconds, with the LLM tokens spent there;
* cold versus warm: a question is *cold* when it is the first one of its database in the run (the server's
  prompt cache holds nothing of that schema yet), *warm* otherwise;
* with ``--order both``, the same questions in their sampled order and grouped by database (a fresh process
  per order is not needed: the prompt cache holds a few schemas, so the sampled order mostly runs cold).

Usage::

    python scripts/bench_latency.py --dataset spider --path data/spider-dev --sample 100 --seed 0 --limit 12 \\
        --order both --json benchmarks/results/<date>-<subject>/latency.json
    python scripts/bench_latency.py --dataset demo --split dev --limit 10

EX is not scored here (``nl2sql eval`` does that); the examples store is the evaluation's disjoint split, so
the prompts are the ones the evaluation measures. Needs the local model (or the configured endpoints).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent.context import AgentDeps  # noqa: E402
from agent.graph import build_graph  # noqa: E402
from agent.runner import ask  # noqa: E402
from core.llm import LLMProvider  # noqa: E402
from core.local_server import ensure_local_server  # noqa: E402
from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from eval.datasets import EvalItem, select  # noqa: E402
from eval.runner import load_dataset, prepare_store  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.store import ChromaStore  # noqa: E402
from tools.registry import default_registry  # noqa: E402


def stage_times(outcome: Any) -> dict[str, dict[str, float]]:
    """``{stage: {"seconds", "prompt_tokens", "cached_tokens", "completion_tokens", "calls"}}`` of one question."""
    stages: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for record in outcome.trace:
        name = record.get("tool") or record.get("node", "?")
        name = "answer" if name == "solve" else name
        stage = stages[str(name)]
        stage["seconds"] += float(record.get("latency_s") or 0.0)
        stage["calls"] += float(record.get("llm_calls") or 0)
        stage["prompt_tokens"] += float(record.get("prompt_tokens") or 0)
        stage["cached_tokens"] += float(record.get("cached_tokens") or 0)
        stage["completion_tokens"] += float(record.get("completion_tokens") or 0)
    return {k: dict(v) for k, v in stages.items()}


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def run_order(items: list[EvalItem], settings: Settings, store: ChromaStore, llms: LLMProvider,
              order: str) -> list[dict[str, Any]]:
    """Ask every item in ``order`` (sampled | grouped); one record per question."""
    if order == "grouped":
        items = sorted(items, key=lambda it: it.db_id)  # stable: the sampled order within a database
    agents: dict[str, AgentDeps] = {}
    graph = build_graph()
    seen: set[str] = set()
    records = []
    for item in items:
        if item.database_url not in agents:
            cfg = settings.with_database(item.database_url)
            agents[item.database_url] = AgentDeps(cfg, Database.from_settings(cfg), store, llms, default_registry())
        started = time.perf_counter()
        out = ask(agents[item.database_url], item.question, graph=graph)
        wall = time.perf_counter() - started
        cold = item.db_id not in seen
        seen.add(item.db_id)
        records.append({"qid": item.qid, "db_id": item.db_id, "order": order, "cold": cold, "seconds": wall,
                        "status": out.status, "llm_calls": out.llm_calls, "prompt_tokens": out.prompt_tokens,
                        "cached_tokens": out.cached_tokens,
                        "completion_tokens": out.completion_tokens, "stages": stage_times(out),
                        "calls": out.usage})
        print(f"{order:8} {'cold' if cold else 'warm'} {wall:6.1f} s  {out.llm_calls} calls  "
              f"{out.prompt_tokens:5d}+{out.completion_tokens:4d} tok ({out.cached_tokens:5d} cached)  "
              f"{item.db_id}: {item.question[:60]}",
              flush=True)
    return records


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Median/p95 seconds overall, cold and warm, and per stage (with mean tokens per question)."""
    def block(rows: list[dict[str, Any]]) -> dict[str, float]:
        secs = [r["seconds"] for r in rows]
        return {"n": len(rows), "median_s": round(percentile(secs, 0.5), 2), "p95_s": round(percentile(secs, 0.95), 2),
                "mean_prompt_tokens": round(statistics.fmean([r["prompt_tokens"] for r in rows]), 1) if rows else 0,
                "mean_cached_tokens": round(statistics.fmean([r.get("cached_tokens", 0) for r in rows]), 1)
                if rows else 0,
                "mean_completion_tokens": round(statistics.fmean([r["completion_tokens"] for r in rows]), 1)
                if rows else 0}
    stages: dict[str, list[dict[str, float]]] = defaultdict(list)
    for r in records:
        for name, s in r["stages"].items():
            stages[name].append(s)
    per_stage = {name: {"runs": len(v), "median_s": round(percentile([s["seconds"] for s in v], 0.5), 2),
                        "p95_s": round(percentile([s["seconds"] for s in v], 0.95), 2),
                        "mean_prompt_tokens": round(statistics.fmean([s["prompt_tokens"] for s in v]), 1),
                        "mean_cached_tokens": round(statistics.fmean([s.get("cached_tokens", 0) for s in v]), 1),
                        "mean_completion_tokens": round(statistics.fmean([s["completion_tokens"] for s in v]), 1)}
                 for name, v in stages.items()}
    return {"all": block(records), "cold": block([r for r in records if r["cold"]]),
            "warm": block([r for r in records if not r["cold"]]), "stages": per_stage}


def print_summary(order: str, summary: dict[str, Any]) -> None:
    """A small table of :func:`summarise` output."""
    print(f"\n== order: {order}")
    for key in ("all", "cold", "warm"):
        b = summary[key]
        print(f"{key:5} n={b['n']:3d} median {b['median_s']:6.2f} s  p95 {b['p95_s']:6.2f} s  "
              f"tokens {b['mean_prompt_tokens']:7.1f} ({b['mean_cached_tokens']:7.1f} cached) + "
              f"{b['mean_completion_tokens']:6.1f}")
    print(f"{'stage':18} {'runs':>4} {'median s':>9} {'p95 s':>7} {'prompt tok':>10} {'cached':>8} {'compl tok':>9}")
    for name, s in sorted(summary["stages"].items(), key=lambda kv: -kv[1]["median_s"]):
        print(f"{name:18} {s['runs']:4d} {s['median_s']:9.2f} {s['p95_s']:7.2f} {s['mean_prompt_tokens']:10.1f} "
              f"{s['mean_cached_tokens']:8.1f} {s['mean_completion_tokens']:9.1f}")


def main(argv: list[str] | None = None) -> int:
    """Parse the options, index the databases, run the orders and print (and optionally save) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", choices=["demo", "spider", "file"], default="demo")
    parser.add_argument("--path")
    parser.add_argument("--split", choices=["all", "dev", "test"], default="all",
                        help="with --dataset demo: the whole gold set or its fixed dev or test half")
    parser.add_argument("--sample", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--order", choices=["sampled", "grouped", "both"], default="grouped")
    parser.add_argument("--examples-per-db", type=int, default=40)
    parser.add_argument("--chroma", help="Chroma folder (default: <state_dir>/eval/chroma, shared with nl2sql eval)")
    parser.add_argument("--json", help="write the records and summaries here")
    args = parser.parse_args(argv)
    settings = Settings()
    all_items = load_dataset(args.dataset, args.path, args.split)
    items = select(all_items, limit=args.limit, sample=args.sample, seed=args.seed)
    if settings.uses_local_llm():
        ensure_local_server(settings)
    chroma = Path(args.chroma) if args.chroma else Path(settings.state_dir) / "eval" / "chroma"
    store = ChromaStore(chroma, get_embedding_function(settings))
    prepare_store(store, settings, all_items, items, per_db=args.examples_per_db, seed=args.seed)
    llms = LLMProvider(settings)
    orders = ["sampled", "grouped"] if args.order == "both" else [args.order]
    result: dict[str, Any] = {"dataset": args.dataset, "questions": len(items), "orders": {},
                              "plan_format": getattr(settings, "plan_format", "full")}
    for order in orders:
        records = run_order(items, settings, store, llms, order)
        summary = summarise(records)
        print_summary(order, summary)
        result["orders"][order] = {"summary": summary, "records": records}
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
