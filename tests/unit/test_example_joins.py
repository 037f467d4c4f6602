"""Joins read from the examples' SQL: resolved aliases, key direction, many-to-many left out, used when indexing."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from database.connection import Database
from database.schema_types import ForeignKey
from retrieval.example_joins import example_foreign_keys, joined_columns
from retrieval.indexing import build_indexes
from retrieval.store import DESCRIPTION_INDEX, ChromaStore


def _summary(rows: int, keys: list[str], *columns: str) -> dict[str, Any]:
    return {"rows": rows, "keys": keys, "columns": {c: {} for c in columns}}


SUMMARIES = {"CUST": _summary(4, ["CUST_ID"], "CUST_ID", "CITY"), "ORD": _summary(5, ["ORD_ID"], "ORD_ID", "CUST_ID", "SHIP_CITY"),
             "PPL": _summary(10, ["PPL_ID"], "PPL_ID", "NM"), "GYMNST": _summary(3, ["GYMNST_ID"], "GYMNST_ID", "PTS")}
COLUMNS = {t.lower(): {"": t, **{c.lower(): c for c in s["columns"]}} for t, s in SUMMARIES.items()}


def test_equalities_between_two_tables_are_read_with_their_aliases() -> None:
    sql = ("SELECT c.CITY FROM ord AS o JOIN Cust c ON o.cust_id = c.CUST_ID AND o.ORD_ID > 3 "
           "WHERE o.SHIP_CITY = c.CITY AND c.CITY = 'Oslo'")
    assert joined_columns(sql, "sqlite", COLUMNS) == {
        frozenset({("ORD", "CUST_ID"), ("CUST", "CUST_ID")}), frozenset({("ORD", "SHIP_CITY"), ("CUST", "CITY")})}
    assert joined_columns("SELECT * FROM ORD, CUST WHERE ORD.CUST_ID = CUST.CUST_ID", "sqlite", COLUMNS) == {
        frozenset({("ORD", "CUST_ID"), ("CUST", "CUST_ID")})}  # comma joins too
    assert joined_columns("SELECT * FROM ORD JOIN X ON ORD.CUST_ID = X.ID", "sqlite", COLUMNS) == set()  # unknown
    assert joined_columns("SELECT * FROM ORD JOIN CUST ON CUST_ID = CUST_ID", "sqlite", COLUMNS) == set()  # bare
    assert joined_columns("NOT SQL (((", "sqlite", COLUMNS) == set()


def test_keys_point_at_the_key_side_and_many_to_many_is_left_out() -> None:
    sqls = ["SELECT * FROM ORD o JOIN CUST c ON o.CUST_ID = c.CUST_ID",
            "SELECT * FROM ORD o JOIN CUST c ON c.CUST_ID = o.CUST_ID WHERE o.SHIP_CITY = c.CITY",
            "SELECT NM FROM GYMNST g JOIN PPL p ON g.GYMNST_ID = p.PPL_ID"]
    found = example_foreign_keys(sqls, "sqlite", SUMMARIES)
    assert found == {"ORD": [ForeignKey(["CUST_ID"], "CUST", ["CUST_ID"], origin="examples")],  # not SHIP_CITY
                     "GYMNST": [ForeignKey(["GYMNST_ID"], "PPL", ["PPL_ID"], origin="examples")]}  # the larger


@pytest.fixture
def store(tmp_path: Path, embedding_function: Any) -> ChromaStore:
    return ChromaStore(tmp_path / "chroma", embedding_function)


def test_indexing_reads_the_examples_joins_before_the_data(tmp_path: Path, store: ChromaStore) -> None:
    path = tmp_path / "bare.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE CLIENT (CLIENT_NO INTEGER PRIMARY KEY, NM TEXT);"
            "CREATE TABLE ORD (ORD_ID INTEGER PRIMARY KEY, BUYER INTEGER, AMT REAL);"
            "INSERT INTO CLIENT VALUES (1, 'Ana'), (2, 'Bo'), (3, 'Caio');"
            "INSERT INTO ORD VALUES (10, 1, 5.0), (11, 2, 7.5), (12, 2, 1.0), (13, 3, 2.0);")
    db = Database(f"sqlite:///{path}")
    examples = [{"question": "Who bought order 10?",
                 "sql": "SELECT c.NM FROM ORD o JOIN CLIENT c ON o.BUYER = c.CLIENT_NO WHERE o.ORD_ID = 10"}]
    try:
        data_only = build_indexes(db, store, progress=False, profile=True, infer_joins=True, examples=examples)
        plain = store.get(DESCRIPTION_INDEX, ids=[f"{db.key}:ORD"])[0].metadata["fks"]
        report = build_indexes(db, store, progress=False, profile=True, infer_joins=True, example_joins=True)
        joined = store.get(DESCRIPTION_INDEX, ids=[f"{db.key}:ORD"])[0].metadata["fks"]
    finally:
        db.dispose()
    assert data_only.inferred_joins == 0 and plain == "[]"  # BUYER names no table: the data alone cannot tell
    assert (report.inferred_joins, report.example_joins) == (1, 1)  # read from the indexed examples
    assert joined == '[["BUYER", "CLIENT.CLIENT_NO"]]'
    assert "0 joins inferred from the data, 1 read from the examples" in report.summary()
