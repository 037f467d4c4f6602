"""'Youngest' and 'oldest' turn age and birth-date sorts and extremes the right way (rewrites.age_order)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from rewrites.age_order import asked_end, column_kind, fix_age_order
from rewrites.inputs import RewriteInputs
from rewrites.pipeline import run_phase


@pytest.mark.parametrize(("name", "kind"), [
    ("Age", "age"), ("STDNT_AGE", "age"), ("date_of_birth", "birth"), ("BRTH_DT", "birth"), ("DOB", "birth"),
    ("Birthday", "birth"), ("page_count", None), ("c10", None), ("average", None), ("born_state", None),
    ("BIRTH_PLACE", None), ("BRTH_ST", None),
])
def test_column_kind_reads_the_name(name: str, kind: str | None) -> None:
    assert column_kind(name) == kind


@pytest.mark.parametrize(("question", "end"), [
    ("Who is the youngest student?", ("young", True)),
    ("Name the OLDEST employee", ("old", True)),
    ("List singers from the oldest to the youngest", ("old", False)),
    ("List singers from youngest to oldest", ("young", False)),
    ("What are the ages of the youngest and the oldest?", None),
    ("Who is older than 30?", None),
])
def test_asked_end(question: str, end: tuple[str, bool] | None) -> None:
    assert asked_end(question) == end


@pytest.mark.parametrize(("sql", "question", "fixed"), [
    ("SELECT name FROM student ORDER BY age DESC LIMIT 1", "Last name of the youngest student?",
     "SELECT name FROM student ORDER BY age ASC LIMIT 1"),
    ("SELECT name FROM student ORDER BY age LIMIT 1", "Who is the oldest student?",
     "SELECT name FROM student ORDER BY age DESC LIMIT 1"),
    ("SELECT name FROM people ORDER BY birth_date LIMIT 1", "Who is the youngest person?",
     "SELECT name FROM people ORDER BY birth_date DESC LIMIT 1"),
    ("SELECT name FROM student WHERE age = (SELECT MAX(age) FROM student)", "Who is the youngest student?",
     "SELECT name FROM student WHERE age = (SELECT MIN(age) FROM student)"),
    ("SELECT name FROM people WHERE dob = (SELECT MAX(dob) FROM people)", "Who is the oldest person?",
     "SELECT name FROM people WHERE dob = (SELECT MIN(dob) FROM people)"),
    ("SELECT name, age FROM singer ORDER BY age", "Singers ordered from the oldest to the youngest",
     "SELECT name, age FROM singer ORDER BY age DESC"),
])
def test_the_direction_follows_the_superlative(sql: str, question: str, fixed: str) -> None:
    assert fix_age_order(sql, "sqlite", question) == fixed


@pytest.mark.parametrize(("sql", "question"), [
    ("SELECT name FROM student ORDER BY age LIMIT 1", "Who is the youngest student?"),  # already right
    ("SELECT name FROM student ORDER BY c10 DESC LIMIT 1", "Who is the youngest student?"),  # says nothing
    ("SELECT name FROM student ORDER BY gpa DESC LIMIT 1", "Who is the youngest student?"),  # not an age
    ("SELECT MIN(age), MAX(age) FROM student", "Ages of the youngest and the oldest student"),
    ("SELECT name FROM student ORDER BY age DESC LIMIT 1", "Who is the tallest student?"),
    # "from ... to" sets the order, never an extreme
    ("SELECT MAX(age) FROM student ORDER BY age DESC", "Ages from the oldest to the youngest"),
    ("SELEC ((", "Who is the youngest?"),
])
def test_other_queries_are_left_alone(sql: str, question: str) -> None:
    assert fix_age_order(sql, "sqlite", question) is None


def test_the_pipeline_runs_the_step(tmp_path: Path) -> None:
    path = tmp_path / "school.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE student (id INTEGER PRIMARY KEY, name TEXT, age INTEGER);
        INSERT INTO student VALUES (1, 'Ada', 19), (2, 'Bo', 23), (3, 'Cy', 21);
    """)
    con.commit()
    con.close()
    db = Database(f"sqlite:///{path}")
    inputs = RewriteInputs(dialect="sqlite", question="Give the name of the youngest student.", db=db)
    sql, traces = run_phase("candidate", "SELECT name FROM student ORDER BY age DESC LIMIT 1", inputs)
    assert "fix_age_order" in [t.step for t in traces if t.fired]
    assert db.run_query(sql).rows == [("Ada",)]
