"""A negated having answered on one table becomes the values EXCEPT the excluded ones (rewrites.negated_values)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from rewrites.inputs import RewriteInputs
from rewrites.negated_values import HAVE_NOT, fix_negated_values
from rewrites.pipeline import run_phase

QUESTION = "Show all publishers which do not have a book in 1989."
ROW_FILTER = "SELECT publisher FROM book_club WHERE year <> 1989"


@pytest.fixture
def db(tmp_path: Path) -> Database:
    path = tmp_path / "books.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE book_club (id INTEGER PRIMARY KEY, title TEXT, publisher TEXT, year INTEGER, members INTEGER);
        INSERT INTO book_club VALUES (1, 'A', 'Alpha', 1989, 50), (2, 'B', 'Alpha', 1990, 150),
                                     (3, 'C', 'Beta', 1991, 80), (4, 'D', 'Gamma', 1989, 90),
                                     (5, 'E', 'Beta', 1992, 60);
    """)
    con.commit()
    con.close()
    return Database(f"sqlite:///{path}")


@pytest.mark.parametrize(("question", "expected"), [
    (QUESTION, True), ("Cities without a branch", True), ("Which clubs never had a member?", True),
    ("Owners who don't own a dog", True), ("Nominees of musicals with an award that is not the Tony", False),
    ("Years of competitions that are not of type tournament", False),
])
def test_a_negated_having_is_recognised(question: str, expected: bool) -> None:
    assert bool(HAVE_NOT.search(question)) is expected


def test_the_row_filter_becomes_except_and_returns_what_the_question_meant(db: Database) -> None:
    fixed = fix_negated_values(ROW_FILTER, "sqlite", QUESTION, db)
    assert fixed == ("SELECT publisher FROM book_club EXCEPT SELECT publisher FROM book_club WHERE year = 1989")
    assert sorted(db.run_query(ROW_FILTER).rows) == [("Alpha",), ("Beta",), ("Beta",)]  # Alpha has a 1989 book
    assert db.run_query(fixed).rows == [("Beta",)]


def test_a_negated_comparison_subtracts_the_stated_rows_and_other_filters_stay(db: Database) -> None:
    sql = "SELECT DISTINCT publisher FROM book_club WHERE members <= 100 AND year > 1980 ORDER BY publisher"
    fixed = fix_negated_values(sql, "sqlite", "Publishers without a book having more than 100 members", db)
    assert fixed == ("SELECT publisher FROM book_club WHERE year > 1980 EXCEPT SELECT publisher FROM book_club "
                     "WHERE members > 100 ORDER BY publisher")
    assert db.run_query(fixed).rows == [("Beta",), ("Gamma",)]


@pytest.mark.parametrize(("sql", "question"), [
    (ROW_FILTER, "Show the publishers of books that are not from 1989."),  # a negated attribute
    ("SELECT title FROM book_club WHERE year <> 1989", QUESTION),  # titles do not repeat: the filter is right
    ("SELECT publisher FROM book_club WHERE year <> 1989 AND members <> 50", QUESTION),  # two to choose from
    ("SELECT publisher FROM book_club WHERE members <= 30", "Publishers without a book having more than 100 members"),
    ("SELECT publisher, COUNT(*) FROM book_club WHERE year <> 1989 GROUP BY publisher", QUESTION),
    ("SELECT publisher FROM book_club JOIN book_club AS b ON b.id = book_club.id WHERE book_club.year <> 1989",
     QUESTION),
    ("SELECT publisher FROM book_club WHERE year <> (SELECT MAX(year) FROM book_club)", QUESTION),
    ("SELECT publisher FROM missing_table WHERE year <> 1989", QUESTION),  # the probe fails: left alone
    ("SELEC ((", QUESTION),
])
def test_other_queries_are_left_alone(db: Database, sql: str, question: str) -> None:
    assert fix_negated_values(sql, "sqlite", question, db) is None


def test_the_pipeline_runs_the_step(db: Database) -> None:
    sql, traces = run_phase("candidate", ROW_FILTER, RewriteInputs(dialect="sqlite", question=QUESTION, db=db))
    assert "fix_negated_values" in [t.step for t in traces if t.fired]
    assert db.run_query(sql).rows == [("Beta",)]
