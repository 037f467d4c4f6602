"""No query or statement can take the server down: guard bounds on size and nesting, result bytes and cells."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.settings import PROJECT_ROOT
from database.connection import Database
from database.guard import MAX_NESTING, guard_sql, nesting_depth

CHINOOK = PROJECT_ROOT / "data" / "chinook" / "Chinook_Sqlite.sqlite"


@pytest.mark.parametrize("sql", [
    "SELECT " + "(" * 60 + "1" + ")" * 60,
    "SELECT " + "abs(" * 60 + "1" + ")" * 60,
    "SELECT " + "(SELECT " * 60 + "1" + ")" * 60,
    "SELECT " + "CASE WHEN 1 THEN " * 60 + "1" + " END" * 60,
    "SELECT " + "NOT " * 120 + "1",
    "SELECT " + "-" * 500 + "1",
    "SELECT 1 + " + " + ".join(["1"] * 200_000),
    'SELECT "' + "x" * 100_000 + '" FROM t',
])
def test_guard_refuses_bombs_without_raising(sql: str) -> None:
    verdict = guard_sql(sql, "sqlite")
    assert not verdict.ok and verdict.error and len(verdict.error) <= 300


@pytest.mark.parametrize("n", [10, MAX_NESTING - 5])
def test_reasonable_nesting_still_parses(n: int) -> None:
    assert guard_sql("SELECT " + "abs(" * n + "1" + ")" * n, "sqlite").ok
    assert guard_sql("SELECT " + "(SELECT " * n + "1" + ")" * n, "sqlite").ok


def test_nesting_depth_counts_only_nesting() -> None:
    assert nesting_depth("SELECT a - b - c - d FROM t WHERE x = -1 AND NOT y") == 1
    assert nesting_depth("SELECT '((((((' AS x") == 0
    assert nesting_depth("SELECT CASE WHEN a THEN (1) END FROM t") == 2


def test_parenthesised_query_runs_as_the_query() -> None:
    verdict = guard_sql("(SELECT 1)", "sqlite")
    assert verdict.ok and verdict.sql == "SELECT 1"


def test_result_bytes_and_cells_are_bounded(tmp_path: Path) -> None:
    copy = tmp_path / "chinook.sqlite"
    shutil.copy(CHINOOK, copy)
    before = copy.read_bytes()
    db = Database(f"sqlite:///{copy}", max_bytes=2_000_000, max_cell_chars=1_000)
    blobs = db.run_query("SELECT randomblob(1000000) FROM Track")
    assert blobs.ok and blobs.truncated and len(blobs.rows) <= 3 and "result size limit" in (blobs.note or "")
    assert all(len(r[0]) <= 1_000 for r in blobs.rows)
    long_text = db.run_query("SELECT printf('%.*c', 50000, 'x')")
    assert long_text.ok and long_text.rows[0][0].endswith("[cut]") and "cut" in (long_text.note or "")
    too_big = db.run_query("SELECT zeroblob(20000000)")
    assert not too_big.ok and "too big" in (too_big.error or "")
    normal = db.run_query("SELECT Name FROM Genre ORDER BY GenreId LIMIT 2")
    assert normal.rows == [("Rock",), ("Jazz",)] and not normal.truncated and normal.note is None
    assert copy.read_bytes() == before


def test_big_rows_are_fetched_one_at_a_time_so_memory_stays_near_the_byte_limit(tmp_path: Path) -> None:
    """Peak Python allocations of a 10 MB-per-row bomb stay near one row plus the byte limit (tracemalloc counts
    allocations, not time: deterministic). Fetching 100 rows per batch held ~1 GB here before the limit acted."""
    import tracemalloc

    copy = tmp_path / "chinook.sqlite"
    shutil.copy(CHINOOK, copy)
    db = Database(f"sqlite:///{copy}", max_bytes=1_000_000, max_cell_chars=1_000)
    tracemalloc.start()
    try:
        bomb = db.run_query("SELECT zeroblob(9000000) FROM Track")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert bomb.ok and bomb.truncated and len(bomb.rows) == 1
    assert peak < 40_000_000, f"peak {peak:,} bytes"


def test_unknown_engine_and_non_database_file_are_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Unknown database type in URL: 'foobar'"):
        Database("foobar://x")
    text_file = tmp_path / "notes.sqlite"
    text_file.write_text("not a database")
    result = Database(f"sqlite:///{text_file}").run_query("SELECT 1")
    assert not result.ok and "Not a SQLite database file" in (result.error or "")


def test_state_dir_moves_the_chroma_folder(tmp_path: Path) -> None:
    from core.settings import Settings

    assert Settings(state_dir=tmp_path).retrieval.chroma_path == tmp_path / "chroma"
    explicit = Settings(state_dir=tmp_path, retrieval={"chroma_path": tmp_path / "elsewhere"})
    assert explicit.retrieval.chroma_path == tmp_path / "elsewhere"
