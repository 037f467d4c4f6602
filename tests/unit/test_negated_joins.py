"""Negated questions answered with a join and <> become anti-joins (rewrites.negated_joins), on a real SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from database.joins import join_graph
from retrieval.hybrid import TableCatalog
from rewrites.inputs import RewriteInputs
from rewrites.negated_joins import fix_negated_joins, negates
from rewrites.pipeline import run_phase

COLUMNS = {"country": {"code", "name", "governmentform"}, "countrylanguage": {"countrycode", "language"},
           "employee": {"id", "name", "dept_id"}, "department": {"id", "title"}}
GRAPH = join_graph({"country": [], "countrylanguage": [("CountryCode", "country.Code")],
                    "department": [], "employee": [("dept_id", "department.id")]})
KEYS = {"country": ["Code"], "countrylanguage": ["CountryCode", "Language"], "employee": ["id"],
        "department": ["id"]}
SPEAKS = ("SELECT country.Name FROM country JOIN countrylanguage ON country.Code = countrylanguage.CountryCode "
          "WHERE countrylanguage.Language <> 'English'")
ANTI = ("SELECT country.Name FROM country WHERE NOT country.Code IN (SELECT countrylanguage.CountryCode FROM "
        "countrylanguage WHERE countrylanguage.Language = 'English')")


@pytest.mark.parametrize(("question", "expected"), [
    ("Which countries do not speak English?", True),
    ("Countries that don't speak English", True),
    ("Countries that don\u2019t speak English", True),
    ("Which teams have never won?", True),
    ("Teams without a coach", True),
    ("Students with no pets", True),
    ("Which countries speak English?", False),
    ("Countries with no more than 3 languages", False),
    ("Products that cost not more than 10", False),
    ("Who not only sings but also dances?", False),
    ("What is the number of notes?", False),
])
def test_negation_cues(question: str, expected: bool) -> None:
    assert negates(question) is expected


@pytest.mark.parametrize(("sql", "fixed"), [
    (SPEAKS, ANTI),
    # the related table first, aliases, != and a DISTINCT and an ORDER BY of the entity kept
    ("SELECT DISTINCT T1.Name FROM countrylanguage AS T2 JOIN country AS T1 ON T2.CountryCode = T1.Code "
     "WHERE T2.Language != 'English' ORDER BY T1.Name",
     "SELECT DISTINCT T1.Name FROM country AS T1 WHERE NOT T1.Code IN (SELECT T2.CountryCode FROM countrylanguage "
     "AS T2 WHERE T2.Language = 'English') ORDER BY T1.Name"),
    # the entity's own <> stays a filter; unqualified columns are placed by the catalog
    ("SELECT Code FROM country JOIN countrylanguage ON countrylanguage.CountryCode = country.Code "
     "WHERE Language <> 'English' AND GovernmentForm <> 'Republic'",
     "SELECT Code FROM country WHERE GovernmentForm <> 'Republic' AND NOT country.Code IN (SELECT "
     "countrylanguage.CountryCode FROM countrylanguage WHERE Language = 'English')"),
    ("SELECT COUNT(*) FROM country JOIN countrylanguage ON country.Code = countrylanguage.CountryCode "
     "WHERE countrylanguage.Language <> 'English'",
     "SELECT COUNT(*) FROM country WHERE NOT country.Code IN (SELECT countrylanguage.CountryCode FROM "
     "countrylanguage WHERE countrylanguage.Language = 'English')"),
])
def test_a_negated_relation_becomes_an_anti_join(sql: str, fixed: str) -> None:
    assert fix_negated_joins(sql, "sqlite", "Which countries do not speak English?", COLUMNS, GRAPH, KEYS) == fixed


def test_primary_keys_decide_without_declared_foreign_keys() -> None:
    question = "Which countries do not speak English?"
    assert fix_negated_joins(SPEAKS, "sqlite", question, COLUMNS, None, KEYS) == ANTI
    assert fix_negated_joins(SPEAKS, "sqlite", question, COLUMNS, None, {}) is None  # nothing says which is many


@pytest.mark.parametrize("sql", [
    # the one side: every employee has one department, so <> is right
    "SELECT employee.name FROM employee JOIN department ON employee.dept_id = department.id "
    "WHERE department.title <> 'Sales'",
    # shows a column of the related table
    "SELECT country.Name, countrylanguage.Language FROM country JOIN countrylanguage "
    "ON country.Code = countrylanguage.CountryCode WHERE countrylanguage.Language <> 'English'",
    # grouping, an outer join, two <> on the related table, an OR, a subquery
    SPEAKS.replace("country JOIN", "country LEFT JOIN"),
    SPEAKS + " GROUP BY country.Name",
    SPEAKS + " AND countrylanguage.Language <> 'French'",
    SPEAKS.replace("<> 'English'", "<> 'English' OR country.Name = 'x'"),
    "SELECT Name FROM country WHERE Code <> 'ABW'",
    "SELECT (SELECT 1) FROM country JOIN countrylanguage ON country.Code = countrylanguage.CountryCode "
    "WHERE countrylanguage.Language <> 'English'",
    "SELEC ((( <>",
])
def test_other_queries_are_left_alone(sql: str) -> None:
    question = "Which ones are not in Sales or do not speak English?"
    assert fix_negated_joins(sql, "sqlite", question, COLUMNS, GRAPH, KEYS) is None


def test_a_question_without_negation_is_left_alone() -> None:
    assert fix_negated_joins(SPEAKS, "sqlite", "Which countries speak a language other than English?", COLUMNS,
                             GRAPH, KEYS) is None


def _world(path: Path) -> Database:
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE country (Code TEXT PRIMARY KEY, Name TEXT);
        CREATE TABLE countrylanguage (CountryCode TEXT REFERENCES country(Code), Language TEXT,
                                      PRIMARY KEY (CountryCode, Language));
        INSERT INTO country VALUES ('GBR', 'United Kingdom'), ('CAN', 'Canada'), ('FRA', 'France');
        INSERT INTO countrylanguage VALUES ('GBR', 'English'), ('GBR', 'Welsh'), ('CAN', 'English'),
                                           ('CAN', 'French'), ('FRA', 'French');
    """)
    con.commit()
    con.close()
    return Database(f"sqlite:///{path}")


def test_the_anti_join_returns_the_countries_the_question_meant(tmp_path: Path) -> None:
    db = _world(tmp_path / "world.sqlite")
    assert sorted(db.run_query(SPEAKS).rows) == [("Canada",), ("France",), ("United Kingdom",)]
    assert db.run_query(ANTI).rows == [("France",)]


def test_the_pipeline_runs_the_step_with_the_question(tmp_path: Path) -> None:
    db = _world(tmp_path / "world.sqlite")
    catalog = TableCatalog(db_key="world", snapshot=None, names=["country", "countrylanguage"], descriptions={},
                           schemas={}, columns={"country": ["Code", "Name"],
                                                "countrylanguage": ["CountryCode", "Language"]},
                           graph=join_graph({"country": [], "countrylanguage": [("CountryCode", "country.Code")]}))
    inputs = RewriteInputs(dialect="sqlite", question="Which countries do not speak English?", catalog=catalog,
                           db=db)
    sql, traces = run_phase("candidate", SPEAKS, inputs)
    assert sql == ANTI
    assert [t.step for t in traces if t.fired] == ["fix_negated_joins"]
    unasked = RewriteInputs(dialect="sqlite", question="Which countries speak other languages than English?",
                            catalog=catalog, db=db)
    assert run_phase("candidate", SPEAKS, unasked)[0] == SPEAKS


INVOICES = {"customer": {"id", "last_name"}, "invoice": {"id", "customer_id", "total"}}
INVOICE_GRAPH = join_graph({"customer": [], "invoice": [("customer_id", "customer.id")]})
INVOICE_KEYS = {"customer": ["id"], "invoice": ["id"]}
WITHOUT = "What are the last names of customers without invoice totals exceeding 20?"


@pytest.mark.parametrize(("question", "expected"), [
    (WITHOUT, [("GT", 20.0)]),
    ("Which dogs have not cost their owner more than 1,000 for treatment?", [("GT", 1000.0)]),
    ("Products never booked for less than $5", [("LT", 5.0)]),
    ("Invoices over 20 of customers without an email", []),  # the comparison comes before the negation
    ("Products that cost not more than 10", []),
    ("Customers with invoices exceeding 20", []),
])
def test_negated_comparisons_read_the_stated_operator_and_number(question: str,
                                                                 expected: list[tuple[str, float]]) -> None:
    from rewrites.negated_joins import negated_comparisons

    assert [(op.__name__, n) for op, n in negated_comparisons(question)] == expected


@pytest.mark.parametrize("where", ["invoice.total <= 20", "invoice.total > 20", "total < 20", "invoice.total >= 20"])
def test_a_negated_comparison_becomes_an_anti_join_on_the_stated_comparison(where: str) -> None:
    sql = f"SELECT customer.last_name FROM invoice JOIN customer ON invoice.customer_id = customer.id WHERE {where}"
    column = where.split()[0]
    assert fix_negated_joins(sql, "sqlite", WITHOUT, INVOICES, INVOICE_GRAPH, INVOICE_KEYS) == (
        "SELECT customer.last_name FROM customer WHERE NOT customer.id IN (SELECT invoice.customer_id FROM invoice "
        f"WHERE {column} > 20)")


@pytest.mark.parametrize(("sql", "question"), [
    # another number than the question's
    ("SELECT customer.last_name FROM invoice JOIN customer ON invoice.customer_id = customer.id "
     "WHERE invoice.total <= 30", WITHOUT),
    # the question states the comparison before its negation: a filter, not an anti-join
    ("SELECT customer.last_name FROM invoice JOIN customer ON invoice.customer_id = customer.id "
     "WHERE invoice.total > 20", "Last names of customers with invoice totals exceeding 20 without a discount"),
    # the comparison is on the entity (the one side), where it is a plain filter
    ("SELECT customer.last_name FROM invoice JOIN customer ON invoice.customer_id = customer.id "
     "WHERE customer.id > 20", WITHOUT),
    # a column of the related table is shown
    ("SELECT customer.last_name, invoice.total FROM invoice JOIN customer ON invoice.customer_id = customer.id "
     "WHERE invoice.total <= 20", WITHOUT),
])
def test_other_comparisons_are_left_alone(sql: str, question: str) -> None:
    assert fix_negated_joins(sql, "sqlite", question, INVOICES, INVOICE_GRAPH, INVOICE_KEYS) is None


def test_the_anti_join_keeps_customers_without_invoices(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE customer (id INTEGER PRIMARY KEY, last_name TEXT);
        CREATE TABLE invoice (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), total REAL);
        INSERT INTO customer VALUES (1, 'Ames'), (2, 'Berg'), (3, 'Cole');
        INSERT INTO invoice VALUES (1, 1, 5), (2, 1, 25), (3, 2, 8);
    """)
    con.commit()
    con.close()
    db = Database(f"sqlite:///{path}")
    flipped = ("SELECT customer.last_name FROM invoice JOIN customer ON invoice.customer_id = customer.id "
               "WHERE invoice.total <= 20")
    fixed = fix_negated_joins(flipped, "sqlite", WITHOUT, INVOICES, INVOICE_GRAPH, INVOICE_KEYS)
    assert sorted(db.run_query(flipped).rows) == [("Ames",), ("Berg",)]  # Ames has an invoice of 25
    assert fixed is not None and sorted(db.run_query(fixed).rows) == [("Berg",), ("Cole",)]


TEACHES = {"instructor": {"id", "name"}, "teaches": {"id", "course_id", "semester"}}
TEACHES_GRAPH = join_graph({"instructor": [], "teaches": [("id", "instructor.id")]})
TEACHES_KEYS = {"instructor": ["id"], "teaches": ["id", "course_id", "semester"]}
DROPPED = ("SELECT instructor.name FROM teaches JOIN instructor ON teaches.id = instructor.id "
           "WHERE teaches.semester = 'Spring'")


def test_a_negation_left_out_of_the_query_becomes_the_anti_join() -> None:
    question = "Find the names of instructors who didn't teach any courses in any Spring semester."
    assert fix_negated_joins(DROPPED, "sqlite", question, TEACHES, TEACHES_GRAPH, TEACHES_KEYS) == (
        "SELECT instructor.name FROM instructor WHERE NOT instructor.id IN (SELECT teaches.id FROM teaches "
        "WHERE teaches.semester = 'Spring')")


@pytest.mark.parametrize(("sql", "question"), [
    (DROPPED, "Find the names of instructors who taught in a Spring semester."),  # nothing negated
    # the query negates something already: the = is what the question asks for
    (DROPPED + " AND instructor.name <> 'Katz'", "Instructors other than Katz who didn't miss a Spring semester"),
    (DROPPED + " AND NOT instructor.name LIKE 'K%'", "Spring instructors whose names don't start with K"),
])
def test_an_equality_is_negated_only_when_the_query_negates_nothing(sql: str, question: str) -> None:
    assert fix_negated_joins(sql, "sqlite", question, TEACHES, TEACHES_GRAPH, TEACHES_KEYS) is None
