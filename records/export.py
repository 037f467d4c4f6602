"""Export of reviewed feedback and examples as a text-to-SQL training set (JSONL) for later fine-tuning.

One JSON object per line, in the common text-to-SQL layout (Spider/BIRD style ``question``/``query``/``db_id``)
plus provenance: ``{"question", "query", "db_id", "source", "status", "schema_snapshot", "id"}``. Sources are the
feedback store (thumbs-up records; approved ones by default, ``statuses`` widens it) and the examples file of
the database. The schema snapshot is the index snapshot id the answer was produced with (from the stored run),
so a training pair can be matched to the schema it was written against; ``None`` for examples.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from records.feedback import FeedbackStore
from records.runs import RunStore


def training_records(feedback: FeedbackStore, runs: RunStore | None, database: str,
                     examples: Iterable[dict[str, str]] = (), *,
                     statuses: tuple[str, ...] = ("approved",)) -> list[dict[str, Any]]:
    """The training pairs of ``database``: reviewed feedback with SQL (``statuses``) then the examples.

    Pairs are deduplicated on (question, SQL), feedback first.
    """
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()

    def add(record: dict[str, Any]) -> None:
        key = (record["question"].strip().lower(), " ".join(record["query"].split()))
        if record["query"] and key not in seen:
            seen.add(key)
            out.append(record)

    for status in statuses:
        for fb in reversed(feedback.find(status=status, database=database, limit=100_000)):
            run = runs.get_run(fb.run_id) if runs is not None and fb.run_id else None
            add({"question": fb.question, "query": fb.sql or "", "db_id": database, "source": "feedback",
                 "status": fb.status, "schema_snapshot": (run or {}).get("index_snapshot"), "id": f"fb-{fb.id}"})
    for i, ex in enumerate(examples, start=1):
        add({"question": ex["question"], "query": ex["sql"], "db_id": database, "source": ex.get("source") or
             "examples", "status": ex.get("status") or "approved", "schema_snapshot": None,
             "id": ex.get("id") or f"ex-{i}"})
    return out


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    """Write ``records`` one JSON object per line (UTF-8)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
