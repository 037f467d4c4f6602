"""Join conditions naming one side of a key only get their other side (rewrites.join_conditions)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from database.joins import join_graph
from rewrites.join_conditions import complete_join_conditions

COLUMNS = {"department": {"dname", "dnumber"}, "dept_locations": {"dnumber", "dlocation"},
           "employee": {"ssn", "dno", "name"}, "project": {"pnumber", "dnum", "dnumber"}}
GRAPH = join_graph({"department": [], "dept_locations": [], "employee": [("dno", "department.dnumber")],
                    "project": [("dnum", "department.dnumber")]})
NO_KEYS = join_graph({})


@pytest.mark.parametrize(("sql", "graph", "fixed"), [
    # a bare column: the same-named column of the joined table
    ("SELECT dname FROM department JOIN dept_locations ON department.dnumber "
     "WHERE dept_locations.dlocation = 'Houston'", NO_KEYS,
     "SELECT dname FROM department JOIN dept_locations ON department.dnumber = dept_locations.dnumber "
     "WHERE dept_locations.dlocation = 'Houston'"),
    # a column compared with itself, aliases kept as the query spells them
    ("SELECT D.dname FROM department AS D JOIN dept_locations AS L ON L.dnumber = L.dnumber", NO_KEYS,
     "SELECT D.dname FROM department AS D JOIN dept_locations AS L ON L.dnumber = D.dnumber"),
    # a declared key decides over names: employee.dno -> department.dnumber
    ("SELECT name FROM department JOIN employee ON employee.dno", GRAPH,
     "SELECT name FROM department JOIN employee ON employee.dno = department.dnumber"),
    # one part of an AND; an unqualified column read from its one owner
    ("SELECT name FROM department JOIN employee ON dno AND employee.ssn > 3", GRAPH,
     "SELECT name FROM department JOIN employee ON employee.dno = department.dnumber AND employee.ssn > 3"),
])
def test_the_missing_side_of_the_key_is_supplied(sql: str, graph: object, fixed: str) -> None:
    assert complete_join_conditions(sql, "sqlite", graph, COLUMNS) == fixed  # type: ignore[arg-type]


@pytest.mark.parametrize("sql", [
    "SELECT 1 FROM department JOIN dept_locations ON department.dnumber = dept_locations.dnumber",  # complete
    "SELECT 1 FROM department JOIN dept_locations ON dept_locations.dlocation",  # no partner on the other side
    "SELECT 1 FROM department JOIN project ON department.dnumber = project.dnum "
    "JOIN dept_locations ON dept_locations.dnumber",  # two tables before it have dnumber
    "SELECT 1 FROM department JOIN dept_locations ON x.dnumber",  # an unknown qualifier
    "SELECT 1 FROM department JOIN (SELECT dnumber FROM dept_locations) AS d ON department.dnumber",  # derived
    "SELEC broken ((",
])
def test_everything_else_is_left_alone(sql: str) -> None:
    assert complete_join_conditions(sql, "sqlite", GRAPH, COLUMNS) in (None, sql)


def test_without_column_lists_nothing_changes() -> None:
    assert complete_join_conditions("SELECT 1 FROM department JOIN dept_locations ON department.dnumber",
                                    "sqlite", None, {}) is None


def test_a_declared_spelling_is_quoted_on_a_case_sensitive_engine() -> None:
    graph = join_graph({"Dept": [], "Emp": [("DeptNo", "Dept.Id")]})
    columns = {"dept": {"id"}, "emp": {"deptno"}}
    fixed = complete_join_conditions('SELECT 1 FROM "Dept" JOIN "Emp" ON "Emp"."DeptNo"', "postgres", graph,
                                     columns)
    assert fixed == 'SELECT 1 FROM "Dept" JOIN "Emp" ON "Emp"."DeptNo" = "Dept"."Id"'


def test_the_completed_join_answers_for_the_filtered_rows_only(tmp_path: Path) -> None:
    path = tmp_path / "company.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE department (dname TEXT, dnumber INTEGER PRIMARY KEY);"
            "CREATE TABLE dept_locations (dnumber INTEGER, dlocation TEXT, PRIMARY KEY (dnumber, dlocation));"
            "INSERT INTO department VALUES ('Research', 5), ('Admin', 4), ('Head', 1);"
            "INSERT INTO dept_locations VALUES (1, 'Houston'), (4, 'Stafford'), (5, 'Bellaire'), (5, 'Houston');")
    db = Database(f"sqlite:///{path}")
    sql = "SELECT dname FROM department JOIN dept_locations ON department.dnumber WHERE dlocation = 'Houston'"
    fixed = complete_join_conditions(sql, "sqlite", NO_KEYS, COLUMNS)
    assert fixed is not None
    assert sorted(r[0] for r in db.run_query(sql).rows) == ["Admin", "Admin", "Head", "Head", "Research",
                                                           "Research"]
    assert sorted(r[0] for r in db.run_query(fixed).rows) == ["Head", "Research"]
