"""A WHERE no row can meet is read as "both": an INTERSECT of one query per condition (rewrites.contradictions)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from rewrites.contradictions import split_contradiction
from rewrites.inputs import RewriteInputs
from rewrites.pipeline import rescued_by, run_phase


@pytest.mark.parametrize(("sql", "split"), [
    # one column equal to two values, through a join, qualifiers kept
    ("SELECT T1.name FROM country AS T1 JOIN lang AS T2 ON T1.code = T2.code "
     "WHERE T2.language = 'English' AND T2.language = 'French'",
     "SELECT T1.name FROM country AS T1 JOIN lang AS T2 ON T1.code = T2.code WHERE T2.language = 'English' "
     "INTERSECT SELECT T1.name FROM country AS T1 JOIN lang AS T2 ON T1.code = T2.code "
     "WHERE T2.language = 'French'"),
    # two ranges that cannot overlap: the lower bounds against the upper bounds
    ("SELECT pos FROM pilot WHERE join_year > 2005 AND join_year < 2000",
     "SELECT pos FROM pilot WHERE join_year > 2005 INTERSECT SELECT pos FROM pilot WHERE join_year < 2000"),
    # the other conditions stay in each query, in their written order; parentheses opened
    ("SELECT director FROM film WHERE (year = 1999 AND genre = 'drama') AND year = 2000",
     "SELECT director FROM film WHERE year = 1999 AND genre = 'drama' "
     "INTERSECT SELECT director FROM film WHERE genre = 'drama' AND year = 2000"),
    # three values: three queries
    ("SELECT DISTINCT c FROM t WHERE x = 'a' AND x = 'b' AND x = 'c'",
     "SELECT DISTINCT c FROM t WHERE x = 'a' INTERSECT SELECT DISTINCT c FROM t WHERE x = 'b' "
     "INTERSECT SELECT DISTINCT c FROM t WHERE x = 'c'"),
    # dates as text: a year that starts after the other ends
    ("SELECT a FROM t WHERE d >= '2024-01-01' AND d < '2023-01-01'",
     "SELECT a FROM t WHERE d >= '2024-01-01' INTERSECT SELECT a FROM t WHERE d < '2023-01-01'"),
    # a literal on the left, negative numbers
    ("SELECT a FROM t WHERE -5 <= x AND x < -10", "SELECT a FROM t WHERE -5 <= x INTERSECT SELECT a FROM t "
     "WHERE x < -10"),
])
def test_a_contradictory_filter_becomes_an_intersection(sql: str, split: str) -> None:
    assert split_contradiction(sql, "sqlite") == split


@pytest.mark.parametrize("sql", [
    "SELECT a FROM t WHERE x > 5 AND x < 10",  # ranges that overlap
    "SELECT a FROM t WHERE x = 1999 AND x = '1999'",  # one value, spelled two ways
    "SELECT a FROM t WHERE x = 'a' OR x = 'b'",  # OR is not a contradiction
    "SELECT year FROM film WHERE year = 1999 AND year = 2000",  # the column is shown: nothing in common
    "SELECT * FROM film WHERE year = 1999 AND year = 2000",
    "SELECT COUNT(*) FROM film WHERE year = 1999 AND year = 2000",  # an aggregate is not the "both" reading
    "SELECT d FROM film WHERE year = 1999 AND year = 2000 GROUP BY d",
    "SELECT d FROM film WHERE year = 1999 AND year = 2000 ORDER BY d LIMIT 3",
    "SELECT d FROM film WHERE year = 1999 AND year = 2000 AND k = 1 AND k = 2",  # two columns: ambiguous
    "SELECT d FROM film WHERE x = 1 AND x > 0 AND x < 0",  # equality and ranges on one column
    "SELECT d FROM film WHERE x > 'b' AND x < 3",  # a text and a number bound
    "SELECT d FROM film WHERE a.x = 1 AND b.x = 2",  # different qualifiers are different columns
    "SELECT d FROM a UNION SELECT d FROM b WHERE x = 1 AND x = 2",  # not a plain SELECT
    "SELECT d FROM film",
    "not sql at all (",
])
def test_anything_else_is_left_alone(sql: str) -> None:
    assert split_contradiction(sql, "sqlite") is None


def test_the_rescue_runs_only_after_an_empty_result_and_keeps_rows(tmp_path: Path) -> None:
    path = tmp_path / "films.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("CREATE TABLE film (id INTEGER PRIMARY KEY, director TEXT, year INTEGER);"
                          "INSERT INTO film (director, year) VALUES ('Ann', 1999), ('Ann', 2000), ('Bo', 1999);")
    db = Database(f"sqlite:///{path}")
    sql = "SELECT director FROM film WHERE year = 1999 AND year = 2000"
    assert db.run_query(sql).rows == []
    inputs = RewriteInputs(dialect=db.dialect, question="Which directors had a film both in 1999 and 2000?",
                           db=db)
    fixed, traces = run_phase("rescue", sql, inputs)
    step = rescued_by(traces)
    assert step is not None and step.name == "split_contradictions" and step.label == "intersected"
    assert [list(r) for r in db.run_query(fixed).rows] == [["Ann"]]
    # one row of NULL/0 (got_rows) is not the reading this step fixes
    assert split_contradiction(sql, "sqlite") is not None
    got_rows = RewriteInputs(dialect=db.dialect, question=inputs.question, db=db, got_rows=True)
    assert all(t.step != "split_contradictions" or not t.fired for t in run_phase("rescue", sql, got_rows)[1])
