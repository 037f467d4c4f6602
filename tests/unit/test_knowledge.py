"""Knowledge records: validation, review lifecycle, the file, the matcher, budgets and the generator's block."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from core.settings import PROJECT_ROOT, Settings
from knowledge.files import KnowledgeFileError, dump_knowledge, load_knowledge, save_knowledge
from knowledge.lookup import (
    KnowledgeMatcher,
    cited,
    definitions_block,
    estimate_tokens,
    render_record,
    select_records,
)
from knowledge.records import TYPES, KnowledgeBase, KnowledgeRecord
from retrieval.store import ChromaStore
from tests.unit.test_agent import _ask, _prompt_text


def rec(id_: str, type_: str = "term", **kw: object) -> KnowledgeRecord:
    base: dict[str, object] = {"id": id_, "type": type_, "name": id_.replace("_", " "), "definition": "d",
                               "status": "approved"}
    if type_ == "metric":
        base["sql"] = "x"
    return KnowledgeRecord.model_validate(base | kw)


def test_record_validation() -> None:
    with pytest.raises(ValidationError, match="needs its sql"):
        KnowledgeRecord(id="m", type="metric", name="m", definition="d")
    with pytest.raises(ValidationError, match="needs values"):
        KnowledgeRecord(id="e", type="enum", name="e", definition="d")
    with pytest.raises(ValidationError, match="lower-case slug"):
        KnowledgeRecord(id="Bad Id", type="term", name="t", definition="d")
    with pytest.raises(ValidationError, match="appears twice"):
        KnowledgeBase(records=[rec("a"), rec("a")])
    assert KnowledgeRecord(id="t", type="term", name="t", definition="d").status == "pending"


def test_review_lifecycle_and_file_round_trip(tmp_path: Path) -> None:
    kb = KnowledgeBase(database="shop", records=[rec("vip", status="pending", provenance="mined"), rec("sales")])
    assert [r.id for r in kb.approved()] == ["sales"]
    kb = kb.set_status("vip", "approved").set_status("sales", "rejected")
    assert [r.id for r in kb.approved()] == ["vip"]
    with pytest.raises(KeyError):
        kb.set_status("nope", "approved")
    path = tmp_path / "shop.knowledge.yaml"
    save_knowledge(path, kb)
    loaded = load_knowledge(path)
    assert loaded == kb and "provenance: mined" in path.read_text()
    edited = loaded.upsert(loaded.records[0].model_copy(update={"definition": "edited"}))
    assert [r.id for r in edited.records] == ["vip", "sales"] and edited.records[0].definition == "edited"


def test_invalid_file_gives_a_clear_message_and_missing_file_is_empty(tmp_path: Path) -> None:
    assert load_knowledge(tmp_path / "absent.yaml").records == []
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nrecords:\n  - {id: m, type: metric, name: m, definition: d}\n")
    with pytest.raises(KnowledgeFileError, match=r"bad.yaml: records.0: .*needs its sql"):
        load_knowledge(bad)
    bad.write_text("records: [unclosed\n")
    with pytest.raises(KnowledgeFileError, match="cannot read"):
        load_knowledge(bad)


def test_matcher_finds_synonyms_in_case_plural_and_possessive_variants() -> None:
    records = [rec("market_cap", "metric", name="market cap", synonyms=["market capitalisation"]),
               rec("closing_price", "metric", name="closing price", synonyms=["close"]),
               rec("company", name="company")]
    matcher = KnowledgeMatcher(records)
    ids = lambda q: [m.record_id for m in matcher.match(q)]  # noqa: E731
    assert ids("Top 5 MARKET CAPS") == ["market_cap"]
    assert ids("Apple's market capitalisation?") == ["market_cap"]
    assert set(ids("Companies with the highest closes")) == {"company", "closing_price"}
    assert ids("price at the close, closing") == ["closing_price"]
    assert ids("nothing to see") == []
    partial = matcher.match("the price when closing")  # "closing price" out of order
    assert [(m.record_id, m.exact) for m in partial] == [("closing_price", False)]
    assert KnowledgeMatcher([]).match("anything") == []


def test_budgets_are_respected_and_the_block_is_stable() -> None:
    records = [rec(f"rule_{i}", "rule", name=f"phrase {i}", definition="w " * 40) for i in range(5)]
    records.append(rec("sales", "metric", name="sales", sql="SUM(amount)"))
    matcher = KnowledgeMatcher(records)
    question = "phrase 4 phrase 1 phrase 2 and sales"
    one_rule = estimate_tokens(render_record(records[0]))
    chosen = select_records(records, matcher.match(question), {"rule": 2 * one_rule, "metric": 100})
    assert [r.id for r in chosen] == ["rule_1", "rule_4", "sales"]  # two rules fit; type order, then file order
    assert select_records(records, matcher.match(question), {"rule": 0, "metric": 0}) == []
    block = definitions_block(select_records(records, matcher.match(question)))
    assert block == definitions_block(select_records(records, matcher.match(question)))
    assert block.startswith("Business definitions") and block.index("phrase 1") < block.index("\"sales\"")
    assert definitions_block([]) == ""


def test_cited_names_the_records_the_sql_applies() -> None:
    records = [rec("vip", columns=["customers.tier"]), rec("sales", "metric", name="sales", tables=["orders"]),
               rec("latest", "rule", name="latest")]
    assert cited(records, "SELECT SUM(amount) FROM orders") == ["sales", "latest"]


def test_demo_knowledge_file_is_valid_and_large_enough() -> None:
    kb = load_knowledge(PROJECT_ROOT / "data" / "markets" / "markets.knowledge.yaml")
    assert len(kb.approved()) >= 25 and {r.type for r in kb.records} == set(TYPES)
    chinook = load_knowledge(PROJECT_ROOT / "data" / "chinook" / "Chinook_Sqlite.knowledge.yaml")
    assert len(chinook.approved()) >= 10


def test_generator_sees_approved_definitions_only(shop_settings: Settings, shop_store: ChromaStore) -> None:
    path = shop_settings.resolved_knowledge_path()
    assert path is not None
    kb = KnowledgeBase(records=[
        rec("brazilian", definition="customers.country = 'Brazil'", name="brazilian customers"),
        rec("churn", "metric", name="customers", sql="COUNT(*) FILTER", status="pending"),
    ])
    save_knowledge(path, kb)
    out, models = _ask(shop_settings, shop_store, "How many Brazilian customers are there?", planner={})
    prompt = _prompt_text(models["generator"].prompts[0])
    assert "Business definitions" in prompt and "customers.country = 'Brazil'" in prompt
    assert "COUNT(*) FILTER" not in prompt  # pending records never reach prompts
    knowledge_steps = [s for s in out.plan if s["tool"] == "lookup_knowledge"]
    assert knowledge_steps
    off = shop_settings.model_copy(update={"retrieval": shop_settings.retrieval.model_copy(
        update={"use_knowledge": False})})
    _, models = _ask(off, shop_store, "How many Brazilian customers are there?", planner={})
    assert "Business definitions" not in _prompt_text(models["generator"].prompts[0])
    assert "version: 1" in dump_knowledge(kb)


def test_answer_cites_the_definitions_its_sql_applies(shop_settings: Settings, shop_store: ChromaStore) -> None:
    path = shop_settings.resolved_knowledge_path()
    assert path is not None
    save_knowledge(path, KnowledgeBase(records=[
        rec("brazilian", name="brazilian customers", columns=["customers.country"]),
        rec("big_order", name="customers with big orders", columns=["orders.amount"]),
    ]))
    out, _ = _ask(shop_settings, shop_store, "How many Brazilian customers with big orders?", planner={})
    assert out.definitions == ["brazilian customers"]  # the SQL filters on country, not on order amounts


def test_the_account_names_the_metrics_its_sql_computes(shop_settings: Settings, shop_store: ChromaStore) -> None:
    path = shop_settings.resolved_knowledge_path()
    assert path is not None
    save_knowledge(path, KnowledgeBase(records=[rec("revenue", "metric", sql="SUM(orders.amount)")]))
    sql = {"reasoning": "", "sql": "SELECT SUM(amount) AS total FROM orders WHERE order_date >= '2024-02-01'"}
    out, _ = _ask(shop_settings, shop_store, "What is the revenue since February 2024?", planner={}, sql=sql)
    assert out.account == ["Reads orders.", "Keeps rows where order_date on or after 2024-02-01.",
                           "Shows revenue (sum of amount) as total."]


def test_definitions_written_for_sqlite_are_shown_in_the_database_dialect(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from tools.knowledge import LookupKnowledgeArgs, LookupKnowledgeTool

    path = tmp_path / "shop.knowledge.yaml"
    path.write_text(
        "version: 1\ndatabase: shop\ndialect: sqlite\nrecords:\n"
        "  - id: order_month\n    type: rule\n    name: order month\n    synonyms: [month of the order]\n"
        "    definition: The month of an order is the first seven characters of its date.\n"
        "    sql: \"SUBSTR(orders.order_date, 1, 7)\"\n    status: approved\n    provenance: human\n")
    settings = Settings(knowledge_path=path)
    for dialect, expected in (("postgres", "SQL: SUBSTRING(CAST(orders.order_date AS TEXT) FROM 1 FOR 7)"),
                              ("sqlite", "SQL: SUBSTR(orders.order_date, 1, 7)")):
        ctx = SimpleNamespace(settings=settings, db=SimpleNamespace(dialect=dialect))
        res = LookupKnowledgeTool().run(LookupKnowledgeArgs(question="Orders per month of the order"), ctx)  # type: ignore[arg-type]
        assert expected in res.text
