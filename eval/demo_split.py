"""The fixed dev/test split of the demo gold set (``data/markets/gold.jsonl``).

The demo's knowledge file, few-shot examples and presentation conventions may be written from ``dev`` questions
only; ``test`` questions measure the assistant on wording nobody tuned for (``tests/unit/test_demo_leakage.py``
checks that nothing leaks into them). The split is stratified by ``category``: per category the ids are sorted,
shuffled with ``random.Random(SEED)``, and the first half (rounded up) is ``dev``, the rest ``test``.

It is stored as data, ``data/markets/gold_split.json`` (id -> split), and regenerated with
``python -m eval.demo_split`` after the gold set changes (a unit test checks the stored file is what this module
computes).
"""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from core.settings import DATA_DIR

Split = Literal["dev", "test"]
SPLITS: tuple[str, ...] = ("all", "dev", "test")
"""The values of ``--split``: ``all`` is the whole gold set."""
SEED = 2026
"""Seed of the per-category shuffle."""
GOLD_PATH = DATA_DIR / "markets" / "gold.jsonl"
SPLIT_FILE = "gold_split.json"
"""Name of the split file, next to the gold set it splits."""


def split_path(gold_path: Path | None = None) -> Path:
    """The split file of ``gold_path`` (default: the demo gold set's)."""
    return Path(gold_path or GOLD_PATH).with_name(SPLIT_FILE)


def compute_split(items: Iterable[tuple[str, str]], seed: int = SEED) -> dict[str, Split]:
    """``{id: "dev" | "test"}`` for ``(id, category)`` pairs, stratified by category (see the module).

    Raises:
        ValueError: an id appears twice.
    """
    by_category: dict[str, list[str]] = defaultdict(list)
    seen: set[str] = set()
    for qid, category in items:
        if qid in seen:
            raise ValueError(f"gold id {qid!r} appears twice")
        seen.add(qid)
        by_category[category].append(qid)
    out: dict[str, Split] = {}
    for category in sorted(by_category):
        ids = sorted(by_category[category])
        random.Random(seed).shuffle(ids)
        half = math.ceil(len(ids) / 2)
        out.update({qid: "dev" for qid in ids[:half]})
        out.update({qid: "test" for qid in ids[half:]})
    return dict(sorted(out.items()))


def gold_rows(gold_path: Path | None = None) -> list[dict[str, object]]:
    """The records of a gold JSONL file."""
    text = Path(gold_path or GOLD_PATH).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def split_of_gold(gold_path: Path | None = None) -> dict[str, Split]:
    """The split :func:`compute_split` gives the gold file ``gold_path``."""
    return compute_split((str(r["id"]), str(r.get("category", ""))) for r in gold_rows(gold_path))


def read_split(gold_path: Path | None = None) -> dict[str, Split]:
    """The stored split of ``gold_path`` (its ``gold_split.json``).

    Raises:
        FileNotFoundError: no split file next to the gold set.
        ValueError: a value other than dev or test.
    """
    path = split_path(gold_path)
    stored = json.loads(path.read_text(encoding="utf-8"))
    bad = sorted(qid for qid, value in stored.items() if value not in ("dev", "test"))
    if bad:
        raise ValueError(f"{path}: split of {', '.join(bad)} must be dev or test")
    return dict(stored)


def write_split(gold_path: Path | None = None) -> Path:
    """Compute the split of ``gold_path`` and store it next to it; returns the split file."""
    path = split_path(gold_path)
    path.write_text(json.dumps(split_of_gold(gold_path), indent=1) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write_split())
