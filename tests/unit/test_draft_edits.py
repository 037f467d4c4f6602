"""Editing one draft of the onboarding queue at its source: the reviewer's text, approved, validated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from database.descriptions import load_enriched
from knowledge.files import load_knowledge, save_knowledge
from knowledge.records import KnowledgeBase, KnowledgeRecord
from records.draft_edits import edit_draft, editable_text
from retrieval.onboarding import QueueItem, review_queue
from retrieval.onboarding.join_drafts import add_join_drafts

JOIN = {"child": "ORD.CUST_ID", "parent": "VIP.CUST_ID", "declared": False, "containment": 1.0, "evidence": "values"}
COLUMNS = ["ORD.CUST_ID", "CUST.CUST_ID", "VIP.CUST_ID", "CUST.NM"]


def _queue(tmp_path: Path) -> tuple[dict[str, QueueItem], Path, Path, Path]:
    kpath, epath, xpath = tmp_path / "k.yaml", tmp_path / "e.yaml", tmp_path / "x.jsonl"
    save_knowledge(kpath, KnowledgeBase(records=[
        KnowledgeRecord(id="m_amt", type="metric", name="revenue", definition="sum of amounts", sql="SUM(ORD.AMT)",
                        provenance="llm", status="pending")]))
    epath.write_text("version: 1\ntables:\n  CUST:\n    columns:\n      NM: {text: Name of the thing, status: pending}\n",
                     encoding="utf-8")
    add_join_drafts(epath, [JOIN])
    xpath.write_text(json.dumps({"id": "log-1", "question": "how much was ordred", "sql": "SELECT SUM(AMT) FROM ORD",
                                 "status": "pending", "source": "log"}) + "\n", encoding="utf-8")
    weights = {"columns": {c: [0, 0, 0] for c in COLUMNS}, "tables": {}}
    items = review_queue(weights, knowledge_path=kpath, enriched_path=epath, examples_path=xpath)
    return {i.kind: i for i in items}, kpath, epath, xpath


def test_each_kind_of_draft_is_edited_at_its_source_and_approved(tmp_path: Path) -> None:
    items, kpath, epath, xpath = _queue(tmp_path)
    paths: dict[str, Any] = {"knowledge_path": kpath, "enriched_path": epath, "examples_path": xpath}
    assert [editable_text(items[k], knowledge_path=kpath) for k in ("record", "description", "join", "example")] == [
        "sum of amounts", "Name of the thing", "VIP.CUST_ID", "how much was ordred"]
    assert edit_draft(items["record"], "  Revenue: the sum of order amounts ", **paths) == (
        "record m_amt saved and approved")
    record = load_knowledge(kpath).get("m_amt")
    assert record is not None and (record.definition, record.status, record.provenance) == (
        "Revenue: the sum of order amounts", "approved", "human")
    edit_draft(items["description"], "The customer's full name", **paths)
    entry = load_enriched(epath)["tables"]["CUST"]["columns"]["NM"]
    assert (entry["text"], entry["status"]) == ("The customer's full name", "edited")
    note = edit_draft(items["join"], "cust.cust_id", **paths, known_columns=COLUMNS)
    ref = load_enriched(epath)["tables"]["ORD"]["references"]["CUST_ID"]
    assert note == "join ORD.CUST_ID -> CUST.CUST_ID approved" and (ref["target"], ref["status"]) == (
        "CUST.CUST_ID", "approved")  # spelled as the database spells it
    edit_draft(items["example"], "How much was ordered in all?", **paths)
    example = json.loads(xpath.read_text(encoding="utf-8"))
    assert (example["question"], example["status"], example["sql"]) == (
        "How much was ordered in all?", "approved", "SELECT SUM(AMT) FROM ORD")
    weights = {"columns": {c: [0, 0, 0] for c in COLUMNS}, "tables": {}}
    assert review_queue(weights, knowledge_path=kpath, enriched_path=epath, examples_path=xpath) == []


def test_a_bad_edit_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    items, kpath, epath, xpath = _queue(tmp_path)
    paths: dict[str, Any] = {"knowledge_path": kpath, "enriched_path": epath, "examples_path": xpath}
    before = epath.read_text(encoding="utf-8"), kpath.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="not a column of the database"):
        edit_draft(items["join"], "CUSTOMERS.ID", **paths, known_columns=COLUMNS)
    with pytest.raises(ValueError, match="empty"):
        edit_draft(items["record"], "   ", **paths)
    with pytest.raises(ValueError, match="cannot be edited here"):
        edit_draft(items["record"], "x", knowledge_path=None, enriched_path=None)
    assert (epath.read_text(encoding="utf-8"), kpath.read_text(encoding="utf-8")) == before
    save_knowledge(kpath, KnowledgeBase(records=[]))
    with pytest.raises(KeyError):
        edit_draft(items["record"], "gone", **paths)
