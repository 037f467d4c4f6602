"""Scoring one answered question: EX, soft result F1, the LLM-as-judge verdict, the error category, cost.

EX follows Spider rules (any acceptable gold query); gold and predicted SQL are re-executed without the row
cap.
"""

from __future__ import annotations

from typing import Any

from agent.outcome import Outcome
from core.llm import LLMProvider, UsageLog
from core.settings import Settings
from database.connection import Database
from eval.datasets import EvalItem
from eval.llm_judge import judge_answer
from eval.metrics import error_category, gold_is_ordered, results_match, soft_f1, sql_category, tolerant_match

EVAL_ROW_CAP = 100_000


def score_item(item: EvalItem, outcome: Outcome, db: Database, settings: Settings, *, config: str,
               judge_llms: LLMProvider | None = None) -> dict[str, Any]:
    """The per-question record written to the run's JSONL (one line per question and configuration).

    ``judge_llms`` enables the LLM-as-judge metric (None: ``judge`` is None). The judge's own calls are
    reported separately (``judge_usage``) and not counted in the configuration's cost.
    """
    if item.expect != "answer":
        return score_boundary(item, outcome, settings, config=config)
    golds = [db.run_query(sql, row_cap=EVAL_ROW_CAP) for sql in item.gold_sqls]
    pred_sql = outcome.sql
    pred = db.run_query(pred_sql, row_cap=EVAL_ROW_CAP) if pred_sql else None
    pred_ok = bool(pred is not None and pred.ok)
    ordered = gold_is_ordered(item.gold_sql, db.dialect)
    ex = pred_ok and any(g.ok and results_match(g.rows, pred.rows, ordered=gold_is_ordered(sql, db.dialect))
                         for g, sql in zip(golds, item.gold_sqls, strict=True) if pred is not None)
    tolerant = pred_ok and any(
        g.ok and tolerant_match(g.rows, pred.rows, ordered=gold_is_ordered(sql, db.dialect))
        for g, sql in zip(golds, item.gold_sqls, strict=True) if pred is not None)
    soft = max((soft_f1(g.rows, pred.rows)["f1"] for g in golds if g.ok), default=0.0) if pred_ok and pred else 0.0
    ref = golds[0]
    verdict: dict[str, Any] = {"verdict": None, "reason": "not run", "called": False}
    judge_usage = UsageLog()
    if judge_llms is not None:
        verdict = judge_answer(judge_llms, judge_usage, question=item.question, ordered=ordered, ex=ex,
                               gold=(ref.columns, ref.rows) if ref.ok else None,
                               pred=(pred.columns, pred.rows) if pred_ok and pred else None)
    return {
        "qid": item.qid, "config": config, "db_id": item.db_id,
        "category": item.category or sql_category(item.gold_sql, db.dialect),
        "question": item.question, "gold_sql": item.gold_sql, "pred_sql": pred_sql,
        "ex": int(ex), "ex_tolerant": int(tolerant), "soft_f1": soft,
        "expect": "answer", "kind": outcome.kind, "kind_correct": int(outcome.kind == "answer"),
        "judge": verdict["verdict"], "judge_correct": None if verdict["verdict"] is None
        else int(verdict["verdict"] == "CORRECT"), "judge_reason": verdict["reason"],
        "error_category": error_category(ex=ex, pred_sql=pred_sql, pred_ok=pred_ok,
                                         pred_rows=len(pred.rows) if pred_ok and pred else 0,
                                         gold_rows=len(ref.rows) if ref.ok else 0,
                                         plan_failed=outcome.plan_source == "fallback"),
        "pred_error": None if pred is None or pred.ok else pred.error, "gold_error": ref.error,
        **run_keys(outcome, settings), "judge_usage": [c.to_dict() for c in judge_usage.calls],
    }


def run_keys(outcome: Outcome, settings: Settings) -> dict[str, Any]:
    """The keys every record has, whatever the question expected.

    How the turn ran: status, error, seconds, LLM calls, tokens, cost in USD, plan source, candidates, judge,
    agreement, opaque-column links, confidence, verifier (and its column-choice check: the look-alikes, picks and
    the query before, or None), and its ``usage`` (one dict per LLM call).
    """
    usage = outcome.usage
    return {
        "status": outcome.status, "error": outcome.answer if outcome.status == "error" else None,
        "latency_s": outcome.latency_s, "llm_calls": outcome.llm_calls,
        "prompt_tokens": outcome.prompt_tokens, "cached_tokens": outcome.cached_tokens,
        "completion_tokens": outcome.completion_tokens, "cost_usd": round(settings.cost_usd(usage), 6),
        "plan_source": outcome.plan_source, "candidates": outcome.candidates,
        "judge_called": any(u.get("role") == "judge" for u in usage), "agreement": outcome.agreement,
        "column_links": outcome.column_links,
        "guessed_columns": outcome.guessed_columns,
        "unread_terms": outcome.unread_terms, "unread_columns": outcome.unread_columns,
        "range_conflicts": outcome.range_conflicts, "text_order": outcome.text_order,
        "unstated_joins": outcome.unstated_joins, "keys_stated": outcome.keys_stated,
        **confidence_keys(outcome),
        "verifier_needed": bool((outcome.verifier or {}).get("needed")),
        "verifier_repaired": bool((outcome.verifier or {}).get("repaired")),
        "column_choice": (outcome.verifier or {}).get("column_choice"),
        "usage": usage,
    }


def confidence_keys(outcome: Outcome) -> dict[str, Any]:
    """The ``confidence`` and ``confidence_level`` keys of a record (both None without a confidence).

    ``confidence`` is the outcome's :class:`agent.confidence.Confidence` as a dict (score, level, reasons,
    features).
    """
    conf = outcome.confidence
    return {"confidence": conf.model_dump() if conf else None, "confidence_level": conf.level if conf else None}


def score_boundary(item: EvalItem, outcome: Outcome, settings: Settings, *, config: str) -> dict[str, Any]:
    """The record of a boundary question, one not to be answered with SQL.

    ``item.expect`` is clarify, follow_up or refuse; only the kind of reply is scored (``kind_correct``), EX
    and soft F1 are None.
    """
    return {
        "qid": item.qid, "config": config, "db_id": item.db_id, "category": item.category or item.expect,
        "question": item.question, "gold_sql": None, "pred_sql": outcome.sql,
        "ex": None, "ex_tolerant": None, "soft_f1": None,
        "expect": item.expect, "kind": outcome.kind, "kind_correct": int(outcome.kind == item.expect),
        "readings": outcome.readings, "missing": outcome.missing,
        "judge": None, "judge_correct": None, "judge_reason": "not run",
        "error_category": "correct" if outcome.kind == item.expect else f"kind_{outcome.kind}",
        "pred_error": None, "gold_error": None,
        **run_keys(outcome, settings), "judge_usage": [],
    }
