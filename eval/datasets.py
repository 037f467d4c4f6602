"""Evaluation datasets as :class:`EvalItem` lists.

Sources: Spider-format folders, the demo gold set, and CSV/JSONL files of question, gold SQL (one or several
acceptable) and database URL.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from core.settings import DATA_DIR, DEMO_DB_PATH
from eval.demo_split import SPLITS, read_split, split_path


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
    ``db_id`` is used. The qid is ``spider-<n>`` with ``n`` the question's ``source_index`` when it has one (a
    derived copy such as :mod:`eval.abbreviate`'s keeps the position in its source file), else its position,
    so runs on a copy pair with runs on the source.

    Raises:
        FileNotFoundError: the questions file is missing.
    """
    questions = json.loads((path / f"{split}.json").read_text())
    databases = path / "database"
    if databases.is_file():  # a copied link: the file holds the folder's relative path (spider-wide-syn)
        databases = path / databases.read_text().strip()
    items = []
    for i, q in enumerate(questions):
        db_file = (databases / q["db_id"] / f"{q['db_id']}.sqlite").resolve()
        qid = f"spider-{q.get('source_index', i)}"
        items.append(EvalItem(qid, q["question"], q["query"], f"sqlite:///{db_file}", q["db_id"],
                              category=q.get("hardness", "")))
    return items


def load_demo(path: Path | None = None, split: Literal["all", "dev", "test"] = "all") -> list[EvalItem]:
    """The demo gold set (``data/markets/gold.jsonl``) against the demo database.

    Args:
        path: the gold file (default: the bundled one).
        split: ``all`` questions, or those of the fixed ``dev`` or ``test`` half stored next to the gold file
            (``gold_split.json``, :mod:`eval.demo_split`). Qids are the gold ids whatever the split, so runs
            on a split pair with runs on the whole set.

    Raises:
        ValueError: an unknown split, or a gold id the split file does not place.
        FileNotFoundError: ``dev``/``test`` asked and no split file next to the gold file.
    """
    path = path or DATA_DIR / "markets" / "gold.jsonl"
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    items = []
    for line in path.read_text().splitlines():
        if line.strip():
            q = json.loads(line)
            items.append(EvalItem(q["id"], q["question"], q["sql"], f"sqlite:///{DEMO_DB_PATH}", "markets",
                                  q.get("category", "")))
    if split == "all":
        return items
    stored = read_split(path)
    unplaced = [it.qid for it in items if it.qid not in stored]
    if unplaced:
        raise ValueError(f"{split_path(path)} does not place {', '.join(unplaced)}: run python -m eval.demo_split")
    return [it for it in items if stored[it.qid] == split]


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
           seed: int = 0, per_db: int | None = None) -> list[EvalItem]:
    """A reproducible subset, original order kept: ``per_db``, then ``sample``, then ``limit``.

    Args:
        items: the whole dataset.
        limit: keep the first N items (last step).
        sample: keep N random items (``random.Random(seed)``).
        seed: seed of ``sample`` and ``per_db``.
        per_db: keep at most N items per ``db_id`` (first step). Each item gets the key
            ``random.Random(f"{seed}:{qid}").random()`` and the N smallest keys of each database are kept, so the
            choice of a database depends neither on the other databases nor on its other items: two datasets
            with the same qids (the same questions in another wording, or a copy keeping ``source_index``)
            give the same choice, and removing an unchosen item changes nothing.

    Returns:
        The kept items (a new list).
    """
    if per_db is not None:
        by_db: dict[str, list[EvalItem]] = {}
        for it in items:
            by_db.setdefault(it.db_id, []).append(it)
        keep_ids = {id(it) for group in by_db.values()
                    for it in sorted(group, key=lambda it: random.Random(f"{seed}:{it.qid}").random())[:per_db]}
        items = [it for it in items if id(it) in keep_ids]
    if sample is not None and sample < len(items):
        keep = set(random.Random(seed).sample(range(len(items)), sample))
        items = [it for i, it in enumerate(items) if i in keep]
    return items[:limit] if limit is not None else items
