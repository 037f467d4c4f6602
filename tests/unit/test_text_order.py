"""Numbers and dates stored as text, ordered or compared alphabetically: which columns, which SQL, the note."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from database.connection import Database
from tools import number_ranges, text_order
from tools.text_order import dates_as_text, numbers_as_text, ordered_columns, stored_as_text, text_order_notes


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Database:
    """``wrestler``: days_held as text of 1-3 digits, reign as text of equal length, a real integer, a name, a
    date written month first and one written ISO."""
    monkeypatch.setattr(text_order, "_SEEN", {})
    monkeypatch.setattr(number_ranges, "_COLUMNS", {})
    path = tmp_path / "w.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE wrestler (id INTEGER PRIMARY KEY, name TEXT, days_held TEXT, reign TEXT, age INT, "
                     "won TEXT, iso TEXT)")
        conn.executemany("INSERT INTO wrestler VALUES (?, ?, ?, ?, ?, ?, ?)",
                         [(1, "Ann", "9", "01", 30, "8/21/2015", "2015-08-21"),
                          (2, "Bo", "10", "02", 41, "12/1/2014", "2014-12-01"),
                          (3, "Cy", "250", "03", 25, "1/5/2016", "2016-01-05")])
    conn.close()
    return Database(f"sqlite:///{path}")


def test_the_text_order_differs_only_for_numbers_of_several_lengths_and_non_iso_dates(db: Database) -> None:
    assert db.run_query("SELECT MAX(days_held) FROM wrestler", row_cap=1).rows == [("9",)]  # the failure itself
    assert stored_as_text(db, "wrestler", "days_held") == "numbers"
    assert stored_as_text(db, "wrestler", "reign") is None  # '01'..'03': the text order is the numeric one
    assert stored_as_text(db, "wrestler", "age") is None  # stored as numbers
    assert stored_as_text(db, "wrestler", "name") is None and stored_as_text(db, "wrestler", "missing") is None
    assert stored_as_text(db, "wrestler", "won") == "dates" and stored_as_text(db, "wrestler", "iso") is None
    assert numbers_as_text(["-5", "3"]) and not numbers_as_text(["10", "20"]) and not numbers_as_text([1, 22])
    for dates in (["8/21/2015 17:03", "12/1/2014 9:00"], ["06.10.1976", "10.11.1972"],
                  ["18 February 1992", "9 July 1992"], ["May 26, 1986", "Sept. 1, 1990"]):
        assert dates_as_text(dates), dates
    assert not dates_as_text(["2015-08-21", "2014-12-01"]) and not dates_as_text(["May", "June"])


@pytest.mark.parametrize(("sql", "noted"), [
    ("SELECT name FROM wrestler ORDER BY days_held DESC LIMIT 1", True),
    ("SELECT MAX(w.days_held) FROM wrestler AS w", True),
    ("SELECT name FROM wrestler WHERE days_held > 100", True),
    ("SELECT name FROM wrestler WHERE days_held BETWEEN 5 AND 300", True),
    ("SELECT name FROM wrestler ORDER BY CAST(days_held AS INTEGER) DESC", False),
    ("SELECT name FROM wrestler WHERE days_held = '10'", False),
    ("SELECT name, days_held FROM wrestler", False),
    ("SELECT name FROM wrestler ORDER BY reign, age", False),
    ("SELECT name FROM wrestler ORDER BY", False),  # does not parse
    ("SELECT name FROM wrestler ORDER BY iso DESC", False),
])
def test_a_note_for_each_column_ordered_or_compared_as_text(db: Database, sql: str, noted: bool) -> None:
    notes = text_order_notes(db, sql)
    assert bool(notes) is noted
    if noted:
        assert notes == ["wrestler.days_held stores numbers as text: it is ordered and compared alphabetically "
                         "('9' after '10'); CAST it to a number for the numeric order"]


def test_ordered_columns_resolve_aliases_and_skip_ambiguous_ones() -> None:
    columns = {"a": {"x", "k"}, "b": {"x", "k", "y"}}
    sql = "SELECT MIN(t.x) FROM a AS t JOIN b ON a.k = b.k WHERE y >= 3 ORDER BY x"
    assert ordered_columns(sql, "sqlite", columns) == [("a", "x"), ("b", "y")]  # bare x: in both tables, skipped


def test_the_answer_carries_the_note(db: Database, tmp_path: Path, embedding_function: Any) -> None:
    from agent.runner import ask, build_deps
    from core.settings import Settings
    from core.settings_candidates import CandidateSpec
    from retrieval.indexing import index_database
    from retrieval.store import ChromaStore
    from tests.support.scripted_model import ScriptedChatModel

    settings = Settings(database_url=db.url, state_dir=tmp_path / "state", local_llm={"auto_start": False},
                        retrieval={"chroma_path": tmp_path / "chroma"},
                        generation={"candidates_local": CandidateSpec.parse_list("direct,plain")})
    store = ChromaStore(tmp_path / "chroma", embedding_function)
    index_database(db, store, settings, progress=False)
    sql = "SELECT name FROM wrestler ORDER BY days_held DESC LIMIT 1"
    models = {"planner": ScriptedChatModel(replies=[{"i": 0}]),
              "generator": ScriptedChatModel(script=lambda messages: {"sql": sql}),
              "organizer": ScriptedChatModel(replies=[{"text": "Ann held it longest."}])}
    out = ask(build_deps(settings, llm_overrides=models, store=store), "Who held the title for the most days?")
    assert out.status == "ok" and out.rows == [["Ann"]]  # '9' sorts after '250' as text: the failure the note names
    assert out.text_order == [text_order_notes(db, sql)[0]]


def test_a_date_written_month_first_gets_its_own_note(db: Database) -> None:
    assert text_order_notes(db, "SELECT name FROM wrestler WHERE won > '6/1/2015' ORDER BY won") == [
        "wrestler.won stores dates as text written like '8/21/2015': it is ordered and compared alphabetically, "
        "not by date"]
