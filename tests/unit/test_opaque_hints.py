"""Stored-value hints on opaque columns (retrieval.opaque_hints), in the whole-schema listing and the indexed documents."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from database.schema_reader import read_schema
from retrieval.opaque_hints import hinted_tables, opaque_hints, value_hint
from tools.whole_schema import whole_schema_listing

SCHEMA = """CREATE TABLE HST (HOST_ID INTEGER PRIMARY KEY, NM TEXT, c10 TEXT, c11 REAL, c12 TEXT, c13 INTEGER);
CREATE TABLE PRTY (PRTY_ID INTEGER PRIMARY KEY, PRTY_THM TEXT, c3 TEXT, c4 TEXT);
INSERT INTO HST VALUES (1, 'Austin Daye', '43', 1.85, 'secret-1', NULL), (2, 'Lloyd Daniels', '37', 1.92, 'secret-2', NULL),
                       (3, 'Kornel David', '31', 2.01, 'secret-3', NULL);
INSERT INTO PRTY VALUES (1, 'Spring', 'Hemkade 48 Zaandam', 'x'), (2, 'Club Q', 'Hemkade 48 Zaandam', 'x'),
                        (3, 'Hardcore', 'Various locations', 'x'),
                        (4, 'Fall', 'A hall whose name is far longer than thirty characters', 'x');"""


@pytest.fixture
def db(tmp_path: Path) -> Database:
    path = tmp_path / "party.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA)
    conn.close()
    return Database(f"sqlite:///{path}")


def test_numbers_give_a_range_and_other_values_their_most_frequent_examples() -> None:
    assert value_hint([43, 37, 31]) == "values 31 to 43"
    assert value_hint(["43", "37", "31.5"]) == "values 31.5 to 43"  # text that is all numbers is numeric
    assert value_hint([7]) == "always 7"
    assert value_hint(["O'Hare", "Lyon", "1999", "Nice", "Oslo"]) == "e.g. 'O''Hare', 'Lyon', '1999'"
    assert value_hint([True, False]) == "e.g. 'True', 'False'"  # booleans are not numbers
    assert value_hint(["x" * 31]) is None and value_hint([]) is None


def test_only_opaque_undocumented_non_sensitive_columns_get_a_hint(db: Database) -> None:
    hst, prty = read_schema(db, sample_rows=0, use_enriched=False)
    hints = opaque_hints(db, hst, sensitive_patterns=[r"^c12$"])
    assert hints == {"c10": "values 31 to 43", "c11": "values 1.85 to 2.01"}  # c12 sensitive, c13 all NULL
    assert opaque_hints(db, prty) == {"c3": "e.g. 'Hemkade 48 Zaandam', 'Various locations'", "c4": "e.g. 'x'"}
    hst.columns[2].comment = "Age of the host in years"  # documented: its description, not a hint
    assert "c10" not in opaque_hints(db, hst, sensitive_patterns=[r"^c12$"])


def test_hinted_tables_are_copies_and_the_originals_stay_undocumented(db: Database) -> None:
    tables = read_schema(db, sample_rows=0, use_enriched=False)
    shown = hinted_tables(db, tables)
    assert next(c for c in shown[0].columns if c.name == "c10").comment == "values 31 to 43"
    assert next(c for c in tables[0].columns if c.name == "c10").comment is None
    assert next(c for c in shown[0].columns if c.name == "NM").comment is None  # a readable name: unchanged


def test_the_whole_schema_listing_shows_the_hints_only_when_asked(db: Database) -> None:
    plain = whole_schema_listing(db)
    hinted = whole_schema_listing(db, value_hints=True, sensitive_patterns=(r"^c12$",))
    assert "values 31 to 43" not in plain
    assert "c10 TEXT, -- values 31 to 43" in hinted and "c3 TEXT, -- e.g. 'Hemkade 48 Zaandam'" in hinted
    assert "secret" not in hinted.split("/*")[0]  # the sensitive column's values stay out of its DDL line
    assert "NM TEXT," in hinted and "PRTY_THM TEXT," in hinted


def test_a_drafted_description_gives_way_to_the_hint_and_a_reviewed_one_replaces_it(db: Database,
                                                                                    tmp_path: Path) -> None:
    enriched = tmp_path / "party.enriched.yaml"
    enriched.write_text("version: 1\ntables:\n  HST:\n    columns:\n"
                        "      c10: {text: 'Shirt number of the host.', status: pending}\n"
                        "      c11: {text: Height in metres, status: approved}\n", encoding="utf-8")
    drafted = whole_schema_listing(db, enriched_path=enriched, use_drafts=True, value_hints=True)
    assert "c10 TEXT, -- values 31 to 43" in drafted and "Shirt number" not in drafted  # a guess: the values instead
    assert "-- Height in metres" in drafted and "values 1.85" not in drafted  # approved: the description alone
    assert "Shirt number" in whole_schema_listing(db, enriched_path=enriched, use_drafts=True)  # no hints: the draft
    tables = read_schema(db, sample_rows=0, enriched_path=enriched, use_drafts=True)
    c10 = next(c for c in tables[0].columns if c.name == "c10")
    assert c10.drafted and c10.comment == "Shirt number of the host."
    assert not next(c for c in tables[0].columns if c.name == "c11").drafted


def test_checks_treat_a_drafted_opaque_column_as_undocumented(db: Database) -> None:
    from tools.opaque_columns import documented_tables

    assert db.sqlite_path is not None
    db.sqlite_path.with_name("party.enriched.yaml").write_text(
        "version: 1\ntables:\n  HST:\n    columns:\n      c10: {text: Shirt number, status: pending}\n"
        "      NM: {text: Full name of the host, status: pending}\n      c11: {text: Height, status: edited}\n",
        encoding="utf-8")
    hst = next(t for t in documented_tables(db, use_drafts=True) if t.name == "HST")
    comments = {c.name: c.comment for c in hst.columns}
    assert comments["c10"] is None  # an opaque column's draft waits for review
    assert comments["NM"] == "Full name of the host" and comments["c11"] == "Height"
