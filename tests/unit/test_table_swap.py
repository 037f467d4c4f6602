"""A table lacking the columns read from it, swapped for the one table that has them all (rewrites.table_swap)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.settings import RewriteSettings
from database.connection import Database
from retrieval.hybrid import TableCatalog
from rewrites.inputs import RewriteInputs
from rewrites.pipeline import run_phase
from rewrites.table_swap import swap_lacking_tables

COLUMNS = {"t_01": {"albm_id", "ttl", "artst_id"}, "t_10": {"plylst_id", "trck_id"},
           "trck": {"trck_id", "nm", "albm_id", "md_typ_id"}, "inv_line": {"inv_line_id", "trck_id", "inv_id"},
           "plylst": {"plylst_id", "nm"}}
TABLES = ["t_01", "t_10", "TRCK", "INV_LINE", "PLYLST"]


@pytest.mark.parametrize(("sql", "fixed"), [
    ("SELECT t_01.TTL, COUNT(t_10.TRCK_ID) FROM t_01 JOIN t_10 ON t_01.ALBM_ID = t_10.ALBM_ID GROUP BY t_01.TTL",
     "SELECT t_01.TTL, COUNT(TRCK.TRCK_ID) FROM t_01 JOIN TRCK ON t_01.ALBM_ID = TRCK.ALBM_ID GROUP BY t_01.TTL"),
    # through an alias: the alias stays
    ("SELECT a.TTL, COUNT(*) FROM t_01 AS a JOIN t_10 AS b ON a.ALBM_ID = b.ALBM_ID GROUP BY a.TTL",
     "SELECT a.TTL, COUNT(*) FROM t_01 AS a JOIN TRCK AS b ON a.ALBM_ID = b.ALBM_ID GROUP BY a.TTL"),
])
def test_the_one_table_with_every_column_read_takes_the_place(sql: str, fixed: str) -> None:
    assert swap_lacking_tables(sql, "sqlite", COLUMNS, TABLES) == fixed


@pytest.mark.parametrize("sql", [
    "SELECT t_01.TTL FROM t_01 JOIN t_10 ON t_01.ARTST_ID = t_10.PLYLST_ID",  # every column exists
    "SELECT t_10.NM FROM t_10",  # TRCK and PLYLST both have NM
    "SELECT t_10.NOTHING FROM t_10",  # nobody has it
    # PLYLST_ID, unqualified, only resolved through t_10
    "SELECT t_01.TTL FROM t_01 JOIN t_10 ON t_01.ALBM_ID = t_10.ALBM_ID WHERE PLYLST_ID = 3",
    # read from a nested SELECT (correlated)
    "SELECT t_10.TRCK_ID FROM t_10 WHERE EXISTS (SELECT 1 FROM t_01 WHERE t_01.ALBM_ID = t_10.ALBM_ID)",
    "SELECT x FROM (SELECT t_10.ALBM_ID AS x FROM t_10) AS d JOIN t_01 ON 1 = 1",  # a derived table
    "SELEC broken ((",
])
def test_left_alone(sql: str) -> None:
    assert swap_lacking_tables(sql, "sqlite", COLUMNS, TABLES) is None


def test_a_swapped_in_name_is_quoted_outside_sqlite() -> None:
    out = swap_lacking_tables("SELECT COUNT(t_10.trck_id) FROM t_10 WHERE t_10.albm_id = 1", "postgres", COLUMNS,
                              TABLES)
    assert out == 'SELECT COUNT("TRCK".trck_id) FROM "TRCK" WHERE "TRCK".albm_id = 1'


def test_the_pipeline_swaps_before_the_dry_run_and_the_switch_turns_it_off(tmp_path: Path) -> None:
    path = tmp_path / "music.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE t_01 (ALBM_ID INTEGER PRIMARY KEY, TTL TEXT)")
        con.execute("CREATE TABLE TRCK (TRCK_ID INTEGER PRIMARY KEY, ALBM_ID INTEGER REFERENCES t_01 (ALBM_ID))")
        con.execute("CREATE TABLE t_10 (PLYLST_ID INTEGER, TRCK_ID INTEGER REFERENCES TRCK (TRCK_ID))")
        con.executemany("INSERT INTO t_01 VALUES (?, ?)", [(1, "Let There Be Rock"), (2, "Big Ones")])
        con.executemany("INSERT INTO TRCK VALUES (?, ?)", [(1, 1), (2, 1), (3, 2)])
    db = Database(f"sqlite:///{path}")
    catalog = TableCatalog(db_key="music", snapshot=None, names=["t_01", "TRCK", "t_10"], descriptions={},
                           schemas={}, columns={"t_01": ["ALBM_ID", "TTL"], "TRCK": ["TRCK_ID", "ALBM_ID"],
                                                "t_10": ["PLYLST_ID", "TRCK_ID"]})
    sql = ("SELECT t_01.TTL, COUNT(t_10.TRCK_ID) FROM t_01 JOIN t_10 ON t_01.ALBM_ID = t_10.ALBM_ID "
           "GROUP BY t_01.TTL ORDER BY t_01.TTL")
    assert not db.run_query(sql).ok
    out, traces = run_phase("candidate", sql, RewriteInputs(dialect="sqlite", catalog=catalog, db=db))
    assert db.run_query(out).rows == [("Big Ones", 1), ("Let There Be Rock", 2)]
    assert any(t.step == "swap_lacking_tables" and t.fired for t in traces)
    off = RewriteSettings(swap_lacking_tables=False)
    out, _ = run_phase("candidate", sql, RewriteInputs(dialect="sqlite", catalog=catalog, db=db, switches=off))
    assert not db.run_query(out).ok
