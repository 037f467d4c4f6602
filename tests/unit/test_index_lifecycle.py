"""Index lifecycle: incremental re-embedding, schema drift report, snapshot id (real Chroma and SQLite)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from chromadb.api.types import Documents, Embeddings

from database.connection import Database
from database.schema_types import ColumnInfo, TableInfo
from retrieval.embeddings import OfflineMiniLM
from retrieval.indexing import build_indexes, index_tables, snapshot_id, sync_tables
from retrieval.manifest import MANIFEST_DIR, compute_snapshot, read_manifest
from retrieval.store import DESCRIPTION_INDEX, SCHEMAS_INDEX, ChromaStore


class CountingMiniLM(OfflineMiniLM):
    """The offline MiniLM, remembering every text it embedded."""

    def __init__(self, model_dir: Path) -> None:
        super().__init__(model_dir)
        self.texts: list[str] = []

    def __call__(self, input: Documents) -> Embeddings:
        self.texts.extend(input)
        return super().__call__(input)


@pytest.fixture
def counting(embedding_function: OfflineMiniLM) -> CountingMiniLM:
    return CountingMiniLM(embedding_function.model_dir)


@pytest.fixture
def store(tmp_path: Path, counting: CountingMiniLM) -> ChromaStore:
    return ChromaStore(tmp_path / "chroma", counting)


def table(name: str, *cols: str, comment: str | None = None) -> TableInfo:
    return TableInfo(name, [ColumnInfo(c, "TEXT") for c in cols], comment=comment)


def base_tables() -> list[TableInfo]:
    return [table("customers", "id", "name", "country", comment="Buyers."), table("orders", "id", "amount"),
            table("products", "id", "title")]


def test_reindex_embeds_only_changed_documents(store: ChromaStore, counting: CountingMiniLM) -> None:
    first = sync_tables(store, "shop", "sqlite", base_tables())
    assert first.first_build and first.changed_docs == 6 and len(counting.texts) == 6
    assert first.added_tables == ["customers", "orders", "products"]

    counting.texts.clear()
    again = sync_tables(store, "shop", "sqlite", base_tables())
    assert (again.changed_docs, again.unchanged_docs, counting.texts) == (0, 6, [])
    assert not again.first_build and again.added_tables == again.dropped_tables == []

    tables = base_tables()
    tables[1].comment = "One row per order."  # changes both documents of orders only
    changed = sync_tables(store, "shop", "sqlite", tables)
    assert (changed.changed_docs, changed.unchanged_docs) == (2, 4)
    assert changed.changed_tables == ["orders"] and len(counting.texts) == 2
    assert all("orders" in t for t in counting.texts)
    assert changed.added_columns == changed.dropped_columns == {}


def test_drift_report_lists_tables_and_columns(store: ChromaStore, counting: CountingMiniLM) -> None:
    sync_tables(store, "shop", "sqlite", base_tables())
    counting.texts.clear()
    customers, orders, _products = base_tables()
    customers.columns = [c for c in customers.columns if c.name != "country"] + [ColumnInfo("email", "TEXT")]
    orders.columns.append(ColumnInfo("placed_at", "DATE"))
    drift = sync_tables(store, "shop", "sqlite", [customers, orders, table("invoices", "id", "total")])
    assert drift.added_tables == ["invoices"] and drift.dropped_tables == ["products"]
    assert drift.added_columns == {"customers": ["email"], "orders": ["placed_at"]}
    assert drift.dropped_columns == {"customers": ["country"]}
    assert drift.changed_tables == ["customers", "orders"]
    assert drift.changed_docs == 6 and len(counting.texts) == 6  # 2 changed tables + 1 new, 2 docs each
    for collection in (DESCRIPTION_INDEX, SCHEMAS_INDEX):
        assert {h.metadata["table"] for h in store.get(collection, where={"db": "shop"})} == {
            "customers", "orders", "invoices"
        }


def test_snapshot_id_changes_with_the_schema(store: ChromaStore) -> None:
    assert snapshot_id(store, "shop") is None
    index_tables(store, "shop", "sqlite", base_tables())
    snap = snapshot_id(store, "shop")
    assert snap is not None and len(snap) == 12
    manifest = read_manifest(store, "shop")
    assert manifest is not None and manifest["snapshot"] == snap and manifest["tables"] == 3
    assert (store.path / MANIFEST_DIR / "shop.json").is_file()
    assert compute_snapshot(store, "shop") == snap  # the manifest agrees with the records

    index_tables(store, "shop", "sqlite", base_tables())
    assert snapshot_id(store, "shop") == snap  # unchanged schema, same id
    index_tables(store, "shop", "sqlite", [*base_tables(), table("invoices", "id")])
    assert snapshot_id(store, "shop") not in (None, snap)
    index_tables(store, "shop", "sqlite", base_tables())
    assert snapshot_id(store, "shop") == snap  # content-addressed: back to the same schema, same id

    (store.path / MANIFEST_DIR / "shop.json").unlink()
    assert snapshot_id(store, "shop") == snap  # recomputed from the records
    index_tables(store, "other", "sqlite", base_tables()[:1])
    assert snapshot_id(store, "shop") == snap and snapshot_id(store, "other") != snap


def test_old_records_without_hashes_are_refreshed(store: ChromaStore, counting: CountingMiniLM) -> None:
    store.upsert(DESCRIPTION_INDEX, ["shop:orders"], ["Table: orders"], [{"db": "shop", "table": "orders"}])
    store.upsert(SCHEMAS_INDEX, ["shop:orders"], ["CREATE TABLE orders (id TEXT)"], [{"db": "shop", "table": "orders"}])
    counting.texts.clear()
    sync = sync_tables(store, "shop", "sqlite", base_tables())
    assert not sync.first_build and sync.changed_tables == ["orders"]
    assert sync.added_tables == ["customers", "products"] and sync.added_columns == {}  # old columns unknown
    assert sync.changed_docs == 6


def test_build_indexes_reports_drift_of_a_real_database(tmp_path: Path, store: ChromaStore) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);"
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id));"
            "CREATE TABLE legacy (x TEXT);"
        )
    db = Database(f"sqlite:///{path}")
    try:
        first = build_indexes(db, store, progress=False)
        assert first.first_build and first.tables == 3 and first.snapshot and first.previous_snapshot is None
        with sqlite3.connect(path) as conn:
            conn.executescript(
                "ALTER TABLE customers ADD COLUMN email TEXT; DROP TABLE legacy;"
                "CREATE TABLE payments (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(id));"
            )
        db.dispose()
        report = build_indexes(db, store, progress=False)
    finally:
        db.dispose()
    assert report.drift and report.previous_snapshot == first.snapshot != report.snapshot
    assert report.added_tables == ["payments"] and report.dropped_tables == report.removed_tables == ["legacy"]
    assert report.added_columns == {"customers": ["email"]} and report.dropped_columns == {}
    assert report.unchanged_docs == 2  # orders is untouched
    text = report.summary()
    assert "added tables: payments" in text and "dropped tables: legacy" in text
    assert "added columns in customers: email" in text and report.snapshot is not None
    assert report.snapshot in text
    fks = store.get(DESCRIPTION_INDEX, ids=[f"{db.key}:payments"])[0].metadata["fks"]
    assert fks == '[["order_id", "orders.id"]]'


def test_indexed_schema_documents_carry_the_opaque_columns_value_hints(tmp_path: Path, store: ChromaStore) -> None:
    path = tmp_path / "hosts.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE HST (HOST_ID INTEGER PRIMARY KEY, NM TEXT, c10 INTEGER);"
                           "INSERT INTO HST VALUES (1, 'Austin Daye', 43), (2, 'Lloyd Daniels', 37);")
    db = Database(f"sqlite:///{path}")
    try:
        build_indexes(db, store, progress=False, profile=True)
        plain = store.get(SCHEMAS_INDEX, ids=[f"{db.key}:HST"])[0].document
        report = build_indexes(db, store, progress=False, profile=True, value_hints=True)
        hinted = store.get(SCHEMAS_INDEX, ids=[f"{db.key}:HST"])[0].document
    finally:
        db.dispose()
    assert "values 37 to 43" not in plain and "c10 INTEGER -- values 37 to 43" in hinted
    assert "NM TEXT," in hinted and report.changed_docs == 1  # only the schema document was embedded again


def _shop(path: Path, declared: bool) -> Database:
    ref = " REFERENCES CUST (CUST_ID)" if declared else ""
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE CUST (CUST_ID INTEGER PRIMARY KEY, NM TEXT, CITY TEXT);"
            f"CREATE TABLE ORD (ORD_ID INTEGER PRIMARY KEY, CUST_ID INTEGER{ref}, SHIP_CITY TEXT, AMT REAL);"
            "INSERT INTO CUST VALUES (1, 'Ana', 'Oslo'), (2, 'Bo', 'Rome'), (3, 'Caio', 'Lima'), (4, 'Di', 'Kyiv');"
            "INSERT INTO ORD VALUES (10, 1, 'Oslo', 5.0), (11, 2, 'Rome', 7.5), (12, 2, 'Lima', 1.0),"
            " (13, 4, 'Kyiv', 2.0), (14, 3, 'Oslo', 3.0);")
    return Database(f"sqlite:///{path}")


def test_joins_found_in_the_data_are_indexed_when_no_foreign_key_is_declared(tmp_path: Path, store: ChromaStore) -> None:
    db = _shop(tmp_path / "bare.sqlite", declared=False)
    try:
        plain = build_indexes(db, store, progress=False, profile=True)
        report = build_indexes(db, store, progress=False, profile=True, infer_joins=True)
        record = store.get(DESCRIPTION_INDEX, ids=[f"{db.key}:ORD"])[0]
        schema = store.get(SCHEMAS_INDEX, ids=[f"{db.key}:ORD"])[0].document
    finally:
        db.dispose()
    assert plain.inferred_joins == 0 and report.inferred_joins == 1
    assert record.metadata["fks"] == '[["CUST_ID", "CUST.CUST_ID"]]'  # not SHIP_CITY -> CUST.CITY: values alone
    assert "CUST_ID INTEGER REFERENCES CUST (CUST_ID)" in schema
    assert "1 joins inferred from the data" in report.summary()


def test_a_database_declaring_a_foreign_key_is_indexed_as_declared(tmp_path: Path, store: ChromaStore) -> None:
    db = _shop(tmp_path / "keyed.sqlite", declared=True)
    with sqlite3.connect(tmp_path / "keyed.sqlite") as conn:  # a second relation nobody declared
        conn.executescript("CREATE TABLE PAY (PAY_ID INTEGER PRIMARY KEY, ORD_ID INTEGER, PAID REAL);"
                           "INSERT INTO PAY VALUES (1, 10, 5.0), (2, 11, 7.5);")
    try:
        report = build_indexes(db, store, progress=False, profile=True, infer_joins=True)
        pay = store.get(DESCRIPTION_INDEX, ids=[f"{db.key}:PAY"])[0]
    finally:
        db.dispose()
    assert report.inferred_joins == 0 and pay.metadata["fks"] == "[]"


def test_metadata_references_stay_and_the_data_supplies_the_other_joins(tmp_path: Path, store: ChromaStore) -> None:
    db = _shop(tmp_path / "bare.sqlite", declared=False)
    with sqlite3.connect(tmp_path / "bare.sqlite") as conn:
        conn.executescript("CREATE TABLE PAY (PAY_ID INTEGER PRIMARY KEY, ORD_ID INTEGER, PAID REAL);"
                           "INSERT INTO PAY VALUES (1, 10, 5.0), (2, 11, 7.5), (3, 12, 1.0);")
    (tmp_path / "bare.metadata.yaml").write_text("tables:\n  ORD:\n    references:\n      SHIP_CITY: CUST.CITY\n"
                                                 "      CUST_ID: CUST.CUST_ID\n", encoding="utf-8")
    try:
        report = build_indexes(db, store, progress=False, profile=True, infer_joins=True)
        fks = {t: store.get(DESCRIPTION_INDEX, ids=[f"{db.key}:{t}"])[0].metadata["fks"] for t in ("ORD", "PAY")}
    finally:
        db.dispose()
    assert fks["ORD"] == '[["SHIP_CITY", "CUST.CITY"], ["CUST_ID", "CUST.CUST_ID"]]'  # as the team wrote them
    assert fks["PAY"] == '[["ORD_ID", "ORD.ORD_ID"]]' and report.inferred_joins == 1


def test_a_rejected_join_is_not_inferred_and_an_approved_one_is_indexed_beside_declared_keys(
        tmp_path: Path, store: ChromaStore) -> None:
    bare = _shop(tmp_path / "bare.sqlite", declared=False)
    (tmp_path / "bare.enriched.yaml").write_text(
        "version: 1\ntables:\n  ORD:\n    references:\n      CUST_ID: {target: CUST.CUST_ID, status: rejected}\n",
        encoding="utf-8")
    keyed = _shop(tmp_path / "keyed.sqlite", declared=True)
    with sqlite3.connect(tmp_path / "keyed.sqlite") as conn:
        conn.executescript("CREATE TABLE PAY (PAY_ID INTEGER PRIMARY KEY, ORD_ID INTEGER, PAID REAL);"
                           "INSERT INTO PAY VALUES (1, 10, 5.0), (2, 11, 7.5);")
    (tmp_path / "keyed.enriched.yaml").write_text(
        "version: 1\ntables:\n  PAY:\n    references:\n      ORD_ID: {target: ORD.ORD_ID, status: approved}\n",
        encoding="utf-8")
    try:
        rejected = build_indexes(bare, store, progress=False, profile=True, infer_joins=True)
        ord_fks = store.get(DESCRIPTION_INDEX, ids=[f"{bare.key}:ORD"])[0].metadata["fks"]
        approved = build_indexes(keyed, store, progress=False, profile=True, infer_joins=True)
        pay = store.get(DESCRIPTION_INDEX, ids=[f"{keyed.key}:PAY"])[0]
        listing = store.get(SCHEMAS_INDEX, ids=[f"{keyed.key}:PAY"])[0].document
    finally:
        bare.dispose()
        keyed.dispose()
    assert rejected.inferred_joins == 0 and ord_fks == "[]"
    assert approved.inferred_joins == 0 and pay.metadata["fks"] == '[["ORD_ID", "ORD.ORD_ID"]]'
    assert "ORD_ID INTEGER REFERENCES ORD (ORD_ID)" in listing
