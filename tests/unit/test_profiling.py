"""Column profiles on a small hand-made SQLite database: null share, distinct, min/max, top values."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from database.profiling import aggregate_query, profile_table, top_values_query
from database.results import QueryResult
from database.schema_reader import read_schema
from database.schema_types import ColumnInfo, ColumnProfile, TableInfo
from retrieval.documents import profile_hint, schema_document

SCHEMA = """
CREATE TABLE trades (
    id INTEGER PRIMARY KEY, px REAL, qty INTEGER, ccy TEXT, trade_dt TEXT, booked DATETIME, note TEXT,
    raw BLOB, empty_dt DATE
);
CREATE TABLE "Order Details" ("Detail Id" INTEGER PRIMARY KEY, "select" TEXT);
CREATE TABLE empty_tbl (a INTEGER, b TEXT);
"""
ROWS = [
    (1, 10.5, 5, "USD", "2024-01-05", "2024-01-05 10:00:00", "first", b"\x00", None),
    (2, 20.0, 1, "USD", "2024-03-01", "2024-03-01 09:30:00", "second", None, None),
    (3, None, 7, "EUR", "2023-12-29", "2023-12-29 16:00:00", "third", None, None),
    (4, -3.25, 7, "USD", "2024-02-15", "2024-02-15 11:00:00", "fourth", None, None),
    (5, None, 2, "GBP", "2024-02-16", "2024-02-16 12:00:00", "fifth", None, None),
    (6, 99.0, 9, "EUR", "2024-02-17", "2024-02-17 13:00:00", "sixth", None, None),
    (7, 1.0, 3, None, "2024-02-18", "2024-02-18 14:00:00", "seventh", None, None),
    (8, 2.0, 4, "USD", "2024-02-19", "2024-02-19 15:00:00", "eighth", None, None),
]


@pytest.fixture
def db(tmp_path: Path) -> Database:
    path = tmp_path / "prof.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA)
        conn.executemany("INSERT INTO trades VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", ROWS)
        conn.executemany('INSERT INTO "Order Details" VALUES (?, ?)', [(1, "a"), (2, "a"), (3, "b")])
    conn.close()
    return Database(f"sqlite:///{path}")


def _tables(db: Database) -> dict[str, TableInfo]:
    return {t.name: t for t in read_schema(db, sample_rows=0)}


def test_profiles_are_correct(db: Database) -> None:
    prof = profile_table(db, _tables(db)["trades"], low_cardinality=5)
    assert set(prof) == {"id", "px", "qty", "ccy", "trade_dt", "booked", "note", "raw", "empty_dt"}
    assert all(p.row_count == 8 for p in prof.values())

    px = prof["px"]
    assert px.kind == "number" and px.null_share == pytest.approx(2 / 8) and px.distinct_count == 6
    assert (px.min, px.max) == (-3.25, 99.0) and px.top_values == []
    qty = prof["qty"]
    assert (qty.kind, qty.min, qty.max, qty.distinct_count, qty.null_share) == ("number", 1, 9, 7, 0.0)

    ccy = prof["ccy"]
    assert ccy.kind == "text" and ccy.distinct_count == 3 and ccy.null_share == pytest.approx(1 / 8)
    assert ccy.top_values == [("USD", 4), ("EUR", 2), ("GBP", 1)]  # most frequent first, NULL excluded
    assert ccy.min is None and ccy.max is None  # text min/max are not reported

    assert (prof["trade_dt"].kind, prof["trade_dt"].min, prof["trade_dt"].max) == (
        "date", "2023-12-29", "2024-03-01")
    assert (prof["booked"].kind, prof["booked"].min) == ("date", "2023-12-29 16:00:00")

    note = prof["note"]  # 8 distinct > low_cardinality=5: no GROUP BY
    assert note.kind == "text" and note.distinct_count == 8 and note.top_values == []
    raw = prof["raw"]  # BLOB: only nulls counted
    assert raw.kind == "other" and raw.distinct_count is None and raw.null_share == pytest.approx(7 / 8)
    empty = prof["empty_dt"]  # all NULL: kind from the declared type
    assert empty.kind == "date" and empty.null_share == 1.0 and empty.min is None


def test_top_n_caps_values_and_empty_table(db: Database) -> None:
    tables = _tables(db)
    assert profile_table(db, tables["trades"], top_n=2)["ccy"].top_values == [("USD", 4), ("EUR", 2)]
    empty = profile_table(db, tables["empty_tbl"])
    assert empty["a"] == ColumnProfile(kind="number", row_count=0, null_share=0.0, distinct_count=0)
    assert empty["b"].top_values == []


def test_few_statements_through_the_guarded_path(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    original = db.run_query

    def spy(sql: str, *, row_cap: int | None = None) -> QueryResult:
        seen.append(sql)
        return original(sql, row_cap=row_cap)

    monkeypatch.setattr(db, "run_query", spy)
    table = _tables(db)["trades"]
    profile_table(db, table, low_cardinality=5)
    # the row count, one aggregate, one GROUP BY (ccy is the only low-cardinality text column)
    assert len(seen) == 3
    assert seen[0] == 'SELECT COUNT(*) FROM "trades"' and seen[1].startswith("SELECT COUNT(*), COUNT(")
    assert "GROUP BY" in seen[2] and "LIMIT" not in seen[1]


def test_quoted_identifiers(db: Database) -> None:
    table = _tables(db)["Order Details"]
    prof = profile_table(db, table)
    assert prof["select"].top_values == [("a", 2), ("b", 1)]
    assert prof["Detail Id"].max == 3
    assert '"Order Details"' in aggregate_query(table, "sqlite")
    oracle = top_values_query(table, "select", 3, "oracle")
    assert '"select"' in oracle and "FETCH FIRST 3 ROWS ONLY" in oracle


def test_failure_returns_empty() -> None:
    class Broken:
        dialect = "sqlite"

        def run_query(self, sql: str, *, row_cap: int | None = None) -> QueryResult:
            return QueryResult(False, sql, error="Query timed out")

    table = TableInfo("t", [ColumnInfo("a", "INT")])
    assert profile_table(Broken(), table) == {}  # type: ignore[arg-type]


def test_read_schema_profile_and_hints(db: Database) -> None:
    tables = {t.name: t for t in read_schema(db, sample_rows=2, profile=True)}
    trades = tables["trades"]
    assert all(c.profile is not None for c in trades.columns)
    assert all(c.profile is None for c in _tables(db)["trades"].columns)  # profile=False: none
    ccy = trades.column("ccy")
    assert ccy is not None and profile_hint(ccy) == "12% null; 3 distinct: 'USD','EUR','GBP'"
    doc = schema_document(trades, "sqlite")
    assert "trade_dt TEXT, -- 2023-12-29..2024-03-01" in doc
    assert "px REAL, -- 25% null" in doc
    assert "note TEXT," in doc and "'first'" not in doc.split("/*")[0]  # unique values: no value list
    assert "-- " not in schema_document(trades, "sqlite", profile_hints=False).split("/*")[0]


def test_hint_keeps_human_comment_first() -> None:
    col = ColumnInfo("ccy", "TEXT", comment="Trading currency.",
                     profile=ColumnProfile(kind="text", row_count=10, distinct_count=9,
                                           top_values=[("USD", 5), ("O'K", 2)]))
    doc = schema_document(TableInfo("t", [col]), "sqlite")
    assert "ccy TEXT -- Trading currency. | 9 distinct: 'USD','O''K'..." in doc
