"""Candidate joins drafted for review: written pending, never overwritten, used only as reviewed."""

from __future__ import annotations

from pathlib import Path

import pytest

from database.descriptions import dump_enriched, load_enriched, merge_enriched, rejected_references
from database.schema_types import ColumnInfo, ForeignKey, TableInfo
from records.review import review_drafts, review_reference
from retrieval.onboarding import review_queue
from retrieval.onboarding.join_drafts import add_join_drafts
from retrieval.onboarding.joins import best_joins

JOINS = [
    {"child": "ORD.CUST_ID", "parent": "CUST.CUST_ID", "declared": False, "containment": 1.0,
     "evidence": "name+values"},
    {"child": "ORD.CUST_ID", "parent": "VIP.CUST_ID", "declared": False, "containment": 1.0, "evidence": "values"},
    {"child": "ORD.SHIP_CITY", "parent": "CITY.NM", "declared": False, "containment": 0.96, "evidence": "values"},
    {"child": "ORD.SHIP_CITY", "parent": "CUST.CITY", "declared": False, "containment": 0.99, "evidence": "values"},
    {"child": "PAY.ORD_ID", "parent": "ORD.ORD_ID", "declared": True, "containment": None, "evidence": "foreign key"},
]


def _tables() -> list[TableInfo]:
    def cols(*names: str) -> list[ColumnInfo]:
        return [ColumnInfo(name=n, type="INTEGER" if n.endswith("ID") else "TEXT") for n in names]

    return [TableInfo("CUST", cols("CUST_ID", "CITY"), primary_key=["CUST_ID"]),
            TableInfo("ORD", cols("ORD_ID", "CUST_ID", "SHIP_CITY"), primary_key=["ORD_ID"]),
            TableInfo("PAY", cols("PAY_ID", "ORD_ID"), primary_key=["PAY_ID"],
                      foreign_keys=[ForeignKey(["ORD_ID"], "ORD", ["ORD_ID"])])]


def test_one_join_per_column_the_name_first_then_the_containment() -> None:
    best = best_joins(JOINS)
    assert {k: v["parent"] for k, v in best.items()} == {("ORD", "CUST_ID"): "CUST.CUST_ID",
                                                         ("ORD", "SHIP_CITY"): "CUST.CITY"}  # declared ones left out


def test_drafts_are_pending_round_trip_and_never_overwrite_a_decision(tmp_path: Path) -> None:
    path = tmp_path / "shop.enriched.yaml"
    assert add_join_drafts(path, JOINS, today="2026-12-07") == ["ORD.CUST_ID", "ORD.SHIP_CITY"]
    refs = load_enriched(path)["tables"]["ORD"]["references"]
    assert refs["CUST_ID"] == {"target": "CUST.CUST_ID", "status": "pending", "generated": "2026-12-07",
                               "evidence": "name and values: 100% of its distinct values found in CUST.CUST_ID"}
    assert refs["SHIP_CITY"]["evidence"].startswith("values only: 99%")
    assert dump_enriched(load_enriched(path)) == path.read_text()  # a stable round trip
    review_reference(path, "ORD", "SHIP_CITY", "rejected")
    moved = [{**JOINS[0], "parent": "CUSTOMER.ID"}, {**JOINS[2]}, {"child": "PAY.AMT", "parent": "X.AMT",
                                                                    "declared": False, "containment": 1.0,
                                                                    "evidence": "values"}]
    assert add_join_drafts(path, moved) == ["PAY.AMT"]  # a rerun adds only new columns
    refs = load_enriched(path)["tables"]["ORD"]["references"]
    assert refs["CUST_ID"]["target"] == "CUST.CUST_ID" and refs["SHIP_CITY"]["status"] == "rejected"
    assert rejected_references(path) == {("ord", "ship_city")} and rejected_references(None) == frozenset()
    with pytest.raises(KeyError):
        review_reference(path, "ORD", "NOPE", "approved")
    with pytest.raises(ValueError, match="unknown review status"):
        review_reference(path, "ORD", "CUST_ID", "edited")


def test_only_reviewed_joins_become_foreign_keys(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text("version: 1\ntables:\n  ORD:\n    references:\n"
                    "      CUST_ID: {target: CUST.CUST_ID, status: pending}\n"
                    "      SHIP_CITY: {target: CUST.CITY, status: rejected}\n"
                    "  PAY:\n    references:\n      ORD_ID: CUST.CUST_ID\n", encoding="utf-8")
    enriched = load_enriched(path)
    assert enriched["tables"]["PAY"]["references"]["ORD_ID"]["status"] == "approved"  # a bare target: a person's
    tables = _tables()
    merge_enriched(tables, enriched)
    assert [fk.columns for fk in tables[1].foreign_keys] == []  # pending: not used without opting into drafts
    assert tables[2].foreign_keys == [ForeignKey(["ORD_ID"], "ORD", ["ORD_ID"])]  # the declared key wins
    drafted = _tables()
    merge_enriched(drafted, enriched, use_drafts=True)
    assert drafted[1].foreign_keys == [ForeignKey(["CUST_ID"], "CUST", ["CUST_ID"], origin="inferred")]
    review_reference(path, "ORD", "CUST_ID", "approved")
    approved = _tables()
    merge_enriched(approved, load_enriched(path))
    assert approved[1].foreign_keys == [ForeignKey(["CUST_ID"], "CUST", ["CUST_ID"], origin="reviewed")]


def test_candidate_joins_are_queued_and_reviewed_in_bulk(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    add_join_drafts(path, JOINS)
    weights = {"columns": {"ORD.CUST_ID": [2, 0, 2], "CUST.CUST_ID": [0, 0, 1], "ORD.SHIP_CITY": [0, 0, 2],
                           "CUST.CITY": [0, 0, 1]}, "tables": {}}
    queue = review_queue(weights, knowledge_path=None, enriched_path=path)
    assert [(i.key, i.score, i.title) for i in queue] == [
        ("join:ORD.CUST_ID", 11.0, "join ORD.CUST_ID -> CUST.CUST_ID"),  # 3*2 + 2 + 1, plus 1 + 1
        ("join:ORD.SHIP_CITY", 5.0, "join ORD.SHIP_CITY -> CUST.CITY")]
    assert review_drafts(queue[:1], "approved", knowledge_path=None, enriched_path=path) == 1
    assert review_drafts(queue[1:], "rejected", knowledge_path=None, enriched_path=path) == 1
    refs = load_enriched(path)["tables"]["ORD"]["references"]
    assert (refs["CUST_ID"]["status"], refs["SHIP_CITY"]["status"]) == ("approved", "rejected")
    assert review_queue(weights, knowledge_path=None, enriched_path=path) == []
