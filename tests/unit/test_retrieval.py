"""Retrieval layer: offline embeddings, Chroma store, documents, indexing and two-stage table retrieval.

Uses a real persistent Chroma in tmp_path and the real (offline) MiniLM model; one embedding function instance
is shared by the whole module.
"""

from __future__ import annotations

import sqlite3
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings as ChromaSettings
from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

from database.connection import Database
from database.schema_types import ColumnInfo, ForeignKey, TableInfo
from retrieval import indexing
from retrieval.documents import (
    description_document,
    documented_description,
    example_doc_id,
    schema_document,
    table_doc_id,
)
from retrieval.embeddings import (
    MODEL_FILES,
    EmbeddingModelMissingError,
    OfflineMiniLM,
    install_embedding_model,
)
from retrieval.indexing import build_indexes, index_examples, index_tables, load_examples
from retrieval.retrievers import retrieve_examples, retrieve_tables
from retrieval.store import DESCRIPTION_INDEX, EXAMPLES_INDEX, SCHEMAS_INDEX, ChromaStore


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_embedding_model(tmp_path_factory.mktemp("model") / "onnx")


@pytest.fixture(scope="module")
def ef(model_dir: Path) -> OfflineMiniLM:
    return OfflineMiniLM(model_dir)


@pytest.fixture
def store(tmp_path: Path, ef: OfflineMiniLM) -> ChromaStore:
    return ChromaStore(tmp_path / "chroma", ef)


def col(name: str, type_: str = "INTEGER", pk: bool = False, comment: str | None = None) -> ColumnInfo:
    return ColumnInfo(name=name, type=type_, nullable=not pk, primary_key=pk, comment=comment)


def shop_tables() -> list[TableInfo]:
    customers = TableInfo(
        "customers",
        [col("customer_id", pk=True), col("name", "TEXT"), col("email", "TEXT"), col("country", "TEXT")],
        primary_key=["customer_id"],
        comment="People and companies who buy from the shop.",
        sample_rows=[{"customer_id": 1, "name": "Ada", "email": "ada@x.io", "country": "UK"}],
    )
    orders = TableInfo(
        "orders",
        [col("order_id", pk=True), col("customer_id"), col("order_date", "DATE"), col("total", "REAL")],
        primary_key=["order_id"],
        foreign_keys=[ForeignKey(["customer_id"], "customers", ["customer_id"])],
        comment="One row per order placed by a customer.",
    )
    products = TableInfo(
        "products",
        [col("product_id", pk=True), col("title", "TEXT"), col("price", "REAL"), col("category", "TEXT")],
        primary_key=["product_id"],
        comment="Catalogue of items for sale with their prices.",
    )
    employees = TableInfo(
        "employees",
        [col("employee_id", pk=True), col("full_name", "TEXT"), col("salary", "REAL")],
        primary_key=["employee_id"],
        comment="Staff members and their salaries.",
    )
    weather = TableInfo(
        "weather_readings",
        [col("station", "TEXT"), col("reading_at", "TIMESTAMP"), col("temp_c", "REAL")],
    )
    return [customers, orders, products, employees, weather]


@dataclass
class FakeDb:
    """Quacks like database.connection.Database for build_indexes."""

    key: str = "shop"
    dialect: str = "sqlite"

    def run_query(self, sql: str, *, row_cap: int | None = None) -> Any:
        if "nope" in sql:
            return types.SimpleNamespace(ok=False, error="no such table: nope")
        if "boom" in sql:
            raise RuntimeError("driver exploded")
        return types.SimpleNamespace(ok=True, error=None)


# --- embeddings --------------------------------------------------------------------------------------------


def test_install_embedding_model_is_idempotent(tmp_path: Path) -> None:
    target = install_embedding_model(tmp_path / "m")
    assert sorted(p.name for p in target.iterdir()) == sorted(MODEL_FILES)
    mtimes = {p.name: p.stat().st_mtime_ns for p in target.iterdir()}
    (target / "vocab.txt").unlink()
    assert install_embedding_model(tmp_path / "m") == target
    assert (target / "vocab.txt").is_file()
    assert all(p.stat().st_mtime_ns == mtimes[p.name] for p in target.iterdir() if p.name != "vocab.txt")


def test_missing_model_files_raise_with_fix(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelMissingError, match="nl2sql setup"):
        OfflineMiniLM(tmp_path / "empty")(["hello"])


def test_padded_embeddings_match_chromas_own(ef: OfflineMiniLM, model_dir: Path) -> None:
    reference = ONNXMiniLM_L6_V2()
    reference.DOWNLOAD_PATH = model_dir.parent  # point chromadb's implementation at the same files
    reference.EXTRACTED_FOLDER_NAME = model_dir.name
    texts = ["which customers ordered the most", "hi", "SELECT count(*) FROM orders", "long text " * 60]
    ours, theirs = np.array(ef(texts)), np.array(reference(texts))
    assert ours.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert ((ours * theirs).sum(axis=1) > 0.999).all()
    # order is preserved despite length sorting: each text alone gives the same vector
    alone = np.array([ef([t])[0] for t in texts])
    assert ((ours * alone).sum(axis=1) > 0.999).all()


def test_registered_function_survives_reopening(tmp_path: Path, ef: OfflineMiniLM) -> None:
    path = str(tmp_path / "c")
    client = chromadb.PersistentClient(path=path, settings=ChromaSettings(anonymized_telemetry=False))
    client.get_or_create_collection("docs", embedding_function=cast(Any, ef)).add(
        ids=["a", "b"], documents=["cats", "tax law"]
    )
    del client
    reopened = chromadb.PersistentClient(path=path, settings=ChromaSettings(anonymized_telemetry=False))
    collection = reopened.get_collection("docs")  # no function passed: rebuilt from the persisted config
    rebuilt = collection.configuration.get("embedding_function")
    assert isinstance(rebuilt, OfflineMiniLM) and rebuilt.model_dir == ef.model_dir
    assert collection.query(query_texts=["kittens"], n_results=1)["ids"] == [["a"]]


# --- store -------------------------------------------------------------------------------------------------


def test_store_filters_by_db(store: ChromaStore) -> None:
    store.upsert(
        EXAMPLES_INDEX, ["a:1", "a:2"], ["monthly revenue", "top customers"], [{"db": "a"}, {"db": "a"}]
    )
    store.upsert(EXAMPLES_INDEX, ["b:1"], ["monthly revenue"], [{"db": "b"}])
    assert store.count(EXAMPLES_INDEX) == 3 and store.count(EXAMPLES_INDEX, {"db": "a"}) == 2

    hits = store.query(EXAMPLES_INDEX, "revenue per month", k=10, where={"db": "a"})
    assert [h.id for h in hits] == ["a:1", "a:2"]
    assert hits[0].distance is not None and hits[0].score > hits[1].score
    assert {h.id for h in store.get(EXAMPLES_INDEX, where={"db": "b"})} == {"b:1"}
    assert store.get(EXAMPLES_INDEX, ids=["a:2"])[0].document == "top customers"

    store.upsert(EXAMPLES_INDEX, ["a:2"], ["best customers"], [{"db": "a"}])  # replace
    assert store.get(EXAMPLES_INDEX, ids=["a:2"])[0].document == "best customers"
    store.delete(EXAMPLES_INDEX, where={"db": "a"})
    assert store.count(EXAMPLES_INDEX) == 1 and store.query(EXAMPLES_INDEX, "x", 3, {"db": "a"}) == []

    with pytest.raises(ValueError, match="db"):
        store.upsert(EXAMPLES_INDEX, ["x"], ["x"], [{"table": "t"}])
    with pytest.raises(ValueError):
        store.delete(EXAMPLES_INDEX)
    with pytest.raises(ValueError):
        store.count("nope")


# --- documents ---------------------------------------------------------------------------------------------


def test_documents_and_ids() -> None:
    customers, orders, *_, weather = shop_tables()
    text = description_document(orders)
    assert text.splitlines()[0] == "Table: orders"
    assert "Columns: order_id, customer_id, order_date, total" in text
    assert "Primary key: order_id" in text and "customer_id -> customers.customer_id" in text
    assert "(undocumented)" in description_document(weather)
    assert documented_description(description_document(weather)) is None
    orders.comment = "One row per order. Orders placed by customers of the shop, with their totals in euros."
    assert documented_description(description_document(orders)) == "One row per order"  # shown in accounts
    schema = schema_document(customers, "sqlite", sample_rows=3)
    assert "customers" in schema and "ada@x.io" in schema
    assert "ada@x.io" not in schema_document(customers, "sqlite", sample_rows=0)
    assert table_doc_id("shop", "orders") == "shop:orders"
    ex_id = example_doc_id("shop", "q", "SELECT 1")
    assert ex_id.startswith("shop:ex:") and len(ex_id) == len("shop:ex:") + 12


# --- indexing and retrieval --------------------------------------------------------------------------------


def test_retrieve_tables_ranks_relevant_first(store: ChromaStore) -> None:
    index_tables(store, "shop", "sqlite", shop_tables())
    index_tables(store, "other", "sqlite", [TableInfo("customer_orders", [col("id")])])

    hits = retrieve_tables(store, "shop", "which customers ordered the most", k=2)
    assert {h.name for h in hits} == {"customers", "orders"}
    assert hits[0].score >= hits[1].score
    assert "CREATE TABLE" in hits[0].schema_document.upper()

    everything = retrieve_tables(store, "shop", "which customers ordered the most", k=10)
    assert len(everything) == 5 and {h.name for h in everything[:2]} == {"customers", "orders"}
    assert retrieve_tables(store, "missing", "anything", k=3) == []


def test_reindexing_removes_dropped_tables(store: ChromaStore) -> None:
    tables = shop_tables()
    index_tables(store, "shop", "sqlite", tables)
    index_tables(store, "kept", "sqlite", tables[:1])
    removed = index_tables(store, "shop", "sqlite", [t for t in tables if t.name != "products"])
    assert removed == ["products"]
    for collection in (DESCRIPTION_INDEX, SCHEMAS_INDEX):
        assert store.count(collection, {"db": "shop"}) == 4
        assert store.get(collection, ids=["shop:products"]) == []
        assert store.count(collection, {"db": "kept"}) == 1


def test_build_indexes_with_examples(store: ChromaStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexing, "read_schema", lambda db, **kwargs: shop_tables())
    examples = [
        {"question": "How many orders were placed per month?", "sql": "SELECT 1"},
        {"question": "Which product is the most expensive?", "sql": "SELECT 2"},
        {"question": "What is the average salary of staff?", "sql": "SELECT 3"},
        {"question": "Broken example", "sql": "SELECT * FROM nope"},
        {"question": "Raising example", "sql": "SELECT boom"},
    ]
    report = build_indexes(cast(Any, FakeDb()), store, examples=examples, progress=False)
    assert (report.db_key, report.tables, report.examples) == ("shop", 5, 3)
    assert [s["question"] for s in report.skipped_examples] == ["Broken example", "Raising example"]
    assert "no such table" in report.skipped_examples[0]["error"]
    assert "driver exploded" in report.skipped_examples[1]["error"]

    hits = retrieve_examples(store, "shop", "priciest product", k=2)
    assert hits[0].question == "Which product is the most expensive?" and hits[0].sql == "SELECT 2"
    assert len(hits) == 2 and hits[0].score > hits[1].score
    assert retrieve_examples(store, "shop", "x", k=0) == []

    # examples=None keeps them; a new list replaces them
    assert build_indexes(cast(Any, FakeDb()), store, progress=False).examples == 0
    assert store.count(EXAMPLES_INDEX, {"db": "shop"}) == 3
    index_examples(store, "shop", examples[:1])
    assert [h.question for h in retrieve_examples(store, "shop", "orders", k=5)] == [examples[0]["question"]]


def test_load_examples(tmp_path: Path) -> None:
    path = tmp_path / "ex.jsonl"
    path.write_text(
        '{"question": " Q1 ", "sql": "SELECT 1", "x": 1}\n\n# comment\n{"question": "Q2", "sql": "S"}\n'
    )
    assert load_examples(path) == [{"question": "Q1", "sql": "SELECT 1"}, {"question": "Q2", "sql": "S"}]
    path.write_text('{"question": "Q1"}\n')
    with pytest.raises(ValueError, match=":1:"):
        load_examples(path)


def test_end_to_end_sqlite(tmp_path: Path, store: ChromaStore) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """
            CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, country TEXT);
            CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id),
                                 order_date TEXT, total REAL);
            CREATE TABLE products (product_id INTEGER PRIMARY KEY, title TEXT, price REAL);
            INSERT INTO customers VALUES (1, 'Ada', 'UK'), (2, 'Linus', 'FI');
            INSERT INTO orders VALUES (1, 1, '2024-01-02', 10.5), (2, 1, '2024-02-03', 7.0);
            INSERT INTO products VALUES (1, 'Pen', 1.5);
            """
        )
    db = Database(f"sqlite:///{path}")
    examples = [
        {"question": "How many customers are there?", "sql": "SELECT COUNT(*) FROM customers"},
        {"question": "Bad", "sql": "SELECT * FROM missing_table"},
    ]
    try:
        report = build_indexes(db, store, examples=examples, progress=False)
    finally:
        db.dispose()
    assert report.tables == 3 and report.examples == 1 and len(report.skipped_examples) == 1
    hits = retrieve_tables(store, db.key, "which customers ordered the most", k=2)
    assert {h.name for h in hits} == {"customers", "orders"}
    assert "Ada" in next(h.schema_document for h in hits if h.name == "customers")
