"""What an opaque table is for, said from its keys (retrieval.opaque_tables) and shown in the listings."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from database.schema_reader import read_schema
from database.schema_types import ColumnInfo, ForeignKey, TableInfo
from retrieval.opaque_hints import hinted_tables
from retrieval.opaque_tables import table_role
from tools.whole_schema import whole_schema_listing

SCHEMA = """CREATE TABLE ARTST (ARTST_ID INTEGER PRIMARY KEY, NM TEXT);
CREATE TABLE t_01 (ALBM_ID INTEGER PRIMARY KEY, TTL TEXT, ARTST_ID INTEGER REFERENCES ARTST (ARTST_ID));
CREATE TABLE TRCK (TRCK_ID INTEGER PRIMARY KEY, NM TEXT, ALBM_ID INTEGER REFERENCES t_01 (ALBM_ID));
CREATE TABLE PLYLST (PLYLST_ID INTEGER PRIMARY KEY, NM TEXT);
CREATE TABLE t_10 (PLYLST_ID INTEGER REFERENCES PLYLST (PLYLST_ID), TRCK_ID INTEGER REFERENCES TRCK (TRCK_ID),
                   PRIMARY KEY (PLYLST_ID, TRCK_ID));
CREATE TABLE t_11 (x INTEGER);"""


@pytest.fixture
def db(tmp_path: Path) -> Database:
    path = tmp_path / "music.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA)
    conn.close()
    return Database(f"sqlite:///{path}")


def _tables(db: Database) -> dict[str, TableInfo]:
    return {t.name: t for t in read_schema(db, sample_rows=0, use_enriched=False)}


def test_a_linking_table_an_entity_table_and_tables_that_need_nothing(db: Database) -> None:
    tables = _tables(db)
    every = list(tables.values())
    assert table_role(tables["t_10"], every) == "each row links PLYLST and TRCK"
    assert table_role(tables["t_01"], every) == "one row per ALBM_ID; TRCK.ALBM_ID refers to it"
    assert table_role(tables["t_11"], every) is None  # no key says anything
    assert table_role(tables["TRCK"], every) is None  # a readable name
    tables["t_01"].comment = "Albums, one row each"
    assert table_role(tables["t_01"], every) is None  # described: the description is shown


def test_a_table_with_a_key_of_its_own_is_no_link_and_long_reference_lists_are_cut() -> None:
    col = lambda name: ColumnInfo(name=name, type="INTEGER")  # noqa: E731
    t = TableInfo("t_04", [col("ID"), col("A_ID"), col("B_ID")], primary_key=["ID"],
                  foreign_keys=[ForeignKey(["A_ID"], "A", ["A_ID"]), ForeignKey(["B_ID"], "B", ["B_ID"])])
    refs = [TableInfo(f"R{i}", [col("T_ID")], foreign_keys=[ForeignKey(["T_ID"], "t_04", ["ID"])]) for i in range(5)]
    assert table_role(t, [t, *refs]) == "one row per ID; R0.T_ID, R1.T_ID, R2.T_ID and others refer to it"


def test_the_listing_shows_the_role_above_the_table_when_hints_are_on(db: Database) -> None:
    shown = {t.name: t for t in hinted_tables(db, list(_tables(db).values()))}
    assert shown["t_10"].comment == "each row links PLYLST and TRCK"
    assert _tables(db)["t_10"].comment is None  # the originals stay undescribed
    listing = whole_schema_listing(db, value_hints=True)
    assert "-- each row links PLYLST and TRCK\nCREATE TABLE t_10" in listing
    assert "links" not in whole_schema_listing(db)
