"""Workload mining: hints from a small query log, pending proposals, and the ``nl2sql knowledge`` command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from cli.knowledge import read_log, run_knowledge
from core.settings import Settings
from knowledge.files import load_knowledge
from knowledge.mining import mine_workload, propose_records
from knowledge.records import KnowledgeBase

LOG = [
    "SELECT SUM(o.amount) FROM orders AS o JOIN customers AS c ON c.id = o.customer_id WHERE c.country = 'Brazil'",
    "SELECT c.name, SUM(o.amount) FROM customers c, orders o WHERE o.customer_id = c.id GROUP BY c.name",
    "SELECT country, COUNT(*) FROM customers WHERE country = 'Brazil' GROUP BY country",
    "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE amount > 15)",
    "NOT SQL AT ALL (",
]


def test_mined_hints_resolve_aliases_and_count() -> None:
    hints = mine_workload(LOG)
    assert hints.queries == 5 and hints.unparsed == 1
    assert hints.joins == {"customers.id = orders.customer_id": 2}
    assert hints.filters["customers.country = 'Brazil'"] == 2 and hints.filters["orders.amount > 15"] == 1
    assert hints.group_bys == {"customers.name": 1, "customers.country": 1}
    assert hints.aggregates["SUM(orders.amount)"] == 2
    assert "customers.id = orders.customer_id  (2x)" in hints.document()


def test_proposals_are_pending_mined_and_never_repeated() -> None:
    hints = mine_workload(LOG)
    proposed = propose_records(hints, KnowledgeBase(), min_count=2)
    assert {(r.type, r.sql) for r in proposed} == {
        ("metric", "SUM(orders.amount)"), ("term", "customers.country = 'Brazil'"),
        ("rule", "customers.id = orders.customer_id")}
    assert all(r.status == "pending" and r.provenance == "mined" for r in proposed)
    kb = KnowledgeBase(records=proposed)
    assert propose_records(hints, kb, min_count=2) == []


def test_read_log_formats(tmp_path: Path) -> None:
    sql = tmp_path / "log.sql"
    sql.write_text("SELECT 1;\nSELECT a FROM t WHERE b = 'x;y';\n")
    assert read_log(sql, "sqlite") == ["SELECT 1", "SELECT a FROM t WHERE b = 'x;y'"]
    jsonl = tmp_path / "log.jsonl"
    jsonl.write_text(json.dumps({"sql": "SELECT 2"}) + "\n# comment\n")
    assert read_log(jsonl, "sqlite") == ["SELECT 2"]
    jsonl.write_text("{}\n")
    with pytest.raises(ValueError, match="log.jsonl:1"):
        read_log(jsonl, "sqlite")


def test_cli_mines_then_approves(shop_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.sql"
    log.write_text(";\n".join(LOG[:3]) + ";\n")
    args = argparse.Namespace(knowledge_command="mine", log=str(log), min_count=2, top=15, database=None)
    assert run_knowledge(args, shop_settings) == 0
    path = shop_settings.resolved_knowledge_path()
    assert path is not None
    kb = load_knowledge(path)
    assert kb.records and not kb.approved()
    first = kb.records[0].id
    run_knowledge(argparse.Namespace(knowledge_command="approve", ids=[first], database=None), shop_settings)
    assert [r.id for r in load_knowledge(path).approved()] == [first]
    with pytest.raises(ValueError, match="no knowledge record 'nope'"):
        run_knowledge(argparse.Namespace(knowledge_command="reject", ids=["nope"], database=None), shop_settings)
    assert run_knowledge(args, shop_settings) == 1  # nothing new the second time
    assert "pending record(s) proposed" in capsys.readouterr().out


def test_llm_proposals_are_checked_and_kept_pending(shop_settings: Settings) -> None:
    from core.llm import LLMProvider, UsageLog
    from database.connection import Database
    from retrieval.knowledge_proposal import propose_knowledge
    from tests.support.scripted_model import ScriptedChatModel

    reply = {"records": [
        {"type": "metric", "name": "revenue", "synonyms": ["sales"], "definition": "Money from orders.",
         "sql": "SUM(orders.amount)", "tables": ["orders"]},
        {"type": "metric", "name": "margin", "definition": "x", "sql": "SUM(x)", "tables": ["invoices"]},
        {"type": "rule", "name": "latest", "definition": "x", "sql": "SELECT (", "tables": []},
    ]}
    llms = LLMProvider(shop_settings, overrides={"generator": ScriptedChatModel(replies=[reply])})
    kb, report = propose_knowledge(Database.from_settings(shop_settings), llms, KnowledgeBase(), examples=[],
                                   usage=UsageLog())
    assert [(r.id, r.status, r.provenance) for r in kb.records] == [("llm_metric_revenue", "pending", "llm")]
    assert dict(report.rejected) == {"margin": "unknown table(s) invoices", "latest": report.rejected[1][1]}
    assert report.rejected[1][1].startswith("SQL does not parse")


def test_answer_conventions_are_mined_from_what_listing_and_picking_queries_show() -> None:
    log = [
        "SELECT c.id, c.name, o.amount FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.amount > 5",
        "SELECT id, name, country FROM customers WHERE country > 'B'",
        "SELECT id, name FROM customers ORDER BY name",
        "SELECT country FROM customers WHERE id = 3",                                   # one entity: not a listing
        "SELECT order_date, amount FROM orders WHERE order_date = (SELECT MAX(order_date) FROM orders)",
        "SELECT o.order_date, o.amount FROM orders o WHERE o.order_date <= '2024-02-01' "
        "ORDER BY o.order_date DESC LIMIT 1",
        "SELECT amount FROM orders ORDER BY amount DESC LIMIT 1",                       # picks by a non-date
        "SELECT amount FROM orders ORDER BY amount DESC LIMIT 2",
    ]
    hints = mine_workload(log)
    assert hints.shapes.listings["customers"] == 3 and hints.shapes.listed_columns["customers.name"] == 3
    proposed = {r.id: r for r in propose_records(hints, KnowledgeBase(), min_count=2) if r.type == "presentation"}
    assert proposed["mined_identify_customers"].columns == ["customers.id", "customers.name"]
    assert proposed["mined_identify_customers"].convention == "identify"
    assert proposed["mined_picked_date"].columns == ["orders.order_date"]  # amount is picked, but not a date
    assert all(r.status == "pending" and r.provenance == "mined" for r in proposed.values())


def test_a_ranking_convention_is_proposed_when_lists_with_one_figure_are_ordered_by_it() -> None:
    ranked = ["SELECT country, COUNT(*) AS n FROM customers GROUP BY country ORDER BY n DESC, country",
              "SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id ORDER BY SUM(amount) DESC"]
    others = ["SELECT substr(order_date, 1, 7) AS month, SUM(amount) FROM orders GROUP BY month ORDER BY month",
              "SELECT amount * 2 AS doubled FROM orders WHERE id = 1",                # no label, one row
              "SELECT country, COUNT(*) AS n FROM customers GROUP BY country ORDER BY n DESC LIMIT 1"]  # a pick
    hints = mine_workload(ranked + others)
    assert (hints.shapes.ranked_lists, hints.shapes.ranked_desc) == (2, 2)
    proposed = {r.id: r for r in propose_records(hints, KnowledgeBase(), min_count=2)}
    assert proposed["mined_rank_measure"].convention == "rank_measure"
    assert proposed["mined_rank_measure"].status == "pending"
    unordered = mine_workload([*ranked, "SELECT country, COUNT(*) AS n FROM customers GROUP BY country",
                               "SELECT name, id * 2 AS x FROM customers"])
    assert (unordered.shapes.ranked_lists, unordered.shapes.ranked_desc) == (4, 2)
    assert "mined_rank_measure" not in {r.id for r in propose_records(unordered, KnowledgeBase(), min_count=2)}


def test_rank_pick_and_series_conventions_are_mined_and_never_proposed_twice() -> None:
    log = ["SELECT c.name, SUM(o.amount) AS total FROM orders o JOIN customers c ON c.id = o.customer_id "
           "GROUP BY c.name ORDER BY total DESC LIMIT 1",
           "SELECT name, id FROM customers ORDER BY id DESC LIMIT 2",
           "SELECT amount FROM orders ORDER BY order_date DESC LIMIT 1",                 # a date pick: not counted
           "SELECT order_date, amount, SUM(amount) OVER (ORDER BY order_date) AS run FROM orders",
           "SELECT d, amount, ma FROM (SELECT o.order_date AS d, o.amount, AVG(o.amount) OVER "
           "(ORDER BY o.order_date) AS ma FROM orders o)",                               # through a derived table
           "SELECT SUM(amount) OVER (ORDER BY order_date) AS run FROM orders"]           # not shown
    shapes = mine_workload(log).shapes
    assert (shapes.rank_picks, shapes.rank_shown) == (2, 2)
    assert shapes.series["orders.order_date"] == 3 and shapes.series_shown["orders.order_date"] == 1
    proposed = {r.id: r for r in propose_records(mine_workload(log[:4] * 2), KnowledgeBase(), min_count=2)}
    assert proposed["mined_ranked_by"].convention == "ranked_by"
    assert proposed["mined_series"].columns == ["orders.order_date"]
    assert "mined_series" not in {r.id for r in propose_records(mine_workload(log), KnowledgeBase(), min_count=2)}
    kb = KnowledgeBase(records=list(proposed.values()))
    assert not {"mined_ranked_by", "mined_series"} & {r.id for r in propose_records(mine_workload(log[:4] * 2), kb)}
