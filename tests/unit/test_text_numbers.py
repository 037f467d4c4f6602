"""Numbers stored as text, ordered or compared alphabetically: which columns, which SQL, and the note."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from database.connection import Database
from tools import number_ranges, text_numbers
from tools.text_numbers import numbers_as_text, ordered_columns, text_number_notes


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Database:
    """``wrestler``: days_held as text of 1-3 digits, reign as text of equal length, a real integer, a name."""
    monkeypatch.setattr(text_numbers, "_SEEN", {})
    monkeypatch.setattr(number_ranges, "_COLUMNS", {})
    path = tmp_path / "w.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE wrestler (id INTEGER PRIMARY KEY, name TEXT, days_held TEXT, reign TEXT, age INT)")
        conn.executemany("INSERT INTO wrestler VALUES (?, ?, ?, ?, ?)",
                         [(1, "Ann", "9", "01", 30), (2, "Bo", "10", "02", 41), (3, "Cy", "250", "03", 25)])
    conn.close()
    return Database(f"sqlite:///{path}")


def test_the_text_order_differs_only_for_numbers_of_several_lengths(db: Database) -> None:
    assert db.run_query("SELECT MAX(days_held) FROM wrestler", row_cap=1).rows == [("9",)]  # the failure itself
    assert numbers_as_text(db, "wrestler", "days_held")
    assert not numbers_as_text(db, "wrestler", "reign")  # '01'..'03': the text order is the numeric one
    assert not numbers_as_text(db, "wrestler", "age")  # stored as numbers
    assert not numbers_as_text(db, "wrestler", "name") and not numbers_as_text(db, "wrestler", "missing")


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
])
def test_a_note_for_each_column_ordered_or_compared_as_text(db: Database, sql: str, noted: bool) -> None:
    notes = text_number_notes(db, sql)
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
    assert out.text_numbers == [text_number_notes(db, sql)[0]]
