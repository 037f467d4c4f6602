"""``nl2sql eval``: run the agent on each question against its own database and print EX and cost."""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agent.configuration import Settings
from agent.graph import AgentDeps, build_graph
from agent.runner import ask, build_deps
from eval.datasets import EvalItem, load_demo, load_spider, select
from eval.metrics import bootstrap_ci, gold_is_ordered, results_match
from retrieval.database import Database
from retrieval.indexing import index_database, load_examples
from retrieval.store import VectorStore

EVAL_ROW_CAP = 100_000


def ensure_indexed(db: Database, store: VectorStore, settings: Settings, examples_path: Path | None) -> None:
    """Index ``db`` unless its table documents are already in ``store``."""
    if store.count("description_index", where={"db": db.key}) == 0:
        examples = load_examples(examples_path) if examples_path else None
        index_database(db, store, settings, examples=examples, progress=False)


def score_item(item: EvalItem, outcome: dict[str, Any], db: Database) -> dict[str, Any]:
    """EX of one answered question: gold and predicted SQL both re-executed without the row cap."""
    gold = db.run_query(item.gold_sql, row_cap=EVAL_ROW_CAP)
    pred_sql = outcome.get("sql")
    pred = db.run_query(pred_sql, row_cap=EVAL_ROW_CAP) if pred_sql else None
    ex = bool(gold.ok and pred is not None and pred.ok
              and results_match(gold.rows, pred.rows, ordered=gold_is_ordered(item.gold_sql, db.dialect)))
    return {
        "qid": item.qid, "db_id": item.db_id, "category": item.category, "question": item.question,
        "gold_sql": item.gold_sql, "pred_sql": pred_sql, "ex": int(ex), "status": outcome["status"],
        "error": None if outcome["status"] != "error" else outcome["answer"],
        "gold_error": gold.error, "latency_s": outcome["latency_s"], "llm_calls": outcome["llm_calls"],
        "prompt_tokens": outcome["prompt_tokens"], "completion_tokens": outcome["completion_tokens"],
        "plan_source": outcome.get("plan_source"),
        "candidates": outcome.get("candidates") or [],
        "judge_called": any(u.get("role") == "judge" for u in outcome.get("usage", [])),
        "verifier_needed": bool((outcome.get("verifier") or {}).get("needed")),
        "verifier_repaired": bool((outcome.get("verifier") or {}).get("repaired")),
        "usage": outcome.get("usage", []),
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """EX with its bootstrap 95% interval, mean latency, LLM calls and tokens per question."""
    ex, low, high = bootstrap_ci([r["ex"] for r in rows])
    mean = (lambda key: round(statistics.fmean(r[key] for r in rows), 3)) if rows else (lambda key: 0.0)
    return {
        "questions": len(rows), "ex": round(ex, 4), "ex_ci95": [round(low, 4), round(high, 4)],
        "mean_latency_s": mean("latency_s"), "llm_calls_per_q": mean("llm_calls"),
        "prompt_tokens_per_q": mean("prompt_tokens"), "completion_tokens_per_q": mean("completion_tokens"),
        "planner_fallback_share": _share(rows, lambda r: r["plan_source"] == "fallback"),
        "judge_call_share": _share(rows, lambda r: r.get("judge_called", False)),
        "verifier_needed_share": _share(rows, lambda r: r.get("verifier_needed", False)),
        "verifier_repaired_share": _share(rows, lambda r: r.get("verifier_repaired", False)),
        "latency_p50_s": _quantile([r["latency_s"] for r in rows], 0.5),
        "latency_p95_s": _quantile([r["latency_s"] for r in rows], 0.95),
        "ex_by_category": {
            cat: round(statistics.fmean(r["ex"] for r in rows if r["category"] == cat), 3)
            for cat in sorted({r["category"] for r in rows if r["category"]})
        },
    }


def _share(rows: list[dict[str, Any]], pred: Any) -> float:
    return round(sum(bool(pred(r)) for r in rows) / max(1, len(rows)), 3)


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def run_eval(args: argparse.Namespace, settings: Settings) -> int:
    """Run the evaluation described by the CLI ``args``; prints the summary; returns the exit status."""
    if args.dataset == "spider":
        if not args.path:
            raise ValueError("--path is required with --dataset spider (a folder holding dev.json)")
        items = load_spider(Path(args.path))
    else:
        items = load_demo()
    items = select(items, limit=args.limit, sample=args.sample, seed=args.seed)
    if args.no_examples:
        settings = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(
            update={"use_examples": False})})
    deps_by_db: dict[str, tuple[AgentDeps, Any]] = {}
    base: AgentDeps | None = None
    log_path = Path(args.json_out).with_suffix(".jsonl") if args.json_out else None
    done = _load_done(log_path)
    rows: list[dict[str, Any]] = [done[it.qid] for it in items if it.qid in done]
    todo = [it for it in items if it.qid not in done]
    if done:
        print(f"resuming: {len(rows)} questions already answered in {log_path}")
    for item in tqdm(todo, desc="eval", unit="q"):
        if item.database_url not in deps_by_db:
            db_settings = settings.with_database(item.database_url)
            if base is None:
                deps = base = build_deps(db_settings)
            else:
                deps = AgentDeps(db_settings, Database.from_settings(db_settings), base.store, base.llms,
                                 base.registry)
            examples = _examples_for(item)
            ensure_indexed(deps.db, deps.store, db_settings, examples)
            deps_by_db[item.database_url] = (deps, build_graph(deps))
        deps, graph = deps_by_db[item.database_url]
        row = score_item(item, ask(deps, item.question, graph=graph), deps.db)
        rows.append(row)
        if log_path:
            with log_path.open("a") as fh:
                fh.write(json.dumps(row, default=str) + "\n")
    summary = summarize(rows)
    print(json.dumps(summary, indent=2))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"summary": summary, "questions": rows}, indent=2, default=str))
    return 0


def _load_done(path: Path | None) -> dict[str, dict[str, Any]]:
    """Per-question results already written to ``path`` (one JSON object per line), by question id."""
    if path is None or not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["qid"]: r for r in rows}


def _examples_for(item: EvalItem) -> Path | None:
    if item.db_id == "markets":
        return Settings().with_database(item.database_url).resolved_examples_path()
    return None
