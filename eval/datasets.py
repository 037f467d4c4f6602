"""Evaluation datasets as :class:`EvalItem` lists.

Sources: Spider-format folders, the demo gold set, and CSV/JSONL files of question, gold SQL (one or several
acceptable) and database URL.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from core.settings import DATA_DIR, DEMO_DB_PATH


@dataclass
class EvalItem:
    """One question with its gold SQL and the SQLAlchemy URL of its database.

    ``gold_sql`` is the reference query; ``alternatives`` are further acceptable queries (a prediction is
    correct when it matches any of them).
    """

    qid: str
    question: str
    gold_sql: str
    database_url: str
    db_id: str
    category: str = ""
    alternatives: list[str] = field(default_factory=list)
    expect: str = "answer"
    """The expected kind of reply: answer, clarify, follow_up or refuse (boundary sets); only answerable
    questions need a gold SQL."""

    @property
    def gold_sqls(self) -> list[str]:
        """The reference query first, then the alternatives."""
        return [self.gold_sql, *self.alternatives]


KINDS = ("answer", "clarify", "follow_up", "refuse")
"""The kinds of reply a boundary question may expect (see ``agent.outcome.Outcome.kind``)."""


def load_spider(path: Path, split: str = "dev") -> list[EvalItem]:
    """Read ``<split>.json`` under ``path`` (objects with ``db_id``, ``question``, ``query``).

    Databases are at ``database/<db_id>/<db_id>.sqlite``. The hardness-free Spider file has no categories;
    ``db_id`` is used.

    Raises:
        FileNotFoundError: the questions file is missing.
    """
    questions = json.loads((path / f"{split}.json").read_text())
    items = []
    for i, q in enumerate(questions):
        db_file = (path / "database" / q["db_id"] / f"{q['db_id']}.sqlite").resolve()
        items.append(EvalItem(f"spider-{i}", q["question"], q["query"], f"sqlite:///{db_file}", q["db_id"],
                              category=q.get("hardness", "")))
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


def _database_url(raw: str, base: Path) -> str:
    """A SQLAlchemy URL; a bare path or a relative ``sqlite:///`` path is resolved against ``base``."""
    text = raw.strip()
    if "://" not in text:
        return f"sqlite:///{(base / text).resolve()}"
    if text.startswith("sqlite:///") and not text.startswith("sqlite:////"):
        return f"sqlite:///{(base / text.removeprefix('sqlite:///')).resolve()}"
    return text


def _gold_list(record: dict[str, Any]) -> list[str]:
    """Gold queries of one record: ``gold_sql`` (a string or a list) and any ``gold_sql_*`` columns."""
    out: list[str] = []
    for key in sorted(k for k in record if str(k).startswith("gold_sql")):
        value = record[key]
        values = value if isinstance(value, list) else [value]
        out += [str(v).strip() for v in values if v is not None and str(v).strip() and str(v) != "nan"]
    return out


def load_table(path: Path) -> list[EvalItem]:
    """A CSV or JSONL file with columns ``question``, ``gold_sql`` and ``database_url``.

    ``gold_sql``: in JSONL a string or a list of acceptable queries; in CSV further ones go in ``gold_sql_2``,
    ``gold_sql_3``, ... ``database_url``: a SQLAlchemy URL or a SQLite path relative to the file. Optional
    columns: ``id``, ``category``, ``db_id``, ``expect`` (answer, clarify, follow_up or refuse; default
    answer; a question not expected to be answered needs no gold SQL).

    Raises:
        ValueError: unknown extension, or a record without question, gold SQL or database URL (the message
            names the record).
    """
    path = Path(path)
    if path.suffix.lower() == ".csv":
        records = pd.read_csv(path, dtype=str, keep_default_na=False).to_dict("records")
    elif path.suffix.lower() in (".jsonl", ".json"):
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    else:
        raise ValueError(f"{path}: expected a .csv or .jsonl file")
    items = []
    for i, rec in enumerate(records, start=1):
        golds = _gold_list(rec)
        question, url = str(rec.get("question") or "").strip(), str(rec.get("database_url") or "").strip()
        expect = str(rec.get("expect") or "answer").strip()
        if expect not in KINDS:
            raise ValueError(f"{path}: record {i}: expect must be one of {', '.join(KINDS)}")
        if not question or not url or (not golds and expect == "answer"):
            raise ValueError(f"{path}: record {i} needs question, gold_sql and database_url")
        db_url = _database_url(url, path.parent)
        db_id = str(rec.get("db_id") or Path(db_url.split("///")[-1]).stem)
        items.append(EvalItem(str(rec.get("id") or f"{path.stem}-{i}"), question, golds[0] if golds else "",
                              db_url, db_id, str(rec.get("category") or expect), golds[1:], expect))
    return items


def select(items: list[EvalItem], *, limit: int | None = None, sample: int | None = None,
           seed: int = 0) -> list[EvalItem]:
    """A reproducible subset: ``sample`` random items (fixed ``seed``, original order kept), then ``limit``."""
    if sample is not None and sample < len(items):
        keep = set(random.Random(seed).sample(range(len(items)), sample))
        items = [it for i, it in enumerate(items) if i in keep]
    return items[:limit] if limit is not None else items
