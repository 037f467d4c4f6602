"""Evaluation datasets: Spider-format folders and the demo gold set, as :class:`EvalItem` lists."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from agent.configuration import DATA_DIR, DEMO_DB_PATH


@dataclass
class EvalItem:
    """One question with its gold SQL and the SQLAlchemy URL of its database."""

    qid: str
    question: str
    gold_sql: str
    database_url: str
    db_id: str
    category: str = ""


def load_spider(path: Path) -> list[EvalItem]:
    """Read ``dev.json`` under ``path``; databases at ``database/<db_id>/<db_id>.sqlite``.

    Raises:
        FileNotFoundError: ``dev.json`` is missing.
    """
    questions = json.loads((path / "dev.json").read_text())
    items = []
    for i, q in enumerate(questions):
        db_file = (path / "database" / q["db_id"] / f"{q['db_id']}.sqlite").resolve()
        items.append(EvalItem(f"spider-{i}", q["question"], q["query"], f"sqlite:///{db_file}", q["db_id"]))
    return items


def load_demo(path: Path | None = None) -> list[EvalItem]:
    """The demo gold set (``data/markets/gold.jsonl``) against the demo database."""
    path = path or DATA_DIR / "markets" / "gold.jsonl"
    items = []
    for line in path.read_text().splitlines():
        if line.strip():
            q = json.loads(line)
            items.append(EvalItem(q["id"], q["question"], q["sql"], f"sqlite:///{DEMO_DB_PATH}", "markets",
                                  q.get("category", "")))
    return items


def select(items: list[EvalItem], *, limit: int | None = None, sample: int | None = None,
           seed: int = 0) -> list[EvalItem]:
    """A reproducible subset: ``sample`` random items (fixed ``seed``, original order kept), then ``limit``."""
    if sample is not None and sample < len(items):
        keep = set(random.Random(seed).sample(range(len(items)), sample))
        items = [it for i, it in enumerate(items) if i in keep]
    return items[:limit] if limit is not None else items
