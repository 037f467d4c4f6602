"""Set operations of names against ids become key filters (rewrites.set_keys), checked on a real SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from database.joins import join_graph
from rewrites.set_keys import fix_set_keys

COLUMNS = {"instructor": {"id", "name", "dept"}, "teaches": {"id", "course_id", "semester"},
           "highschooler": {"id", "name"}, "friend": {"student_id", "friend_id"},
           "lonely": {"id", "name"}}
GRAPH = join_graph({"instructor": [], "teaches": [("id", "instructor.id")], "highschooler": [], "lonely": [],
                    "friend": [("student_id", "highschooler.id"), ("friend_id", "highschooler.id")]})


@pytest.mark.parametrize(("sql", "fixed"), [
    ("SELECT name FROM instructor EXCEPT SELECT id FROM teaches",
     "SELECT name FROM instructor WHERE NOT id IN (SELECT id FROM teaches)"),
    ("SELECT name FROM instructor WHERE dept = 'x' EXCEPT SELECT id FROM teaches WHERE semester = 'Spring' "
     "ORDER BY name",
     "SELECT name FROM instructor WHERE dept = 'x' AND NOT id IN (SELECT id FROM teaches WHERE semester = "
     "'Spring') ORDER BY name"),
    # along the foreign key, not the name: friend.student_id stands for highschooler.id
    ("SELECT name FROM highschooler AS h EXCEPT SELECT T1.student_id FROM friend AS T1",
     "SELECT name FROM highschooler AS h WHERE NOT h.id IN (SELECT T1.student_id FROM friend AS T1)"),
    ("SELECT COUNT(*) FROM instructor INTERSECT SELECT id FROM teaches",
     "SELECT COUNT(*) FROM instructor WHERE id IN (SELECT id FROM teaches)"),
    # a same-named column without a declared key
    ("SELECT name FROM lonely EXCEPT SELECT id FROM teaches",
     "SELECT name FROM lonely WHERE NOT id IN (SELECT id FROM teaches)"),
    # nested in a derived table
    ("SELECT x FROM (SELECT name AS x FROM instructor EXCEPT SELECT id FROM teaches)",
     "SELECT x FROM (SELECT name AS x FROM instructor WHERE NOT id IN (SELECT id FROM teaches))"),
])
def test_names_against_ids_compare_the_key(sql: str, fixed: str) -> None:
    assert fix_set_keys(sql, "sqlite", COLUMNS, GRAPH) == fixed


@pytest.mark.parametrize("sql", [
    "SELECT id FROM instructor EXCEPT SELECT id FROM teaches",                   # the same column: a real difference
    "SELECT name FROM instructor EXCEPT SELECT semester FROM teaches",           # no key ties them
    "SELECT name, id FROM instructor EXCEPT SELECT id FROM teaches",             # the left side shows the key
    "SELECT * FROM instructor EXCEPT SELECT id FROM teaches",
    "SELECT name FROM instructor JOIN teaches ON instructor.id = teaches.id EXCEPT SELECT id FROM teaches",
    "SELECT dept FROM instructor GROUP BY dept EXCEPT SELECT id FROM teaches",
    "SELECT name FROM instructor EXCEPT SELECT id, semester FROM teaches",
    "SELECT name FROM instructor UNION SELECT id FROM teaches",
    "SELECT name FROM instructor",
    "SELEC ((( except",
])
def test_other_set_operations_are_left_alone(sql: str) -> None:
    assert fix_set_keys(sql, "sqlite", COLUMNS, GRAPH) is None


def test_the_filter_returns_the_rows_the_question_meant(tmp_path: Path) -> None:
    path = tmp_path / "school.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE instructor (id INTEGER PRIMARY KEY, name TEXT, dept TEXT);"
            "CREATE TABLE teaches (id INTEGER REFERENCES instructor(id), course_id INTEGER, semester TEXT);"
            "INSERT INTO instructor VALUES (1, 'Ada', 'x'), (2, 'Bo', 'x'), (3, 'Cy', 'y');"
            "INSERT INTO teaches VALUES (1, 10, 'Spring'), (3, 11, 'Fall');")
    db = Database(f"sqlite:///{path}")
    wrong = db.run_query("SELECT name FROM instructor EXCEPT SELECT id FROM teaches")
    fixed = fix_set_keys("SELECT name FROM instructor EXCEPT SELECT id FROM teaches", "sqlite", COLUMNS, GRAPH)
    assert fixed is not None
    assert sorted(wrong.rows) == [("Ada",), ("Bo",), ("Cy",)]  # names never equal ids: everyone comes back
    assert db.run_query(fixed).rows == [("Bo",)]
