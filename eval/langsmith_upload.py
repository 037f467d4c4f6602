"""Upload an evaluation run to LangSmith through its evaluation API.

The questions become a dataset (inputs: question, db_id, qid; reference outputs: gold SQL) and each
configuration an experiment whose target returns the recorded answer (nothing is re-run) and whose evaluators
report EX, the LLM judge's verdict, soft F1, latency, LLM calls and tokens. Without ``LANGSMITH_API_KEY``
nothing is sent and everything stays offline.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval.run_files import load_run

METRICS = ("ex", "judge_correct", "soft_f1", "latency_s", "llm_calls", "prompt_tokens", "completion_tokens",
           "cost_usd")


def dataset_name(meta: dict[str, Any], qids: list[str]) -> str:
    """A stable name for the question set: ``nl2sql-<dataset>-<n>q-<8 hex of the sorted ids>``."""
    digest = hashlib.sha1("\n".join(sorted(qids)).encode()).hexdigest()[:8]
    return f"nl2sql-{meta.get('dataset', 'eval')}-{len(qids)}q-{digest}"


def _metric(key: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def evaluator(outputs: dict[str, Any]) -> dict[str, Any]:
        return {"key": key, "score": outputs.get(key)}

    evaluator.__name__ = key
    return evaluator


def upload_run(run_dir: Path, *, client: Any = None, evaluate_fn: Callable[..., Any] | None = None,
               api_key: str | None = None) -> str:
    """Create (or reuse) the dataset and one experiment per configuration; returns a one-line status.

    ``client``/``evaluate_fn`` default to ``langsmith.Client()`` and ``langsmith.evaluate`` (tests inject
    fakes); ``api_key`` defaults to ``LANGSMITH_API_KEY``. Network errors are reported in the status, not raised.
    """
    if not (api_key or os.environ.get("LANGSMITH_API_KEY")) and client is None:
        return "LangSmith: skipped (LANGSMITH_API_KEY is not set; the run stays local)"
    meta, rows = load_run(Path(run_dir))
    by_qid: dict[str, dict[str, Any]] = {}
    for recs in rows.values():
        for r in recs:
            by_qid.setdefault(r["qid"], r)
    try:
        if client is None:
            from langsmith import Client

            client = Client()
        if evaluate_fn is None:
            from langsmith import evaluate

            evaluate_fn = evaluate
        name = dataset_name(meta, list(by_qid))
        if not client.has_dataset(dataset_name=name):
            client.create_dataset(dataset_name=name, description=f"nl2sql evaluation questions ({meta})"[:1000])
            client.create_examples(dataset_name=name, examples=[
                {"inputs": {"question": r["question"], "db_id": r["db_id"], "qid": q},
                 "outputs": {"gold_sql": r["gold_sql"]}} for q, r in by_qid.items()])
        for config, recs in rows.items():
            answers = {r["qid"]: r for r in recs}

            def target(inputs: dict[str, Any], answers: dict[str, dict[str, Any]] = answers) -> dict[str, Any]:
                rec = answers.get(inputs["qid"], {})
                return {"sql": rec.get("pred_sql"), "error_category": rec.get("error_category"),
                        **{k: rec.get(k) for k in METRICS}}

            run_experiment = evaluate_fn
            run_experiment(target, data=name, evaluators=[_metric(k) for k in METRICS], client=client,
                        experiment_prefix=f"nl2sql-{config}", metadata={**meta, "config": config})
        return f"LangSmith: dataset {name}, {len(rows)} experiments uploaded"
    except Exception as exc:  # offline, auth, quota: the local report is complete anyway
        return f"LangSmith: upload failed ({type(exc).__name__}: {exc})"
