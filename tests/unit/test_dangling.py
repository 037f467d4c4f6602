"""Dangling-join pruning (rewrites.dangling, rewrites.join_facts) and the question-names-table predicate (tools.coverage)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from rewrites.dangling import JoinCheck, any_join, prune_dangling_joins
from rewrites.join_facts import lossless_join
from tools.coverage import question_names_table, table_name_words

COLUMNS = {
    "singer": {"singer_id", "name", "country", "age"},
    "singer_in_concert": {"singer_id", "concert_id"},
    "concert": {"concert_id", "stadium_id", "year"},
    "stadium": {"stadium_id", "location"},
    "country": {"code", "name", "surfacearea", "continent"},
    "countrylanguage": {"countrycode", "language"},
    "degree_programs": {"degree_program_id", "department_id"},
    "departments": {"department_id", "department_name", "department_description"},
}


def prune(sql: str, question: str, lossless: JoinCheck = any_join) -> str:
    """Pruning as the rescue of an empty result does it (any unread join may go) unless ``lossless`` is given."""
    return prune_dangling_joins(sql, "sqlite", COLUMNS, lambda t: question_names_table(question, t), lossless)


CONCERTS = """
CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, location TEXT);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, stadium_id INTEGER NOT NULL REFERENCES stadium (stadium_id),
                      year INTEGER);
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
CREATE TABLE singer_in_concert (singer_id INTEGER NOT NULL REFERENCES singer (singer_id),
                                concert_id INTEGER NOT NULL REFERENCES concert (concert_id));
INSERT INTO stadium VALUES (1, 'Oslo');
INSERT INTO concert VALUES (1, 1, 2014);
INSERT INTO singer VALUES (1, 'Ana', 'Brazil', 30), (2, 'Bo', 'Sweden', 40);
INSERT INTO singer_in_concert VALUES (1, 1);
"""


@pytest.fixture()
def concerts(tmp_path: Path) -> Database:
    path = tmp_path / "concerts.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(CONCERTS)
    return Database(f"sqlite:///{path}")


def test_an_existence_filter_stays_when_the_question_asks_for_it(concerts: Database) -> None:
    performed = ("SELECT singer.Name FROM singer JOIN singer_in_concert ON singer.Singer_ID = "
                 "singer_in_concert.Singer_ID")  # the singers who performed in a concert, not every singer
    assert prune(performed, "Names of the singers who sang in concerts") == performed
    assert len(concerts.run_query(performed).rows) == 1
    assert prune(performed, "Names of the singers") == "SELECT singer.Name FROM singer"  # not asked for: dropped
    assert prune(performed, "Names of the singers", lossless_join(concerts)) == performed  # the strict check


def test_only_joins_that_cannot_change_the_rows_go_before_the_query_runs(concerts: Database) -> None:
    sql = ("SELECT singer.Name, singer.Age FROM singer JOIN singer_in_concert ON singer.Singer_ID = "
           "singer_in_concert.Singer_ID JOIN concert ON singer_in_concert.concert_ID = concert.concert_ID "
           "JOIN stadium ON concert.Stadium_ID = stadium.Stadium_ID ORDER BY singer.Age DESC")
    pruned = prune(sql, "Show name and age of all singers by age", lossless_join(concerts))
    assert pruned == ("SELECT singer.Name, singer.Age FROM singer JOIN singer_in_concert ON singer.Singer_ID = "
                      "singer_in_concert.Singer_ID ORDER BY singer.Age DESC")  # NOT NULL keys onto whole keys
    assert concerts.run_query(pruned).rows == concerts.run_query(sql).rows
    check = lossless_join(concerts)
    assert check("concert", ["stadium_id"], "stadium", ["stadium_id"])
    assert not check("stadium", ["stadium_id"], "concert", ["stadium_id"])  # one stadium, many concerts
    assert not check("singer", ["singer_id"], "nowhere", ["singer_id"])      # unknown: the join stays


def test_a_nullable_foreign_key_keeps_its_join(tmp_path: Path) -> None:
    path = tmp_path / "loose.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, location TEXT);"
                          "CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, "
                          "stadium_id INTEGER REFERENCES stadium (stadium_id), year INTEGER);")
    sql = "SELECT concert.Year FROM concert JOIN stadium ON concert.Stadium_ID = stadium.Stadium_ID"
    assert prune(sql, "Years of the concerts", lossless_join(Database(f"sqlite:///{path}"))) == sql


def test_drops_a_chain_of_joins_the_query_never_reads() -> None:
    sql = ("SELECT singer.Name, singer.Age FROM singer JOIN singer_in_concert ON singer.Singer_ID = "
           "singer_in_concert.Singer_ID JOIN concert ON singer_in_concert.concert_ID = concert.concert_ID "
           "JOIN stadium ON concert.Stadium_ID = stadium.Stadium_ID ORDER BY singer.Age DESC")
    assert prune(sql, "Show name and age of all singers by age") == (
        "SELECT singer.Name, singer.Age FROM singer ORDER BY singer.Age DESC")


def test_replaces_a_dangling_from_table_by_its_neighbour() -> None:
    sql = ("SELECT department_description FROM Degree_Programs JOIN Departments ON Degree_Programs.department_id"
           " = Departments.department_id WHERE Departments.department_name LIKE '%computer%'")
    assert prune(sql, "Description of the department named computer?") == (
        "SELECT department_description FROM Departments WHERE Departments.department_name LIKE '%computer%'")


def test_keeps_joins_the_question_names_or_the_query_reads() -> None:
    named = ("SELECT singer.Name FROM singer JOIN singer_in_concert ON singer.Singer_ID = "
             "singer_in_concert.Singer_ID")
    assert prune(named, "Names of singers in a concert") == named
    read = ("SELECT singer.Name, concert.Year FROM singer JOIN singer_in_concert ON singer.Singer_ID = "
            "singer_in_concert.Singer_ID JOIN concert ON singer_in_concert.concert_ID = concert.concert_ID")
    assert prune(read, "Names of singers and the year") == read
    unqualified = ("SELECT name, year FROM singer JOIN singer_in_concert ON singer.Singer_ID = "
                   "singer_in_concert.Singer_ID JOIN concert ON singer_in_concert.concert_ID = concert.concert_ID")
    assert prune(unqualified, "Names of singers and the year") == unqualified


@pytest.mark.parametrize("sql", [
    # counting over a join may count the joined rows
    "SELECT singer.Name FROM singer JOIN singer_in_concert ON singer.Singer_ID = singer_in_concert.Singer_ID "
    "GROUP BY singer.Name ORDER BY COUNT(*) DESC LIMIT 1",
    # a filter inside ON is a use
    "SELECT singer.Name FROM singer JOIN singer_in_concert ON singer.Singer_ID = singer_in_concert.Singer_ID "
    "AND singer_in_concert.concert_ID = 1",
    # outer joins, subqueries, stars and unparsable text are left alone
    "SELECT singer.Name FROM singer LEFT JOIN stadium ON singer.Singer_ID = stadium.Stadium_ID",
    "SELECT Name FROM singer WHERE Singer_ID IN (SELECT Singer_ID FROM singer_in_concert)",
    "SELECT * FROM singer JOIN singer_in_concert ON singer.Singer_ID = singer_in_concert.Singer_ID",
    "SELECT FROM WHERE",
])
def test_leaves_what_it_does_not_understand_or_what_counts(sql: str) -> None:
    assert prune(sql, "Which singer?") == sql


def test_unknown_table_or_qualifier_is_left_alone() -> None:
    sql = "SELECT s.Name FROM singer AS s JOIN mystery AS m ON s.Singer_ID = m.Singer_ID"
    assert prune(sql, "Which singer?") == sql
    sql = "SELECT x.Name FROM singer JOIN stadium ON singer.Singer_ID = stadium.Stadium_ID"
    assert prune(sql, "Which singer?") == sql


def test_pruned_query_returns_the_rows_the_question_asks_for(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE country (Code TEXT PRIMARY KEY, Name TEXT, SurfaceArea REAL, Continent TEXT);"
            "CREATE TABLE countrylanguage (CountryCode TEXT, Language TEXT);"
            "INSERT INTO country VALUES ('FR','France',10,'Europe'),('JP','Japan',5,'Asia');"
            "INSERT INTO countrylanguage VALUES ('FR','French'),('FR','Breton'),('JP','Japanese');")
        sql = ("SELECT SUM(country.SurfaceArea) FROM country JOIN countrylanguage ON country.Code = "
               "countrylanguage.CountryCode WHERE country.Continent IN ('Asia', 'Europe')")
        pruned = prune(sql, "What is the total surface area of Asia and Europe?")
        assert con.execute(sql).fetchone()[0] == 25  # France counted twice through its two languages
        assert con.execute(pruned).fetchone()[0] == 15


def test_question_names_table_in_word_forms() -> None:
    assert table_name_words("Ref_Template_Types") == ["template", "type"]
    assert table_name_words("StudentEnrolment2") == ["student", "enrolment"]
    assert question_names_table("Which semesters have no student enrolled?", "Student_Enrolment")
    assert question_names_table("Which country has the most languages?", "countrylanguage")
    assert not question_names_table("Total surface area of Asia?", "countrylanguage")
    assert not question_names_table("Show all singers", "singer_in_concert")
    assert question_names_table("anything", "T_1")  # no words: counts as named, so it is never pruned


JOINED = "SELECT T1.Name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.Singer_ID = T2.Singer_ID "


def test_a_self_contained_subquery_does_not_keep_an_unread_join() -> None:
    sql = JOINED + "WHERE T1.Age < (SELECT AVG(Age) FROM singer)"
    assert prune(sql, "Names of singers younger than the average") == (
        "SELECT T1.Name FROM singer AS T1 WHERE T1.Age < (SELECT AVG(Age) FROM singer)")
    counted = JOINED + "WHERE T1.Age > (SELECT COUNT(*) FROM concert)"  # a count inside the subquery
    assert prune(counted, "Names of singers older than the number of shows") == (
        "SELECT T1.Name FROM singer AS T1 WHERE T1.Age > (SELECT COUNT(*) FROM concert)")
    nested = JOINED + "WHERE T1.Age IN (SELECT Age FROM singer WHERE Country IN (SELECT name FROM country))"
    assert prune(nested, "Names of singers aged like a singer of a listed land").startswith(
        "SELECT T1.Name FROM singer AS T1 WHERE")


@pytest.mark.parametrize("tail", [
    # correlated: the subquery reads an outer table, so the query is left as written
    "WHERE T1.Age < (SELECT AVG(s.Age) FROM singer AS s WHERE s.Country = T1.Country)",
    "WHERE EXISTS (SELECT 1 FROM concert WHERE concert.concert_ID = T2.concert_ID)",
    "WHERE T1.Age < (SELECT AVG(Age) FROM concert WHERE Year > 2000)",  # Age is no concert column: outer
    "WHERE T1.Age < (SELECT AVG(Age) FROM mystery)",                    # unknown table inside
])
def test_a_correlated_or_unresolved_subquery_leaves_the_query_alone(tail: str) -> None:
    assert prune(JOINED + tail, "Names of singers") == JOINED + tail
