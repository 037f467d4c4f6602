"""The onboarding review queue: the documented score, its order, bulk review at the sources, the usage counts."""

from __future__ import annotations

from pathlib import Path

import yaml

from core.settings import Settings
from database.descriptions import load_enriched
from knowledge.files import load_knowledge, save_knowledge
from knowledge.records import KnowledgeBase, KnowledgeRecord
from records.review import review_drafts
from retrieval.onboarding import current_queue, review_queue, run_onboarding, value
from retrieval.onboarding.queue import usage_weights
from retrieval.onboarding.usage import references, schema_of
from tests.unit.onboarding_fixtures import LOG, bare, make_job  # noqa: F401 (fixture)

WEIGHTS = {"columns": {"T.A": [2, 1, 1], "T.B": [0, 0, 1], "U.C": [0, 3, 0]},
           "tables": {"T": [4, 1, 2], "U": [0, 3, 0]}}


def _files(tmp_path: Path) -> tuple[Path, Path]:
    kpath, epath = tmp_path / "k.yaml", tmp_path / "e.yaml"
    save_knowledge(kpath, KnowledgeBase(records=[
        KnowledgeRecord(id="m_ab", type="metric", name="ab", definition="d", sql="SUM(T.A * T.B)"),
        KnowledgeRecord(id="syn_b", type="synonym", name="T.B", synonyms=["bee"], definition="d", columns=["T.B"]),
        KnowledgeRecord(id="term_u", type="term", name="u", definition="about U", tables=["U"]),
        KnowledgeRecord(id="done", type="term", name="x", definition="d", columns=["T.A"], status="approved"),
    ]))
    epath.write_text(yaml.safe_dump({"version": 1, "tables": {
        "T": {"description": {"text": "T text", "status": "pending"},
              "columns": {"A": {"text": "A text", "status": "pending"}, "B": {"text": "B", "status": "approved"}}},
        "U": {"columns": {"C": {"text": "C text", "status": "pending"}}}}}))
    return kpath, epath


def test_value_is_three_w_plus_two_e_plus_j_plus_one() -> None:
    assert value([2, 1, 1]) == 10 and value([0, 0, 0]) == 1 and value(None) == 1 and value([0, 3, 0]) == 7


def test_queue_scores_and_orders_every_pending_draft(tmp_path: Path) -> None:
    kpath, epath = _files(tmp_path)
    queue = review_queue(WEIGHTS, knowledge_path=kpath, enriched_path=epath)
    assert [(i.key, i.score) for i in queue] == [
        ("table:T", 34.0),          # 3*4 + 2*1 + 2 + 1, twice: the name "T" says nothing
        ("column:T.A", 20.0),       # 10, twice
        ("column:U.C", 14.0),
        ("record:m_ab", 12.0),      # T.A (10) + T.B (2)
        ("record:term_u", 7.0),     # no column: its table U
        ("record:syn_b", 2.0),
    ]  # the approved record and the approved description are not in it
    assert queue[3].touches == ["T.A", "T.B"] and queue[0].kind == "description"
    assert review_queue(WEIGHTS, knowledge_path=tmp_path / "none.yaml", enriched_path=None) == []


def test_bulk_review_writes_to_the_sources(tmp_path: Path) -> None:
    kpath, epath = _files(tmp_path)
    queue = review_queue(WEIGHTS, knowledge_path=kpath, enriched_path=epath)
    assert review_drafts([queue[0], queue[1], queue[3]], "approved", knowledge_path=kpath, enriched_path=epath) == 3
    assert review_drafts(queue[2:3], "rejected", knowledge_path=kpath, enriched_path=epath) == 1
    kb, enriched = load_knowledge(kpath), load_enriched(epath)["tables"]
    assert kb.get("m_ab").status == "approved" and kb.get("syn_b").status == "pending"  # type: ignore[union-attr]
    assert enriched["T"]["description"]["status"] == "approved" and enriched["T"]["columns"]["A"]["status"] == "approved"
    assert enriched["U"]["columns"]["C"]["status"] == "rejected"
    assert [i.key for i in review_queue(WEIGHTS, knowledge_path=kpath, enriched_path=epath)] == [
        "record:term_u", "record:syn_b"]


def test_references_resolve_aliases_and_unqualified_columns() -> None:
    schema = schema_of({"ORD_TXN": ["ORD_ID", "CUST_ID", "AMT"], "CUST_MSTR": ["CUST_ID", "CUST_NM"]})
    tables, columns = references(LOG[0], "sqlite", schema)
    assert tables == {"ORD_TXN", "CUST_MSTR"}
    assert columns == {"CUST_MSTR.CUST_NM", "ORD_TXN.AMT", "CUST_MSTR.CUST_ID", "ORD_TXN.CUST_ID"}
    assert references("SELECT AMT FROM ord_txn", "sqlite", schema) == ({"ORD_TXN"}, {"ORD_TXN.AMT"})
    assert references("SELECT CUST_ID FROM ORD_TXN, CUST_MSTR", "sqlite", schema)[1] == set()  # ambiguous
    assert references("NOT SQL (", "sqlite", schema) == (set(), set())


def test_the_log_and_examples_move_their_columns_up(bare: Settings) -> None:  # noqa: F811
    examples = [{"question": "q", "sql": "SELECT SEG FROM CUST_MSTR WHERE SEG = 'CORP'"}]
    job = make_job(bare, log=LOG, examples=examples)
    report = run_onboarding(job)
    first, second = report.queue[:2]  # the join every joined statement of the log uses, then the orders table
    assert (first.key, first.score) == ("record:mined_join_cust_mstr_cust_id_ord_txn_cust_id", 16.0)
    assert first.also == ["join:ORD_TXN.CUST_ID"]  # the candidate join the record states is decided with it
    assert "join:ORD_TXN.CUST_ID" not in {i.key for i in report.queue} and "join:CUST_MSTR.CTRY_CD" in {
        i.key for i in report.queue}
    assert second.score == value([4, 0, 1]) == 14  # ties are ordered by key
    assert [i.key for i in report.queue if i.score == 14] == ["record:onb.syn.ord_txn", "table:ORD_TXN"]
    weights = usage_weights({"tables": {}, "joins": []}, {}, [], "sqlite")
    assert weights == {"columns": {}, "tables": {}}
    scores = {i.key: i.score for i in current_queue(job)}
    assert scores["column:ORD_TXN.AMT"] == value([4, 0, 0]) == 13
    assert scores["column:CUST_MSTR.SEG"] == value([0, 1, 0]) == 3
    assert scores["column:ORD_TXN.CUST_ID"] == value([2, 0, 1]) == 8  # two log joins, one found join


def test_descriptions_of_names_that_say_nothing_come_first(tmp_path: Path) -> None:
    weights = {"columns": {"CUST.CUST_NM": [0, 1, 0], "CUST.c7": [0, 1, 0]}, "tables": {"CUST": [0, 0, 0]}}
    epath = tmp_path / "e.yaml"
    epath.write_text(yaml.safe_dump({"version": 1, "tables": {"CUST": {"columns": {
        "CUST_NM": {"text": "Customer name", "status": "pending"},
        "c7": {"text": "Probably an amount", "status": "pending"}}}}}))
    queue = review_queue(weights, knowledge_path=None, enriched_path=epath)
    assert [(i.key, i.score) for i in queue] == [("column:CUST.c7", 6.0), ("column:CUST.CUST_NM", 3.0)]


def test_approving_a_logged_join_approves_the_candidate_join_it_states(bare: Settings) -> None:  # noqa: F811
    job = make_job(bare, log=LOG)
    first = run_onboarding(job).queue[0]
    assert review_drafts([first], "approved", knowledge_path=job.knowledge_path, enriched_path=job.enriched_path) == 1
    refs = load_enriched(job.enriched_path)["tables"]["ORD_TXN"]["references"]
    assert refs["CUST_ID"]["status"] == "approved" and refs["CUST_ID"]["target"] == "CUST_MSTR.CUST_ID"
    assert "join:ORD_TXN.CUST_ID" not in {i.key for i in current_queue(job)}
