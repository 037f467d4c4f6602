"""Schema-linking recall (eval/linking.py, scripts/measure_linking.py) on tiny SQLite schemas."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from pathlib import Path
from types import ModuleType

import pytest

from core.settings import PROJECT_ROOT, Settings
from database.connection import Database
from eval.linking import GoldLinks, gold_links, link_row, linking_for_budgets, summarize, tool_context
from retrieval.embeddings import OfflineMiniLM
from retrieval.indexing import build_indexes
from retrieval.store import ChromaStore

SCHEMA = {"Head": ["head_ID", "name", "age"], "management": ["head_ID", "department_ID", "temporary_acting"],
          "department": ["Department_ID", "Name", "Budget"]}

NO_KNOWLEDGE = Settings(retrieval={"use_knowledge": False}, local_llm={"auto_start": False})

# A warehouse-style copy: three cryptic tables the questions name in plain words, and documented decoys.
CRYPTIC_SQL = """
CREATE TABLE CSTMR (CSTMR_ID INTEGER PRIMARY KEY, CSTMR_NM TEXT, CTY_CD TEXT);
CREATE TABLE DTNTN (DTNTN_ID INTEGER PRIMARY KEY, DTNTN_SMRY TEXT, STRT_DT TEXT);
CREATE TABLE PMT (PMT_ID INTEGER PRIMARY KEY, CSTMR_ID INTEGER REFERENCES CSTMR(CSTMR_ID), AMT REAL);
CREATE TABLE weather_readings (station TEXT, temperature REAL, humidity REAL, wind_speed REAL);
CREATE TABLE product_catalogue (product_code TEXT, title TEXT, list_price REAL, supplier_name TEXT);
CREATE TABLE flight_schedule (flight_number TEXT, origin_airport TEXT, destination_airport TEXT, departs TEXT);
CREATE TABLE library_loans (book_title TEXT, borrower TEXT, loaned_on TEXT, returned_on TEXT);
INSERT INTO CSTMR VALUES (1, 'Ana Lima', 'RIO'), (2, 'Bo Berg', 'STO');
INSERT INTO DTNTN VALUES (1, 'late twice', '2024-01-02');
INSERT INTO PMT VALUES (1, 1, 10.5), (2, 2, 7.25);
INSERT INTO weather_readings VALUES ('north', 12.5, 0.4, 3.1);
INSERT INTO product_catalogue VALUES ('P1', 'Lamp', 20.0, 'Acme');
INSERT INTO flight_schedule VALUES ('AB12', 'LIS', 'OSL', '08:00');
INSERT INTO library_loans VALUES ('Dune', 'Ana', '2024-01-01', NULL);
"""


def measure_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("measure_linking", PROJECT_ROOT / "scripts" / "measure_linking.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def spider_folder(root: Path, db_id: str, sql: str, questions: list[tuple[str, str]]) -> Path:
    """A Spider-format folder: ``dev.json`` and ``database/<db_id>/<db_id>.sqlite``."""
    (root / "database" / db_id).mkdir(parents=True)
    with sqlite3.connect(root / "database" / db_id / f"{db_id}.sqlite") as conn:
        conn.executescript(sql)
    rows = [{"db_id": db_id, "question": q, "query": g} for q, g in questions]
    (root / "dev.json").write_text(json.dumps(rows))
    return root


def test_gold_links_resolve_aliases_subqueries_and_case() -> None:
    sql = ("SELECT count(DISTINCT T1.temporary_acting) FROM management AS T1 JOIN head AS T2 "
           "ON T1.head_id = T2.head_id WHERE T2.age > (SELECT avg(age) FROM head) AND T2.name = \"Bob\"")
    links = gold_links(sql, SCHEMA)
    assert links == GoldLinks(frozenset({"Head", "management"}), frozenset({
        ("management", "temporary_acting"), ("management", "head_ID"), ("Head", "head_ID"), ("Head", "age"),
        ("Head", "name")}))
    assert gold_links("SELECT count(*) FROM department", SCHEMA) == GoldLinks(frozenset({"department"}))
    cte = gold_links("WITH d AS (SELECT Name FROM department) SELECT Name FROM d", SCHEMA)
    assert cte is not None and cte.tables == {"department"} and cte.columns == {("department", "Name")}
    assert gold_links("SELECT FROM WHERE (", SCHEMA) is None
    assert gold_links("SELECT 1 FROM unknown_table", SCHEMA) is None


def test_link_row_and_summary_count_columns_by_their_table() -> None:
    gold = GoldLinks(frozenset({"A", "B"}), frozenset({("A", "x"), ("A", "y"), ("B", "z")}))
    row = link_row(gold, ["a", "C"], tokens=120)
    assert row["table_recall"] == 0.5 and row["column_recall"] == pytest.approx(2 / 3)
    assert not row["complete"] and row["missed_tables"] == ["B"] and row["missed_columns"] == ["B.z"]
    full = link_row(GoldLinks(frozenset({"A"})), ["A"], tokens=80)
    assert full["complete"] and full["column_recall"] is None
    summary = summarize([{**row, "whole": False}, {**full, "whole": True}])
    assert summary == {"questions": 2, "table_recall": 75.0, "column_recall": 66.7, "complete": 50.0,
                       "cut": 50.0, "tokens": 100}
    assert summarize([]) == {}


def test_cryptic_tables_are_linked_from_plain_words_under_a_cut(tmp_path: Path,
                                                                 embedding_function: OfflineMiniLM) -> None:
    """A budget that fits one or two tables: the tool must rank the abbreviated table the question names."""
    spider_folder(tmp_path / "bench", "crypt", CRYPTIC_SQL, [])
    db = Database(f"sqlite:///{tmp_path / 'bench' / 'database' / 'crypt' / 'crypt.sqlite'}")
    store = ChromaStore(tmp_path / "chroma", embedding_function)
    build_indexes(db, store, sample_rows=3, progress=False, profile=True)
    ctx = tool_context(NO_KNOWLEDGE, store, db.key)
    cases = {
        "Return all detention summaries.": ("SELECT DTNTN_SMRY FROM DTNTN", "DTNTN"),
        "How many customers are there?": ("SELECT count(*) FROM CSTMR", "CSTMR"),
        "What is the total amount of the payments?": ("SELECT sum(AMT) FROM PMT", "PMT"),
    }
    for question, (sql, table) in cases.items():
        gold = gold_links(sql, {"CSTMR": ["CSTMR_ID", "CSTMR_NM", "CTY_CD"], "DTNTN": ["DTNTN_ID", "DTNTN_SMRY"],
                                "PMT": ["PMT_ID", "CSTMR_ID", "AMT"]})
        assert gold is not None
        rows = linking_for_budgets(question, gold, ctx, [150, 5000])
        assert rows[5000]["whole"] and rows[5000]["complete"]
        assert not rows[150]["whole"] and table in rows[150]["tables"], (question, rows[150]["tables"])


def test_script_writes_paired_figures_for_a_copy(tmp_path: Path, embedding_function: OfflineMiniLM,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    plain = "CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, customer_name TEXT);" \
            "INSERT INTO customer VALUES (1, 'Ana');"
    source = spider_folder(tmp_path / "src", "shop", plain, [("How many customers?", "SELECT count(*) FROM customer"),
                                                              ("Customer names?", "SELECT customer_name FROM customer")])
    copy = spider_folder(tmp_path / "abbr", "shop_abbr", plain.replace("customer", "CSTMR"),
                         [("Customer names?", "SELECT CSTMR_name FROM CSTMR")])
    rows = json.loads((copy / "dev.json").read_text())
    (copy / "dev.json").write_text(json.dumps([{**rows[0], "source_index": 1}]))
    module = measure_module()
    monkeypatch.setattr(module, "get_embedding_function", lambda settings: embedding_function)
    out = tmp_path / "linking.json"
    assert module.main(["--spider", str(source), "--abbreviated", str(copy), "--set", "", "--budgets", "2400,300",
                        "--chroma", str(tmp_path / "chroma"), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["summary"]["original"]["2400"]["questions"] == 2
    assert result["summary"]["abbreviated"]["300"] == {"questions": 1, "table_recall": 100.0, "column_recall": 100.0,
                                                       "complete": 100.0, "cut": 0.0,
                                                       "tokens": result["rows"]["abbreviated"][1]["tokens"]}
    assert [r["qid"] for r in result["rows"]["abbreviated"]] == ["spider-1", "spider-1"]
    assert result["rows"]["abbreviated"][0]["gold_columns"] == ["CSTMR.CSTMR_name"]
