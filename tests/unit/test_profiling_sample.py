"""Tables too large to sort whole: distinct counts from a sample, ranges and values still from the whole table.

Real SQLite in a temp dir; the sample size is lowered to 20 rows so a 60-row table takes the path a table of
millions takes with the default, and query timeouts are simulated by failing the statements a timeout would stop.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from database.connection import Database
from database.profiling import SAMPLE_ROWS, profile_table, retry_sample, sample_of, spread_step
from database.results import QueryResult
from database.schema_reader import read_schema
from database.schema_types import TableInfo
from retrieval import opaque_hints as hints_module
from retrieval.onboarding.joins import overlap_query
from retrieval.onboarding.profile import is_candidate_key, summarise
from retrieval.value_entries import read_entries

SAMPLE = 20


@pytest.fixture
def db(tmp_path: Path) -> Database:
    """``trades``: 60 rows; desk 'EQ'/'FX' in the first 50 rows, 'CMD' only after; px 1..60; c7 an opaque code."""
    path = tmp_path / "big.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE trades (trade_id INTEGER PRIMARY KEY, desk TEXT, px REAL, note TEXT, c7 TEXT)")
        conn.executemany("INSERT INTO trades VALUES (?, ?, ?, ?, ?)",
                         [(i, ("EQ", "FX")[i % 2] if i <= 50 else "CMD", float(i), f"note {i}",
                           "K1" if i <= 50 else "LATE") for i in range(1, 61)])
    conn.close()
    return Database(f"sqlite:///{path}")


def _table(db: Database) -> TableInfo:
    return next(t for t in read_schema(db, sample_rows=0) if t.name == "trades")


def _failing(db: Database, monkeypatch: pytest.MonkeyPatch, fails: Callable[[str], bool]) -> list[str]:
    """Make ``db.run_query`` fail ("timed out") for the statements ``fails`` picks; returns every statement."""
    seen: list[str] = []
    original = db.run_query

    def run(sql: str, *, row_cap: int | None = None) -> QueryResult:
        seen.append(sql)
        if fails(sql):
            return QueryResult(False, sql, error="Query timed out after 15 s (interrupted)")
        return original(sql, row_cap=row_cap)

    monkeypatch.setattr(db, "run_query", run)
    return seen


def _whole_table(sql: str) -> bool:
    return "LIMIT" not in sql


def test_the_default_sample_is_large_and_the_sample_is_the_first_rows() -> None:
    assert SAMPLE_ROWS >= 100_000
    assert sample_of("t", 5).sql(dialect="sqlite") == '(SELECT * FROM "t" LIMIT 5) AS profiled'


def test_a_small_table_is_profiled_whole(db: Database) -> None:
    prof = profile_table(db, _table(db), sample_rows=100)
    assert all(p.distinct_sample is None for p in prof.values())
    assert prof["desk"].distinct_count == 3 and prof["note"].distinct_count == 60


def test_a_large_table_counts_distinct_values_in_the_sample_and_the_rest_over_the_whole_table(db: Database) -> None:
    prof = profile_table(db, _table(db), sample_rows=SAMPLE, low_cardinality=5)
    assert all(p.distinct_sample == SAMPLE and p.row_count == 60 for p in prof.values())
    assert prof["note"].distinct_count == SAMPLE  # a lower bound: 60 in the table
    assert (prof["px"].min, prof["px"].max) == (1.0, 60.0)  # ranges cover every row
    assert prof["desk"].distinct_count == 3  # every third row: 'CMD' of the last ten rows is in the sample
    assert dict(prof["desk"].top_values) == {"EQ": 25, "FX": 25, "CMD": 10}  # counted over the whole table


def test_a_whole_table_aggregate_that_times_out_falls_back_to_the_sample(db: Database,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _failing(db, monkeypatch, lambda sql: "COUNT(DISTINCT" in sql and _whole_table(sql))
    prof = profile_table(db, _table(db), sample_rows=100)  # small enough to be read whole, but too slow
    assert any("COUNT(DISTINCT" in s and "LIMIT 1000" in s for s in seen)  # retry_sample: a tenth, at least 1,000
    assert prof["note"].distinct_count == 60 and prof["note"].distinct_sample == 60  # the rows the sample held
    assert prof["px"].max == 60.0
    assert retry_sample(150_000) == 15_000 and retry_sample(60) == 1_000


def test_without_any_whole_table_statement_ranges_stay_unknown(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    _failing(db, monkeypatch, lambda sql: "MIN(" in sql and _whole_table(sql))
    prof = profile_table(db, _table(db), sample_rows=SAMPLE, low_cardinality=5)
    assert prof["px"].kind == "number" and prof["px"].min is None and prof["px"].max is None  # a sample's is too narrow
    assert prof["px"].row_count == 60  # COUNT(*) still answered
    _failing(db, monkeypatch, lambda sql: True)
    assert profile_table(db, _table(db), sample_rows=SAMPLE) == {}


def test_candidate_keys_of_a_sampled_table(db: Database) -> None:
    table = _table(db)
    for column in table.columns:
        column.profile = profile_table(db, table, sample_rows=SAMPLE).get(column.name)
    summary = summarise(table)
    assert summary["rows"] == 60 and summary["columns"]["note"]["distinct_sample"] == SAMPLE
    assert "note" in summary["keys"] and "desk" not in summary["keys"]  # every sampled row distinct
    assert not is_candidate_key({"null_share": 0, "distinct": 19, "distinct_sample": 20, "kind": "text"}, 60)


def test_the_value_index_reads_values_past_the_sample_and_skips_columns_with_too_many(db: Database) -> None:
    entries = read_entries(db, _table(db), (), max_distinct=30, sample_rows=SAMPLE)
    desks = {e.value for e in entries if e.column == "desk"}
    assert desks == {"EQ", "FX", "CMD"} and all(e.rows == 60 for e in entries)
    assert not any(e.column == "note" for e in entries)  # 20 in the sample, 60 (over 30) in the table
    assert all(not e.siblings for e in entries)  # unique in a sample is not unique


def test_the_value_index_groups_the_sample_when_the_table_does_not_group_in_time(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    _failing(db, monkeypatch, lambda sql: "GROUP BY" in sql and _whole_table(sql))
    desks = {e.value for e in read_entries(db, _table(db), (), sample_rows=SAMPLE) if e.column == "desk"}
    assert desks == {"EQ", "FX", "CMD"}  # 'CMD' only in the last rows: the sample is spread over the table


def test_opaque_hints_read_the_sample_when_the_table_does_not_group_in_time(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hints_module, "SAMPLE_ROWS", SAMPLE)
    monkeypatch.setattr(hints_module, "_CACHE", {})
    whole = hints_module.opaque_hints(db, _table(db))
    assert "'LATE'" in whole["c7"]
    monkeypatch.setattr(hints_module, "_CACHE", {})
    _failing(db, monkeypatch, lambda sql: "GROUP BY" in sql and _whole_table(sql))
    sampled = hints_module.opaque_hints(db, _table(db))
    assert sampled["c7"].startswith("e.g. ") and "'LATE'" in sampled["c7"]  # the sample reaches the last rows


def test_the_join_overlap_reads_the_first_rows_of_the_referencing_table(db: Database) -> None:
    statement = overlap_query("trades", "trade_id", "trades", "trade_id", "sqlite", sample=SAMPLE)
    assert 'FROM (SELECT * FROM "trades" LIMIT 20) AS a LEFT JOIN "trades" b' in statement
    result = db.run_query(statement, row_cap=1)
    assert result.ok and result.rows[0] == (SAMPLE, SAMPLE)  # 20 of the 60 keys, all found
    assert "LIMIT 200000" in overlap_query("a", "x", "b", "y", "sqlite")


def test_the_value_index_retries_a_small_table_on_a_smaller_sample(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _failing(db, monkeypatch, lambda sql: "COUNT(DISTINCT" in sql and _whole_table(sql))
    desks = {e.value for e in read_entries(db, _table(db), (), sample_rows=100) if e.column == "desk"}
    assert desks == {"EQ", "FX", "CMD"}  # values still grouped over the whole table
    assert any("COUNT(DISTINCT" in s and "LIMIT 1000" in s for s in seen)


def test_a_spread_sample_takes_every_nth_row_on_sqlite_and_pages_on_postgres(db: Database, tmp_path: Path) -> None:
    assert spread_step(db, "trades", 60, 20) == 3
    assert spread_step(db, "trades", 61, 20) == 4  # never more rows than asked
    assert spread_step(db, "trades", 20, 20) is None and spread_step(db, "trades", None, 20) is None
    sql = sample_of("trades", 20, step=3).sql(dialect="sqlite")
    assert sql == '(SELECT * FROM "trades" WHERE rowid % 3 = 0 LIMIT 20) AS profiled'
    ids = [row[0] for row in db.run_query(f"SELECT trade_id FROM {sql}", row_cap=100).rows]
    assert ids == list(range(3, 61, 3))  # from the first rows to the last
    pg = sample_of("trades", 200_000, step=15, dialect="postgres").sql(dialect="postgres")
    assert pg == ('(SELECT * FROM "trades" TABLESAMPLE SYSTEM (7.3333) REPEATABLE (0) LIMIT 200000) AS profiled')
    path = tmp_path / "norowid.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE k (code TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        conn.executemany("INSERT INTO k VALUES (?, ?)", [(f"c{i:02d}", i) for i in range(60)])
    conn.close()
    norowid = Database(f"sqlite:///{path}")
    assert spread_step(norowid, "k", 60, 20) is None  # no rowid: the first rows
    table = next(t for t in read_schema(norowid, sample_rows=0) if t.name == "k")
    prof = profile_table(norowid, table, sample_rows=SAMPLE)
    assert prof["code"].distinct_count == SAMPLE and prof["code"].distinct_sample == SAMPLE


def test_the_value_index_takes_the_row_count_of_the_profile(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(db)
    profiles = profile_table(db, table, sample_rows=SAMPLE)
    for column in table.columns:
        column.profile = profiles.get(column.name)
    seen = _failing(db, monkeypatch, lambda sql: False)
    desks = {e.value for e in read_entries(db, table, (), sample_rows=SAMPLE) if e.column == "desk"}
    assert desks == {"EQ", "FX", "CMD"}
    assert 'SELECT COUNT(*) FROM "trades"' not in seen  # counted once per indexing, by the profile
