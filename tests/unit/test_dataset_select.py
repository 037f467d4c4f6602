"""Reproducible subsets of an evaluation dataset: ``select(per_db=...)`` and Spider qids of derived copies."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from eval.datasets import EvalItem, load_spider, select


def items(db_sizes: dict[str, int], wording: str = "") -> list[EvalItem]:
    """Spider-like items: ``spider-<i>`` in file order, databases interleaved as listed."""
    out: list[EvalItem] = []
    for db, n in db_sizes.items():
        out += [EvalItem(f"spider-{len(out) + k}", f"{wording}question {k} on {db}", "SELECT 1",
                         f"sqlite:///{db}.sqlite", db) for k in range(n)]
    return out


def test_per_db_keeps_at_most_n_per_database_in_original_order() -> None:
    data = items({"a": 7, "b": 1, "c": 5})
    chosen = select(data, per_db=2, seed=2026)
    assert Counter(it.db_id for it in chosen) == {"a": 2, "b": 1, "c": 2}
    positions = [data.index(it) for it in chosen]
    assert positions == sorted(positions)


def test_per_db_is_deterministic_and_depends_on_the_seed() -> None:
    data = items({"a": 30, "b": 30})
    first = [it.qid for it in select(data, per_db=3, seed=2026)]
    assert first == [it.qid for it in select(items({"a": 30, "b": 30}), per_db=3, seed=2026)]
    assert any([it.qid for it in select(data, per_db=3, seed=s)] != first for s in range(1, 5))


def test_same_qids_for_two_wordings_and_stable_when_databases_or_questions_change() -> None:
    original, reworded = items({"a": 9, "b": 6}), items({"a": 9, "b": 6}, wording="synonym ")
    ids = [it.qid for it in select(original, per_db=2, seed=7)]
    assert ids == [it.qid for it in select(reworded, per_db=2, seed=7)]
    more = original + [EvalItem(f"spider-{100 + k}", "q", "SELECT 1", "sqlite:///z.sqlite", "z") for k in range(5)]
    assert [it.qid for it in select(more, per_db=2, seed=7) if it.db_id != "z"] == ids
    unchosen = next(it for it in original if it.qid not in ids)
    assert [it.qid for it in select([it for it in original if it is not unchosen], per_db=2, seed=7)] == ids


def test_per_db_applies_before_sample_and_limit() -> None:
    data = items({"a": 10, "b": 10, "c": 10})
    assert len(select(data, per_db=2, sample=4, seed=1)) == 4
    assert len(select(data, per_db=2, limit=3, seed=1)) == 3
    assert {it.qid for it in select(data, per_db=2, sample=4, seed=1)} <= {it.qid for it in select(data, per_db=2, seed=1)}


def test_load_spider_uses_source_index_for_the_qid(tmp_path: Path) -> None:
    (tmp_path / "dev.json").write_text(json.dumps([
        {"db_id": "a", "question": "q0", "query": "SELECT 1"},
        {"db_id": "a", "question": "q1", "query": "SELECT 1", "source_index": 41}]))
    assert [it.qid for it in load_spider(tmp_path)] == ["spider-0", "spider-41"]
