"""Date functions over columns that hold no dates (rewrites.date_parts) on a real SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.settings import RewriteSettings
from database.connection import Database
from rewrites.date_parts import fix_date_parts
from rewrites.inputs import RewriteInputs
from rewrites.pipeline import run_phase

COLUMNS = {"games": {"id", "season", "yr", "played_on", "day_name", "jd", "yr_text"},
           "venue": {"id", "game_id", "opened"}}


@pytest.fixture()
def games(tmp_path: Path) -> Database:
    path = tmp_path / "games.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE games (id INTEGER PRIMARY KEY, season TEXT, yr INTEGER, played_on TEXT, day_name TEXT,"
            " jd REAL, yr_text TEXT);"
            "INSERT INTO games VALUES (1, 'Spring', 2004, '2004-05-06', 'Monday', 2453131.5, '2004'),"
            " (2, 'Fall', 2006, '2006-10-01', 'Sunday', 2454010.5, '2006'), (3, NULL, NULL, NULL, NULL, NULL, NULL);"
            "CREATE TABLE venue (id INTEGER PRIMARY KEY, game_id INTEGER, opened INTEGER);"
            "INSERT INTO venue VALUES (1, 1, 1999), (2, 2, 2001);")
    return Database(f"sqlite:///{path}")


@pytest.mark.parametrize(("sql", "fixed"), [
    # a year stored as a number: SQLite would read 2004 as a Julian day (year -4707)
    ("SELECT DISTINCT strftime('%Y', yr) FROM games", "SELECT DISTINCT yr FROM games"),
    ("SELECT id FROM games WHERE strftime('%Y', yr) = '2004'", "SELECT id FROM games WHERE yr = '2004'"),
    ("SELECT id FROM games WHERE CAST(strftime('%Y', yr_text) AS INTEGER) > 2005",
     "SELECT id FROM games WHERE CAST(yr_text AS INTEGER) > 2005"),
    # weekday names: any format gives NULL
    ("SELECT strftime('%A', day_name), COUNT(*) FROM games GROUP BY strftime('%A', day_name)",
     "SELECT day_name, COUNT(*) FROM games GROUP BY day_name"),
    # qualified through an alias, and unqualified over two tables resolved by the catalog
    ("SELECT T2.opened FROM games AS T1 JOIN venue AS T2 ON T1.id = T2.game_id "
     "WHERE strftime('%Y', T2.opened) > '2000'",
     "SELECT T2.opened FROM games AS T1 JOIN venue AS T2 ON T1.id = T2.game_id WHERE T2.opened > '2000'"),
    ("SELECT opened FROM games JOIN venue ON games.id = venue.game_id WHERE strftime('%Y', opened) = '1999'",
     "SELECT opened FROM games JOIN venue ON games.id = venue.game_id WHERE opened = '1999'"),
])
def test_a_date_function_over_a_column_without_dates_reads_the_column(games: Database, sql: str,
                                                                       fixed: str) -> None:
    assert fix_date_parts(sql, "sqlite", games, COLUMNS) == fixed
    assert games.run_query(fixed).ok


@pytest.mark.parametrize("sql", [
    "SELECT strftime('%Y', played_on) FROM games",           # real dates
    "SELECT strftime('%Y', jd) FROM games",                  # Julian day numbers are dates to SQLite
    "SELECT strftime('%m', yr) FROM games",                  # a year column, but not the year asked for
    "SELECT strftime('%Y', yr, 'unixepoch') FROM games",     # a modifier: left to the model
    "SELECT strftime('%Y', 'now')",                          # no column
    "SELECT strftime('%Y', id) FROM games JOIN venue ON games.id = venue.game_id",  # ambiguous column
    "SELECT strftime('%Y', nope) FROM games",                # the probe fails: nothing known
    "SELECT yr FROM games",
    "SELEC (((strftime",
])
def test_dates_and_what_it_cannot_tell_are_left_alone(games: Database, sql: str) -> None:
    assert fix_date_parts(sql, "sqlite", games, COLUMNS) is None


@pytest.mark.parametrize(("sql", "fixed"), [
    # SQLite compares a number with text as always smaller: the date literal never matches a year
    ("SELECT id FROM games WHERE yr > '2005-01-01'", "SELECT id FROM games WHERE yr > 2005"),
    ("SELECT id FROM games WHERE '2004-12-31' >= yr", "SELECT id FROM games WHERE 2004 >= yr"),
    ("SELECT id FROM games WHERE yr BETWEEN '2004-01-01' AND '2005-12-31 23:59:59'",
     "SELECT id FROM games WHERE yr BETWEEN 2004 AND 2005"),
    # years stored as text keep text
    ("SELECT id FROM games WHERE yr_text = '2006-01-01'", "SELECT id FROM games WHERE yr_text = '2006'"),
])
def test_a_date_literal_compared_with_a_column_of_years_becomes_its_year(games: Database, sql: str,
                                                                           fixed: str) -> None:
    assert fix_date_parts(sql, "sqlite", games, COLUMNS) == fixed
    assert games.run_query(fixed).rows


@pytest.mark.parametrize("sql", [
    "SELECT id FROM games WHERE played_on > '2005-01-01'",   # real dates compare as text correctly
    "SELECT id FROM games WHERE jd > '2005-01-01'",          # not years
    "SELECT id FROM games WHERE yr > '2005'",                # already a year
    "SELECT id FROM games WHERE season = '2005-01-01'",      # text that is not a year
])
def test_date_literals_against_other_columns_stay(games: Database, sql: str) -> None:
    assert fix_date_parts(sql, "sqlite", games, COLUMNS) is None


def test_other_dialects_are_left_to_the_engine_error(games: Database) -> None:
    assert fix_date_parts("SELECT strftime('%Y', yr) FROM games", "postgres", games, COLUMNS) is None


def test_the_pipeline_runs_it_before_the_dry_run_and_the_switch_turns_it_off(games: Database) -> None:
    from retrieval.hybrid import TableCatalog

    catalog = TableCatalog(db_key="games", snapshot=None, names=sorted(COLUMNS), descriptions={}, schemas={},
                           columns={t: sorted(c) for t, c in COLUMNS.items()})
    sql = "SELECT DISTINCT strftime('%Y', yr) FROM games"
    out, traces = run_phase("candidate", sql, RewriteInputs(dialect="sqlite", catalog=catalog, db=games))
    assert out == "SELECT DISTINCT yr FROM games"
    assert any(t.step == "fix_date_parts" and t.fired for t in traces)
    off = RewriteSettings(fix_date_parts=False)
    out, traces = run_phase("candidate", sql, RewriteInputs(dialect="sqlite", catalog=catalog, db=games,
                                                            switches=off))
    assert "strftime" in out.lower()
    assert not any(t.step == "fix_date_parts" for t in traces)
