"""Good-known examples: versioned file + approved feedback, duplicate merge, re-validation, incremental index."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from retrieval.embeddings import OfflineMiniLM
from retrieval.examples_store import (
    Example,
    from_feedback,
    index_examples,
    load_examples_file,
    merge_duplicates,
    normalize_question,
    normalize_sql,
    sync_example_records,
    sync_examples,
)
from retrieval.indexing import build_indexes, snapshot_id
from retrieval.retrievers import DEFAULT_EXAMPLES_K, retrieve_examples
from retrieval.store import EXAMPLES_INDEX, ChromaStore


@pytest.fixture
def store(tmp_path: Path, embedding_function: OfflineMiniLM) -> ChromaStore:
    return ChromaStore(tmp_path / "chroma", embedding_function)


@pytest.fixture
def db(tmp_path: Path) -> Database:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, country TEXT);"
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount REAL);"
            "INSERT INTO customers VALUES (1, 'Ana', 'Brazil');"
        )
    return Database(f"sqlite:///{path}")


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n# a comment\n\n")
    return path


def test_normalization() -> None:
    assert normalize_question("  How many   Customers?? ") == normalize_question("how many customers")
    assert normalize_sql("select count(*) from CUSTOMERS;") == normalize_sql("SELECT COUNT(*)\n  FROM customers")
    assert normalize_sql("SELECT name FROM t WHERE x = 'A'") != normalize_sql("SELECT name FROM t WHERE x = 'a'")
    assert normalize_sql("SELEC nonsense ((") == "selec nonsense (("  # unparsable: whitespace/case only


def test_duplicates_are_merged_keeping_the_first() -> None:
    examples = [
        Example("How many customers?", "SELECT COUNT(*) FROM customers", id="e1", source="file"),
        Example("how many customers", "select count(*)  from Customers;", source="feedback", added="2025-01-02"),
        Example("How many customers?", "SELECT COUNT(id) FROM customers", source="feedback"),  # other SQL
        Example("Number of customers", "SELECT COUNT(*) FROM customers", source="file"),  # other question
    ]
    kept, dropped = merge_duplicates(examples)
    assert dropped == 1 and len(kept) == 3
    assert (kept[0].id, kept[0].source, kept[0].added) == ("e1", "file+feedback", "2025-01-02")
    assert examples[0].source == "file"  # inputs are not mutated


def test_file_and_feedback_loading(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "ex.jsonl", [
        {"question": " Q1 ", "sql": "SELECT 1", "id": "q1", "status": "approved", "added": "2025-03-01", "x": 1},
        {"question": "Q2", "sql": "SELECT 2", "status": "retired"},
    ])
    loaded = load_examples_file(path)
    assert loaded[0] == Example("Q1", "SELECT 1", id="q1", source="file", status="approved", added="2025-03-01")
    assert load_examples_file(path, default_source=None)[0].source is None
    assert loaded[1].status == "retired"
    path.write_text('{"question": "Q"}\n')
    with pytest.raises(ValueError, match=":1:"):
        load_examples_file(path)
    feedback = from_feedback([
        {"question": "Q3", "sql": "SELECT 3"},
        {"question": "Q4", "sql": "SELECT 4", "status": "pending"},
        {"question": "", "sql": "SELECT 5"},
    ])
    assert feedback == [Example("Q3", "SELECT 3", source="feedback")]


def test_sync_flags_broken_examples_and_indexes_incrementally(
    tmp_path: Path, store: ChromaStore, db: Database
) -> None:
    path = write_jsonl(tmp_path / "ex.jsonl", [
        {"question": "How many customers are there?", "sql": "SELECT COUNT(*) FROM customers", "id": "c1"},
        {"question": "how many customers are there", "sql": "select count(*) from customers"},
        {"question": "Total order amount", "sql": "SELECT SUM(amount) FROM orders"},
        {"question": "Customers per region", "sql": "SELECT region, COUNT(*) FROM customers GROUP BY region"},
        {"question": "Old example", "sql": "SELECT 1", "status": "retired"},
    ])
    feedback = [{"question": "Which countries do customers come from?", "sql": "SELECT DISTINCT country FROM customers"}]
    try:
        report = sync_examples(store, db, path=path, feedback=feedback)
    finally:
        db.dispose()
    assert (report.loaded, report.excluded, report.duplicates, report.indexed) == (6, 1, 1, 3)
    assert [f["question"] for f in report.flagged] == ["Customers per region"]
    assert "region" in report.flagged[0]["error"] and report.flagged[0]["source"] == "file"
    assert report.snapshot is not None and report.snapshot == snapshot_id(store, db.key)

    hits = retrieve_examples(store, db.key, "count of customers")
    assert DEFAULT_EXAMPLES_K == 5 and len(hits) == 3
    assert hits[0].sql == "SELECT COUNT(*) FROM customers"
    meta = store.get(EXAMPLES_INDEX, where={"db": db.key})
    by_question = {h.metadata["question"]: h.metadata for h in meta}
    assert by_question["How many customers are there?"]["example_id"] == "c1"
    assert by_question["Which countries do customers come from?"]["source"] == "feedback"

    # re-sync without the feedback: nothing re-embedded, one removed, snapshot changes
    again = sync_examples(store, db, path=path)
    assert (again.indexed, again.embedded, again.removed) == (2, 0, 1)
    assert again.snapshot != report.snapshot
    assert sync_example_records(store, db.key, []) == (0, 0, 2)
    assert index_examples(store, db.key, []) == 0


def test_build_indexes_routes_examples_through_the_store(store: ChromaStore, db: Database) -> None:
    examples = [
        {"question": "How many customers?", "sql": "SELECT COUNT(*) FROM customers"},
        {"question": "How many customers", "sql": "SELECT count(*) FROM customers;"},
        {"question": "Broken", "sql": "SELECT * FROM nope"},
    ]
    try:
        report = build_indexes(db, store, examples=examples, progress=False,
                               feedback=[{"question": "Orders total", "sql": "SELECT SUM(amount) FROM orders"}])
    finally:
        db.dispose()
    assert report.examples == 2 and report.duplicate_examples == 1
    assert [s["question"] for s in report.skipped_examples] == ["Broken"]
    assert "no such table" in report.skipped_examples[0]["error"]
    assert "merged 1 duplicate examples" in report.summary()


def test_examples_written_for_another_engine_are_transpiled_then_validated(db: Database) -> None:
    from retrieval.examples_store import prepare_examples

    examples = [
        {"question": "Customer ids as text starting with a", "dialect": "postgres",
         "sql": "SELECT id::text FROM customers WHERE name ILIKE 'a%'"},  # PostgreSQL-only syntax
        {"question": "How many customers?", "sql": "SELECT COUNT(*) FROM customers", "dialect": "sqlite"},
        {"question": "Bad one", "dialect": "postgres", "sql": "SELECT nope FROM customers"},
    ]
    good, report = prepare_examples(db, examples)
    assert [e.question for e in good] == ["Customer ids as text starting with a", "How many customers?"]
    assert good[0].sql == "SELECT CAST(id AS TEXT) FROM customers WHERE LOWER(name) LIKE LOWER('a%')"
    assert good[0].dialect == "sqlite" and good[1].sql == "SELECT COUNT(*) FROM customers"
    assert [f["question"] for f in report.flagged] == ["Bad one"]  # still validated on this engine


def test_transpile_rewrites_for_the_target_engine() -> None:
    from database.transpile import transpile_sql

    month = transpile_sql("SELECT SUBSTR(d, 1, 7) AS m FROM t", "sqlite", "postgres")
    assert month == "SELECT SUBSTRING(CAST(d AS TEXT) FROM 1 FOR 7) AS m FROM t"  # DATE there, text here
    assert transpile_sql("SELECT * FROM (SELECT 1 AS a)", "sqlite", "postgres").endswith("AS sub1")
    assert transpile_sql("t.d = (SELECT MAX(d) FROM t)", "sqlite", "postgres") == "t.d = (SELECT MAX(d) FROM t)"
    assert transpile_sql("SELECT 1", "sqlite", "sqlite") == "SELECT 1"
    assert transpile_sql("not sql ((", "sqlite", "postgres") == "not sql (("  # prompt text stays as written
