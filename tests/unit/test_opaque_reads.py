"""What an executed query did with the columns whose names say nothing (tools.opaque_reads), on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

import pytest

from database.connection import Database
from tests.support.sqlite_case import sqlite_settings
from tools.opaque_reads import MAX_SHOWN, guessed_columns, unread_terms

SCHEMA = """CREATE TABLE HEAD (HEAD_ID INTEGER PRIMARY KEY, NM TEXT, BORN_ST TEXT, c10 REAL);
CREATE TABLE DEPT (DEPT_ID INTEGER PRIMARY KEY, NM TEXT, c3 TEXT);
CREATE TABLE PROD (PROD_ID INTEGER PRIMARY KEY, PROD_DSC TEXT, PROD_PRC REAL, c2 TEXT);
CREATE TABLE CITY (CITY_ID INTEGER PRIMARY KEY, CITY_NM TEXT, POP INTEGER);
CREATE TABLE WIDE (W_ID INTEGER PRIMARY KEY, c1 TEXT, c2 TEXT, c3 TEXT, c4 TEXT, c5 TEXT, c6 TEXT, c7 TEXT);
INSERT INTO HEAD VALUES (1, 'Tiger Woods', 'Alabama', 67), (2, 'K. J. Choi', 'California', 43);
INSERT INTO DEPT VALUES (1, 'State', '1789'), (2, 'Treasury', '1789');
INSERT INTO PROD VALUES (1, 'a good read', 9.5, 'book'), (2, 'crunchy', 3.0, 'apple');
INSERT INTO CITY VALUES (1, 'Lyon', 500000);"""
AGES = "List the name, born state and age of the heads."


@pytest.fixture()
def db(tmp_path: Path) -> Database:
    return Database.from_settings(sqlite_settings(tmp_path, SCHEMA, "reads"))


def test_guessed_columns_are_the_undocumented_opaque_columns_the_sql_reads(db: Database) -> None:
    assert guessed_columns(db, False, "SELECT NM, BORN_ST, c10 FROM HEAD ORDER BY c10") == ["HEAD.c10"]
    assert guessed_columns(db, False, "SELECT h.NM FROM HEAD AS h ORDER BY h.c10 DESC") == ["HEAD.c10"]
    # both tables named: the unqualified c3 belongs to DEPT, the only one with a c3
    assert guessed_columns(db, False, "SELECT d.c3, NM FROM DEPT AS d JOIN HEAD ON 1 = 1") == ["DEPT.c3"]
    assert guessed_columns(db, False, "SELECT NM, BORN_ST FROM HEAD") == []
    assert guessed_columns(db, False, "SELECT c10 FROM") == []  # does not parse: no finding


def test_a_word_no_readable_column_names_is_unread_when_the_sql_skips_the_opaque_columns(db: Database) -> None:
    found = unread_terms(db, False, AGES, "SELECT NM, BORN_ST FROM HEAD")
    assert found is not None and found.terms == ("age",) and found.columns == ("HEAD.c10",)
    # "name" of a product: PROD_DSC is a description, so the word is the products' opaque c2's to hold
    found = unread_terms(db, False, "Find the name of the most expensive product.",
                         "SELECT PROD_DSC FROM PROD ORDER BY PROD_PRC DESC LIMIT 1")
    assert found is not None and found.terms == ("name",) and found.columns == ("PROD.c2",)


def test_no_finding_when_an_opaque_column_is_read_or_every_word_is_named(db: Database) -> None:
    assert unread_terms(db, False, AGES, "SELECT NM, BORN_ST, c10 FROM HEAD") is None  # guessed, not unread
    assert unread_terms(db, False, "List the names of the departments.", "SELECT NM FROM DEPT") is None
    # the city table has no opaque column: nothing could hold a word no name accounts for
    assert unread_terms(db, False, "Which city has the most inhabitants?",
                        "SELECT CITY_NM FROM CITY ORDER BY POP DESC LIMIT 1") is None
    assert unread_terms(db, False, AGES, "SELECT NM FROM") is None  # does not parse


def test_the_unread_columns_listed_are_capped(db: Database) -> None:
    found = unread_terms(db, False, "Which wide rows have the largest weight?", "SELECT W_ID FROM WIDE")
    assert found is not None and found.terms == ("weight",)  # "wide rows": the table's name and a question word
    assert len(found.columns) == MAX_SHOWN and found.columns[0] == "WIDE.c1" and "WIDE.c7" not in found.columns
