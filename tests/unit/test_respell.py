"""Table and column names spelled out by the model, pointed at the abbreviated name they stand for (rewrites.respell)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.settings import RewriteSettings
from database.connection import Database
from retrieval.hybrid import TableCatalog
from rewrites.inputs import RewriteInputs
from rewrites.pipeline import run_phase
from rewrites.respell import name_parts, respell_columns, respell_tables, spelled_alike

COLUMNS = {
    "cstmr": ["CSTMR_ID", "FRST_NM", "LST_NM", "c6"],
    "pmt": ["PMT_ID", "CSTMR_ID", "AMT_DUE", "PMT_DT"],
    "stdm": ["ID", "c2", "AVRG_ATNDNC", "TOT_ATNDNC"],
    "addr": ["ADDR_ID", "STE", "CTY", "CNTRY"],
}


def respell(sql: str, dialect: str = "sqlite") -> str:
    return respell_columns(sql, dialect, COLUMNS)


@pytest.mark.parametrize(("written", "actual"), [
    ("FIRST_NAME", "FRST_NM"), ("FIRST_NM", "FRST_NM"), ("CustomerId", "CSTMR_ID"), ("first_name", "FirstName"),
    ("AVG_ATNDNC", "AVRG_ATNDNC"), ("GRAPHICS_MODE", "GRPHCS_MODE"), ("payment_date", "PMT_DT"),
])
def test_names_spelled_alike(written: str, actual: str) -> None:
    assert spelled_alike(written, actual)


@pytest.mark.parametrize(("written", "actual"), [
    ("LAST_NAME", "c20"),  # an opaque column: nothing in its name to match
    ("NAME", "CSTMR_NM"),  # a part more: not the same name
    ("number", "NM"),  # two letters alone are no evidence
    ("RSTN_NM", "RES_NM"),  # two abbreviations, neither of the other
    ("DIRECTOR", "DIR_ID"),
])
def test_names_not_spelled_alike(written: str, actual: str) -> None:
    assert not spelled_alike(written, actual)


def test_name_parts_split_snake_and_camel_case() -> None:
    assert name_parts("GST_LST_NM") == ["gst", "lst", "nm"]
    assert name_parts("DestAirportID") == ["dest", "airport", "id"]


def test_a_qualified_name_is_respelled_in_every_clause() -> None:
    sql = ("SELECT CSTMR.CSTMR_ID, CSTMR.FIRST_NM, COUNT(*) FROM CSTMR JOIN PMT ON CSTMR.CSTMR_ID = PMT.CSTMR_ID "
           "GROUP BY CSTMR.CSTMR_ID, CSTMR.FIRST_NM")
    assert respell(sql) == sql.replace("FIRST_NM", "FRST_NM")


def test_an_unqualified_name_is_looked_up_in_the_tables_of_its_select() -> None:
    sql = "SELECT T1.c2 FROM STDM AS T1 WHERE avg_attendance > 100"
    assert respell(sql) == "SELECT T1.c2 FROM STDM AS T1 WHERE AVRG_ATNDNC > 100"
    sql = "SELECT first_name FROM PMT JOIN CSTMR ON PMT.CSTMR_ID = CSTMR.CSTMR_ID WHERE payment_date > '2020'"
    assert respell(sql) == ("SELECT FRST_NM FROM PMT JOIN CSTMR ON PMT.CSTMR_ID = CSTMR.CSTMR_ID "
                            "WHERE PMT_DT > '2020'")


@pytest.mark.parametrize("sql", [
    "SELECT CSTMR.FRST_NM FROM CSTMR",  # already right
    "SELECT STDM.STADIUM_NAME FROM STDM",  # the opaque c2 may be it, but nothing says so
    "SELECT CSTMR.AMT_DUE FROM CSTMR JOIN PMT ON CSTMR.CSTMR_ID = PMT.CSTMR_ID",  # exists: a qualifier's business
    "SELECT ADDR.CTRY FROM ADDR",  # CTY and CNTRY both spell it: ambiguous
    "SELECT COUNT(*) AS payment_count FROM PMT ORDER BY payment_count",  # an output alias
    'SELECT "FIRST_NM" FROM CSTMR',  # quoted: taken as written
    "SELECT x.FIRST_NM FROM (SELECT * FROM CSTMR) AS x",  # a derived table
    "SELECT FIRST_NM FROM CSTMR JOIN ADDR ON 1 = 1 WHERE",  # unparsable
])
def test_leaves_alone(sql: str) -> None:
    assert respell(sql) == sql


def test_outside_sqlite_a_name_in_capitals_is_quoted() -> None:
    assert respell("SELECT first_name FROM cstmr", "postgres") == 'SELECT "FRST_NM" FROM cstmr'


@pytest.fixture
def shop(tmp_path: Path) -> Database:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE CSTMR (CSTMR_ID INTEGER PRIMARY KEY, FRST_NM TEXT, c6 TEXT)")
        con.execute("INSERT INTO CSTMR VALUES (1, 'Ada', 'Lovelace')")
    return Database(f"sqlite:///{path}")


def test_the_pipeline_respells_before_the_dry_run_and_the_switch_turns_it_off(shop: Database) -> None:
    catalog = TableCatalog(db_key="shop", snapshot=None, names=["CSTMR"], descriptions={}, schemas={},
                           columns={"CSTMR": ["CSTMR_ID", "FRST_NM", "c6"]})
    sql = "SELECT FIRST_NAME FROM CSTMR"
    assert not shop.run_query(sql).ok
    out, traces = run_phase("candidate", sql, RewriteInputs(dialect="sqlite", catalog=catalog, db=shop))
    assert out == "SELECT FRST_NM FROM CSTMR"
    assert shop.run_query(out).rows == [("Ada",)]
    assert any(t.step == "respell_columns" and t.fired for t in traces)
    off = RewriteSettings(respell_columns=False)
    out, traces = run_phase("candidate", sql, RewriteInputs(dialect="sqlite", catalog=catalog, db=shop, switches=off))
    assert out == sql and not any(t.step == "respell_columns" for t in traces)


TABLES = ["ARTSTS", "t_02", "TRCKS", "CNTY_PBLC_SFTY", "CTY", "DRVRS", "DRVR_STNDNG", "CTLG_CNTNTS"]


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT ARTISTS.NM FROM ARTISTS JOIN t_02 ON ARTISTS.ID = t_02.ARTST_ID",
     "SELECT ARTSTS.NM FROM ARTSTS JOIN t_02 ON ARTSTS.ID = t_02.ARTST_ID"),  # qualifiers follow the table
    ("SELECT a.NM FROM Artists AS a", "SELECT a.NM FROM ARTSTS AS a"),  # an alias stays
    ("SELECT CTLG_ENTRY_NM FROM CTLG_CONTENTS", "SELECT CTLG_ENTRY_NM FROM CTLG_CNTNTS"),
    ("SELECT COUNT(*) FROM tracks", "SELECT COUNT(*) FROM TRCKS"),
])
def test_a_table_the_database_lacks_is_respelled(sql: str, expected: str) -> None:
    assert respell_tables(sql, "sqlite", TABLES) == expected


@pytest.mark.parametrize("sql", [
    "SELECT NM FROM CNTY",  # starts CNTY_PBLC_SFTY's name: it may mean that table, not CTY
    "SELECT FRNM FROM DRVR",  # DRVRS or DRVR_STNDNG
    "SELECT * FROM ALBUMS",  # nothing spelled alike
    "WITH artists AS (SELECT 1 AS x) SELECT x FROM artists",  # a CTE, not a table
    "SELECT NM FROM ARTSTS",  # known
    "not sql at all (",
])
def test_tables_left_alone(sql: str) -> None:
    assert respell_tables(sql, "sqlite", TABLES) == sql


def test_a_respelled_table_is_quoted_outside_sqlite() -> None:
    assert respell_tables("SELECT * FROM artists", "postgres", TABLES) == 'SELECT * FROM "ARTSTS"'


def test_the_pipeline_respells_a_table_and_its_switch_turns_it_off(shop: Database) -> None:
    catalog = TableCatalog(db_key="shop", snapshot=None, names=["CSTMR"], descriptions={}, schemas={},
                           columns={"CSTMR": ["CSTMR_ID", "FRST_NM", "c6"]})
    sql = "SELECT FIRST_NAME FROM CUSTOMER"
    out, traces = run_phase("candidate", sql, RewriteInputs(dialect="sqlite", catalog=catalog, db=shop))
    assert out == "SELECT FRST_NM FROM CSTMR"  # the table first, then its column
    assert shop.run_query(out).rows == [("Ada",)]
    assert [t.step for t in traces if t.fired][:2] == ["respell_tables", "respell_columns"]
    off = RewriteSettings(respell_tables=False)
    out, _ = run_phase("candidate", sql, RewriteInputs(dialect="sqlite", catalog=catalog, db=shop, switches=off))
    assert out == sql
