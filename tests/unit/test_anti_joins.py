"""An inner join whose key the WHERE asks to be NULL becomes the LEFT JOIN anti-join (rewrites.anti_joins)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from rewrites.anti_joins import open_anti_join
from rewrites.inputs import RewriteInputs
from rewrites.pipeline import rescued_by, run_phase


@pytest.mark.parametrize(("sql", "opened"), [
    ("SELECT s.name FROM semesters AS s JOIN enrolments AS e ON s.id = e.semester_id WHERE e.semester_id IS NULL",
     "SELECT s.name FROM semesters AS s LEFT JOIN enrolments AS e ON s.id = e.semester_id "
     "WHERE e.semester_id IS NULL"),
    # INNER JOIN spelled out, the key on the left of the ON, another condition on the kept table
    ("SELECT p.name FROM projects AS p INNER JOIN assigned AS a ON a.project = p.code "
     "WHERE a.project IS NULL AND p.budget > 10",
     "SELECT p.name FROM projects AS p LEFT JOIN assigned AS a ON a.project = p.code "
     "WHERE a.project IS NULL AND p.budget > 10"),
    # '= NULL' is never true: read as IS NULL
    ("SELECT projects.name FROM projects JOIN assigned ON projects.code = assigned.project "
     "WHERE assigned.project = NULL",
     "SELECT projects.name FROM projects LEFT JOIN assigned ON projects.code = assigned.project "
     "WHERE assigned.project IS NULL"),
    # a count of the rows without a match
    ("SELECT COUNT(*) FROM semesters AS s JOIN enrolments AS e ON s.id = e.semester_id WHERE e.semester_id IS NULL",
     "SELECT COUNT(*) FROM semesters AS s LEFT JOIN enrolments AS e ON s.id = e.semester_id "
     "WHERE e.semester_id IS NULL"),
    # each side of a set operation
    ("SELECT p.name FROM projects AS p JOIN assigned AS a ON p.code = a.project WHERE a.project IS NULL "
     "UNION SELECT name FROM archive",
     "SELECT p.name FROM projects AS p LEFT JOIN assigned AS a ON p.code = a.project WHERE a.project IS NULL "
     "UNION SELECT name FROM archive"),
])
def test_the_join_asked_to_be_null_is_opened(sql: str, opened: str) -> None:
    assert open_anti_join(sql, "sqlite") == opened


@pytest.mark.parametrize("sql", [
    # a NULL test on a column that is not the join key: rows whose value is missing, a real question
    "SELECT p.name FROM projects AS p JOIN assigned AS a ON p.code = a.project WHERE a.scientist IS NULL",
    # already an outer join
    "SELECT p.name FROM projects AS p LEFT JOIN assigned AS a ON p.code = a.project WHERE a.project IS NULL",
    # the SELECT shows the joined table's columns (NULL on every row) or every column
    "SELECT p.name, a.hours FROM projects AS p JOIN assigned AS a ON p.code = a.project WHERE a.project IS NULL",
    "SELECT * FROM projects AS p JOIN assigned AS a ON p.code = a.project WHERE a.project IS NULL",
    # another join goes through the joined table
    "SELECT p.name FROM projects AS p JOIN assigned AS a ON p.code = a.project JOIN staff AS s ON s.id = a.staff "
    "WHERE a.project IS NULL",
    # another condition reads it
    "SELECT p.name FROM projects AS p JOIN assigned AS a ON p.code = a.project WHERE a.project IS NULL "
    "AND a.hours > 3",
    # IS NULL under OR, an unqualified column, no join
    "SELECT p.name FROM projects AS p JOIN assigned AS a ON p.code = a.project WHERE a.project IS NULL OR p.x = 1",
    "SELECT p.name FROM projects AS p JOIN assigned AS a ON p.code = a.project WHERE project IS NULL",
    "SELECT name FROM projects WHERE code IS NULL",
    "not sql (",
])
def test_anything_else_is_left_alone(sql: str) -> None:
    assert open_anti_join(sql, "sqlite") is None


def test_the_rescue_answers_the_rows_without_a_match(tmp_path: Path) -> None:
    path = tmp_path / "school.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("CREATE TABLE semesters (id INTEGER PRIMARY KEY, name TEXT);"
                          "CREATE TABLE enrolments (student INTEGER, semester_id INTEGER REFERENCES semesters(id));"
                          "INSERT INTO semesters VALUES (1, 'Fall'), (2, 'Spring'), (3, 'Summer');"
                          "INSERT INTO enrolments VALUES (7, 1), (8, 1), (7, 2);")
    db = Database(f"sqlite:///{path}")
    sql = "SELECT s.name FROM semesters AS s JOIN enrolments AS e ON s.id = e.semester_id WHERE e.semester_id IS NULL"
    assert db.run_query(sql).rows == []
    inputs = RewriteInputs(dialect=db.dialect, question="Which semesters have no student enrolled?", db=db)
    fixed, traces = run_phase("rescue", sql, inputs)
    step = rescued_by(traces)
    assert step is not None and step.name == "open_anti_joins" and step.label == "anti_joined"
    assert [list(r) for r in db.run_query(fixed).rows] == [["Summer"]]
    # a count of nothing (one row of 0) is rescued the same way
    count = sql.replace("s.name", "COUNT(*)")
    fixed, _ = run_phase("rescue", count, RewriteInputs(dialect=db.dialect, question="How many semesters have no "
                                                        "student enrolled?", db=db, got_rows=True))
    assert [list(r) for r in db.run_query(fixed).rows] == [[1]]


def test_the_joined_tables_primary_key_is_never_null_either() -> None:
    sql = ("SELECT a.make FROM assets AS a JOIN fault_log AS f ON a.asset_id = f.asset_id "
           "WHERE f.entry_id IS NULL")
    assert open_anti_join(sql, "sqlite") is None  # not a join key, and no key known: a real NULL test
    assert open_anti_join(sql, "sqlite", {"fault_log": ["entry_id"]}) == sql.replace(" JOIN ", " LEFT JOIN ")
