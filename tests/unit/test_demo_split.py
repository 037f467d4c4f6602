"""The fixed dev/test split of the demo gold set: eval.demo_split, load_demo(split=...), nl2sql eval --split."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from cli.main import build_parser
from eval import demo_split
from eval.datasets import load_demo
from eval.demo_split import compute_split, gold_rows, read_split, split_of_gold, write_split
from eval.runner import EvalRequest, load_dataset


def test_the_stored_split_is_the_one_the_function_computes() -> None:
    assert demo_split.split_path() == demo_split.GOLD_PATH.with_name("gold_split.json")
    assert read_split() == split_of_gold(), "gold set changed: run python -m eval.demo_split and commit the file"


def test_the_split_halves_every_category() -> None:
    stored = read_split()
    rows = gold_rows()
    assert set(stored) == {str(r["id"]) for r in rows}
    per = Counter((str(r["category"]), stored[str(r["id"])]) for r in rows)
    for category in {str(r["category"]) for r in rows}:
        dev, test = per[(category, "dev")], per[(category, "test")]
        assert dev + test >= 2 and dev - test in (0, 1), category


def test_compute_split_is_stratified_seeded_and_order_free() -> None:
    pairs = [(f"q{i:02d}", "a" if i < 5 else "b") for i in range(12)]
    split = compute_split(pairs)
    assert Counter(split.values()) == Counter({"dev": 3 + 4, "test": 2 + 3})  # ceil(5/2) + ceil(7/2) dev
    assert compute_split(reversed(pairs)) == split
    assert compute_split(pairs, seed=1) != split or compute_split(pairs, seed=2) != split
    with pytest.raises(ValueError, match="twice"):
        compute_split([("x", "a"), ("x", "b")])


def test_load_demo_keeps_qids_and_splits_the_gold_set() -> None:
    everything = load_demo()
    dev, test = load_demo(split="dev"), load_demo(split="test")
    assert [it.qid for it in load_demo(split="all")] == [it.qid for it in everything]
    assert sorted(it.qid for it in dev + test) == sorted(it.qid for it in everything)
    assert not {it.qid for it in dev} & {it.qid for it in test}
    assert all(it.qid.startswith("m") for it in test)
    assert [it.qid for it in load_dataset("demo", None, "test")] == [it.qid for it in test]
    with pytest.raises(ValueError, match="split"):
        load_demo(split="train")  # type: ignore[arg-type]


def test_a_copied_gold_file_needs_its_split(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    rows = [{"id": f"g{i}", "question": f"Q{i}?", "sql": "SELECT 1", "category": "c"} for i in range(4)]
    gold.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert len(load_demo(gold)) == 4
    with pytest.raises(FileNotFoundError):
        load_demo(gold, "dev")
    write_split(gold)
    assert [it.qid for it in load_demo(gold, "dev")] == [q for q, s in read_split(gold).items() if s == "dev"]
    gold.write_text(gold.read_text() + json.dumps({**rows[0], "id": "g9"}) + "\n")
    with pytest.raises(ValueError, match="g9"):
        load_demo(gold, "test")


def test_the_cli_and_the_request_take_a_split() -> None:
    args = build_parser().parse_args(["eval", "--dataset", "demo", "--split", "test"])
    assert args.split == "test"
    assert build_parser().parse_args(["eval"]).split == "all"
    assert EvalRequest().split == "all" and EvalRequest(split="dev").split == "dev"
    with pytest.raises(ValueError, match="demo only"):
        load_dataset("spider", "somewhere", "test")
