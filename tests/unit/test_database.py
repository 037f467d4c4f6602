"""Database: read-only connections, clear errors, row cap, timeout and thread safety on real SQLite files."""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import database.connection as database_module
from core.settings import Settings
from database.connection import Database
from database.guard import GuardResult
from database.results import QueryResult, format_cell, to_jsonable

LONG_QUERY = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
)


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    """SQLite file ``shop.sqlite``: items(id, name, price, added) with 50 rows, blobs(id, data)."""
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, added DATE)")
        conn.executemany(
            "INSERT INTO items VALUES (?, ?, ?, ?)",
            [(i, f"item {i}", i * 1.5, f"2024-01-{i % 28 + 1:02d}") for i in range(1, 51)],
        )
        conn.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB)")
        conn.execute("INSERT INTO blobs VALUES (1, x'00ff10')")
    conn.close()
    return path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_basic_query(db_file: Path) -> None:
    db = Database(f"sqlite:///{db_file}")
    result = db.run_query("SELECT id, name FROM items WHERE id <= 3 ORDER BY id;")
    assert result.ok and result.error is None
    assert result.sql == "SELECT id, name FROM items WHERE id <= 3 ORDER BY id"
    assert result.columns == ["id", "name"]
    assert result.rows == [(1, "item 1"), (2, "item 2"), (3, "item 3")]
    assert not result.truncated and result.elapsed_s >= 0
    frame = result.to_dataframe()
    assert list(frame.columns) == ["id", "name"] and len(frame) == 3
    assert result.preview(2).splitlines() == ["id | name", "1 | item 1", "2 | item 2", "... 1 more; 3 row(s)"]


def test_properties_and_key(db_file: Path) -> None:
    db = Database(f"sqlite:///{db_file}")
    assert db.dialect == "sqlite" and db.key == "shop" and db.sqlite_path == db_file.resolve()
    assert db.url == f"sqlite:///{db_file}"
    pg = Database("postgresql+psycopg2://user:secret@db.example.com:5432/sales-2024")
    assert pg.dialect == "postgres" and pg.key == "postgres_db_example_com_sales_2024"
    assert "secret" not in repr(pg)
    ora = Database("oracle+oracledb://scott:tiger@orahost:1521/?service_name=FREEPDB1")
    assert ora.dialect == "oracle" and ora.key == "oracle_orahost_FREEPDB1"
    with pytest.raises(ValueError):
        Database("sqlite://")


def test_from_settings(db_file: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{db_file}", row_cap=7, query_timeout_s=3.0)
    db = Database.from_settings(settings)
    assert (db.row_cap, db.timeout_s, db.key) == (7, 3.0, "shop")
    result = db.run_query("SELECT * FROM items")
    assert len(result.rows) == 7 and result.truncated


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM items",
        "UPDATE items SET name = 'x'",
        "INSERT INTO items (name) VALUES ('x')",
        "CREATE TABLE hacked (a INTEGER)",
        "DROP TABLE items",
        "CREATE INDEX ix ON items (name)",
    ],
)
def test_read_only_even_without_guard(db_file: Path, monkeypatch: pytest.MonkeyPatch, sql: str) -> None:
    monkeypatch.setattr(database_module, "guard_sql", lambda s, d: GuardResult(True, s, None))
    before = _sha256(db_file)
    result = Database(f"sqlite:///{db_file}").run_query(sql)
    assert not result.ok
    assert "readonly" in (result.error or "").lower()
    assert _sha256(db_file) == before
    assert sorted(p.name for p in db_file.parent.iterdir()) == ["shop.sqlite"]


def test_attach_blocked_without_guard(db_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database_module, "guard_sql", lambda s, d: GuardResult(True, s, None))
    target = db_file.parent / "new.sqlite"
    result = Database(f"sqlite:///{db_file}").run_query(f"ATTACH DATABASE 'file:{target}?mode=rwc' AS x")
    assert not result.ok and result.error
    assert not target.exists()


def test_multiple_statements_blocked_without_guard(db_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database_module, "guard_sql", lambda s, d: GuardResult(True, s, None))
    before = _sha256(db_file)
    result = Database(f"sqlite:///{db_file}").run_query("SELECT 1; DELETE FROM items")
    assert not result.ok
    assert _sha256(db_file) == before


def test_missing_file_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "nope" / "missing.sqlite"
    db = Database(f"sqlite:///{path}")
    result = db.run_query("SELECT 1")
    assert not result.ok
    assert result.error == f"Database file not found: {path}"
    assert not path.exists() and not path.parent.exists()
    assert db.run_query("SELECT 1").error == result.error


def test_guard_rejection_is_a_value(db_file: Path) -> None:
    result = Database(f"sqlite:///{db_file}").run_query("DROP TABLE items")
    assert isinstance(result, QueryResult) and not result.ok
    assert result.error == "Only read-only SELECT statements are allowed; found DROP."
    assert result.preview().startswith("ERROR: ")
    assert result.to_dataframe().empty


def test_database_error_message(db_file: Path) -> None:
    result = Database(f"sqlite:///{db_file}").run_query("SELECT no_such_column FROM items")
    assert not result.ok and "no such column" in (result.error or "")


def test_row_cap(db_file: Path) -> None:
    db = Database(f"sqlite:///{db_file}", row_cap=20)
    capped = db.run_query("SELECT id FROM items ORDER BY id")
    assert len(capped.rows) == 20 and capped.truncated
    assert capped.rows[-1] == (20,)
    exact = db.run_query("SELECT id FROM items", row_cap=50)
    assert len(exact.rows) == 50 and not exact.truncated
    small = db.run_query("SELECT id FROM items", row_cap=5)
    assert len(small.rows) == 5 and small.truncated
    assert "truncated" in small.preview()


def test_timeout_interrupts_long_query(db_file: Path) -> None:
    db = Database(f"sqlite:///{db_file}", timeout_s=0.3)
    result = db.run_query(LONG_QUERY)
    assert not result.ok
    assert "timed out" in (result.error or "")
    assert result.elapsed_s < 5
    # the pooled connection is disarmed afterwards and keeps working
    for _ in range(3):
        assert db.run_query("SELECT count(*) FROM items").rows == [(50,)]


def test_concurrent_queries(db_file: Path) -> None:
    db = Database(f"sqlite:///{db_file}", timeout_s=0.5)

    def one(i: int) -> QueryResult:
        if i % 10 == 0:
            return db.run_query(LONG_QUERY)
        return db.run_query(f"SELECT id, name FROM items WHERE id = {i % 50 + 1}")

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(one, range(60)))
    for i, result in enumerate(results):
        if i % 10 == 0:
            assert not result.ok and "timed out" in (result.error or "")
        else:
            assert result.ok, result.error
            assert result.rows == [(i % 50 + 1, f"item {i % 50 + 1}")]


def test_json_friendly_values(db_file: Path) -> None:
    result = Database(f"sqlite:///{db_file}").run_query("SELECT data FROM blobs")
    assert result.rows == [("00ff10",)]
    assert to_jsonable(decimal.Decimal("12.50")) == 12.5
    assert to_jsonable(decimal.Decimal("7")) == 7
    assert to_jsonable(dt.datetime(2024, 5, 1, 13, 30)) == "2024-05-01 13:30:00"
    assert to_jsonable(dt.date(2024, 5, 1)) == "2024-05-01"
    assert format_cell(None) == "NULL"
    assert format_cell(523.0600000000003) == "523.06"
    assert len(format_cell("x" * 100)) == 40
