"""Few-shot examples for an evaluation that never leak.

They come from a split disjoint from the questions being evaluated.

Per database: its examples file when it has one (the demo's ``markets.examples.jsonl``), otherwise the
dataset's own questions that are not being evaluated (e.g. the rest of Spider dev for that ``db_id``). Either
way every example whose normalized question or normalized SQL equals one of an evaluated question is removed.
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

from eval.datasets import EvalItem
from retrieval.examples_store import load_examples_file, normalize_question, normalize_sql


def example_split(all_items: list[EvalItem], evaluated: list[EvalItem], *,
                  files: dict[str, Path | None] | None = None, per_db: int = 40,
                  seed: int = 0) -> dict[str, list[dict[str, str]]]:
    """Examples by ``db_id`` for the databases of ``evaluated``: ``{"question", "sql", "source"}`` dicts.

    Args:
        all_items: the whole dataset (the pool of the disjoint split).
        evaluated: the questions being evaluated (never used as examples).
        files: an examples file per ``db_id`` (None or missing: use the dataset split).
        per_db: at most this many examples per database (a seeded random choice).
        seed: random seed of that choice.
    """
    files = files or {}
    eval_ids = {it.qid for it in evaluated}
    eval_questions = {normalize_question(it.question) for it in evaluated}
    eval_sql = {normalize_sql(sql) for it in evaluated for sql in it.gold_sqls}

    def leaks(question: str, sql: str) -> bool:
        return normalize_question(question) in eval_questions or normalize_sql(sql) in eval_sql

    pool: dict[str, list[dict[str, str]]] = defaultdict(list)
    for db_id in sorted({it.db_id for it in evaluated}):
        path = files.get(db_id)
        if path is not None and Path(path).exists():
            pool[db_id] = [{"question": e.question, "sql": e.sql, "source": e.source or "file",
                            "status": e.status or "approved"}
                           for e in load_examples_file(Path(path)) if not leaks(e.question, e.sql)]
        else:
            pool[db_id] = [{"question": it.question, "sql": it.gold_sql, "source": "split"}
                           for it in all_items if it.db_id == db_id and it.qid not in eval_ids
                           and not leaks(it.question, it.gold_sql)]
    rng = random.Random(seed)
    out = {}
    for db_id, examples in pool.items():
        chosen = examples if len(examples) <= per_db else rng.sample(examples, per_db)
        out[db_id] = chosen
    return out
