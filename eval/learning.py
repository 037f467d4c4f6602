"""Learning from feedback, measured: do paraphrases of a taught question come out right after a thumbs-up?

A learning set holds taught pairs (a question and its correct SQL, as an analyst would approve them) and, for
each, paraphrases that ask the same thing in other words (their gold SQL is the taught SQL). :func:`run_learning`
asks every paraphrase (*before*), teaches the pairs through the injected ``teach`` step (in the product: a
thumbs-up approved through the feedback store, which puts the pair in the examples index), asks the paraphrases
again (*after*) and reports EX before and after (paired bootstrap), latency, and how often the taught example
was among the retrieved few-shot examples. The index lives in the run folder, so nothing of the user's store
is touched.

Contrasts guard the other side: near misses of a taught question (another year, currency or company, "fewest"
for "most", another figure) with their own gold SQL. They are asked before and after too; their EX must not drop,
or approved answers are being reused where they do not apply (:mod:`tools.reuse`).

File format (JSONL): ``{"id", "taught_question", "taught_sql", "paraphrases": [...], "database_url"}`` with a
SQLite path relative to the file or a SQLAlchemy URL, and optionally ``"contrasts": [{"question", "sql"}]``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from agent.context import AgentDeps
from agent.graph import build_graph
from agent.runner import ask, build_deps
from core.settings import Settings
from database.connection import Database
from eval.datasets import EvalItem
from eval.metrics import paired_bootstrap
from eval.scoring import score_item
from retrieval.embeddings import get_embedding_function
from retrieval.indexing import index_database, load_examples
from retrieval.store import ChromaStore


@dataclass
class LearningItem:
    """One taught pair and its paraphrases (their gold SQL is ``taught_sql``)."""

    id: str
    taught_question: str
    taught_sql: str
    paraphrases: list[str]
    database_url: str
    contrasts: list[tuple[str, str]] = field(default_factory=list)
    """Near misses as ``(question, gold SQL)``."""


def load_learning(path: Path) -> list[LearningItem]:
    """Read a learning set (see the module docstring).

    Raises:
        ValueError: a record lacks a field or has no paraphrase (the message names the line).
    """
    items = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        rec = json.loads(line)
        url = str(rec.get("database_url") or "")
        if not (rec.get("taught_question") and rec.get("taught_sql") and rec.get("paraphrases") and url):
            raise ValueError(f"{path}:{n}: needs taught_question, taught_sql, paraphrases and database_url")
        if "://" not in url:
            url = f"sqlite:///{(Path(path).parent / url).resolve()}"
        contrasts = [(str(c["question"]), str(c["sql"])) for c in rec.get("contrasts") or []
                     if c.get("question") and c.get("sql")]
        items.append(LearningItem(str(rec.get("id") or f"l{n}"), rec["taught_question"], rec["taught_sql"],
                                  [str(p) for p in rec["paraphrases"]], url, contrasts))
    return items


Teach = Callable[[AgentDeps, list[LearningItem]], int]
"""Approves the taught pairs for one database's agent; returns how many were approved."""


def _ask_all(deps: AgentDeps, items: list[LearningItem], settings: Settings, phase: str,
             log: Path) -> list[dict[str, Any]]:
    graph = build_graph()
    db = deps.db
    rows = []
    with log.open("a", encoding="utf-8") as handle:
        for item in items:
            asked = [(f"{item.id}-p{i}", q, item.taught_sql, False) for i, q in enumerate(item.paraphrases, start=1)]
            asked += [(f"{item.id}-c{i}", q, sql, True) for i, (q, sql) in enumerate(item.contrasts, start=1)]
            for qid, question, gold, contrast in asked:
                outcome = ask(deps, question, graph=graph)
                row = score_item(EvalItem(qid, question, gold, item.database_url, db.key), outcome, db, settings,
                                 config=phase)
                row["contrast"] = contrast
                row["taught_retrieved"] = any(item.taught_question in str(t.get("output", ""))
                                              for t in outcome.trace if t.get("tool") == "retrieve_examples")
                row["reused"] = any(c.get("strategy") == "approved" and not c.get("error")
                                    for c in row.get("candidates") or [])
                handle.write(json.dumps(row, default=str) + "\n")
                rows.append(row)
    return rows


def run_learning(items: list[LearningItem], settings: Settings, out: Path, teach: Teach, *,
                 llm_overrides: dict[str, BaseChatModel] | None = None) -> dict[str, Any]:
    """Before / teach / after over ``items``; returns the summary, also written to ``out``.

    Items are grouped by database; ``out`` gets ``before.jsonl``, ``after.jsonl`` (one scored row per
    paraphrase), ``summary.json``, and the run's own index and state.

    Summary: ``questions``; ``ex_before`` / ``ex_after`` (means); ``paired`` (after - before: diff, low, high);
    ``taught_retrieved_before`` / ``_after`` (share of paraphrases whose retrieved examples held the taught
    question); ``latency_before_s`` / ``_after_s`` (means); ``taught`` (pairs approved); ``reused_after`` (share
    of paraphrases answered with the approved SQL itself); the same EX figures for the ``contrasts`` (near
    misses) as ``contrast_ex_before`` / ``_after`` / ``contrast_paired``, and ``contrast_reused_after`` (share
    of near misses wrongly given an approved SQL - it should be 0).
    """
    out.mkdir(parents=True, exist_ok=True)
    store = ChromaStore(out / "chroma", get_embedding_function(settings))
    for name in ("before.jsonl", "after.jsonl"):
        (out / name).write_text("")
    before: list[dict[str, Any]] = []
    after: list[dict[str, Any]] = []
    taught = 0
    by_db: dict[str, list[LearningItem]] = {}
    for item in items:
        by_db.setdefault(item.database_url, []).append(item)
    for url, group in by_db.items():
        db_settings = settings.with_database(url).model_copy(update={"state_dir": out / "state"})
        db = Database.from_settings(db_settings)
        examples_path = db_settings.resolved_examples_path()
        index_database(db, store, db_settings, examples=load_examples(examples_path) if examples_path else None,
                       progress=False)
        deps = build_deps(db_settings, llm_overrides=llm_overrides, store=store)
        before += _ask_all(deps, group, db_settings, "before", out / "before.jsonl")
        taught += teach(deps, group)
        after += _ask_all(deps, group, db_settings, "after", out / "after.jsonl")
    c_before, c_after = [r for r in before if r["contrast"]], [r for r in after if r["contrast"]]
    before, after = [r for r in before if not r["contrast"]], [r for r in after if not r["contrast"]]
    ex_b, ex_a = [float(r["ex"]) for r in before], [float(r["ex"]) for r in after]
    n = max(1, len(before))
    cx_b, cx_a = [float(r["ex"]) for r in c_before], [float(r["ex"]) for r in c_after]
    summary: dict[str, Any] = {
        "questions": len(before), "taught": taught,
        "ex_before": round(sum(ex_b) / n, 4), "ex_after": round(sum(ex_a) / n, 4),
        "paired": {k: round(v, 4) for k, v in paired_bootstrap(ex_a, ex_b).items()} if before else {},
        "taught_retrieved_before": round(sum(r["taught_retrieved"] for r in before) / n, 4),
        "taught_retrieved_after": round(sum(r["taught_retrieved"] for r in after) / n, 4),
        "latency_before_s": round(sum(r["latency_s"] for r in before) / n, 2),
        "latency_after_s": round(sum(r["latency_s"] for r in after) / n, 2),
        "reused_after": round(sum(r["reused"] for r in after) / n, 4),
        "contrasts": len(c_before),
        "contrast_ex_before": round(sum(cx_b) / max(1, len(cx_b)), 4),
        "contrast_ex_after": round(sum(cx_a) / max(1, len(cx_a)), 4),
        "contrast_paired": {k: round(v, 4) for k, v in paired_bootstrap(cx_a, cx_b).items()} if cx_b else {},
        "contrast_reused_after": round(sum(r["reused"] for r in c_after) / max(1, len(c_after)), 4),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary
