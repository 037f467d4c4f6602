"""Joins on keys that do not meet are routed through the table between them (rewrites.join_keys)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from database.joins import join_graph
from rewrites.join_keys import fix_join_keys

GRAPH = join_graph({"stadium": [], "game": [("stadium_id", "stadium.id")],
                    "injury": [("game_id", "game.id")], "ref": [("game_id", "game.id"), ("home_id", "stadium.id")]})


@pytest.mark.parametrize(("sql", "fixed"), [
    # the accident's game number compared with the stadium number: through game
    ("SELECT stadium.name, COUNT(*) FROM stadium JOIN injury ON stadium.id = injury.game_id GROUP BY stadium.id",
     "SELECT stadium.name, COUNT(*) FROM stadium JOIN game ON game.stadium_id = stadium.id "
     "JOIN injury ON injury.game_id = game.id GROUP BY stadium.id"),
    # the other way round, with aliases
    ("SELECT s.name FROM injury AS i JOIN stadium AS s ON i.game_id = s.id",
     "SELECT s.name FROM injury AS i JOIN game ON game.id = i.game_id JOIN stadium AS s ON s.id = game.stadium_id"),
])
def test_a_join_on_keys_that_do_not_meet_goes_through_the_table_between(sql: str, fixed: str) -> None:
    assert fix_join_keys(sql, "sqlite", GRAPH) == fixed


@pytest.mark.parametrize("sql", [
    "SELECT s.name FROM stadium AS s JOIN game AS g ON g.stadium_id = s.id",             # a declared key
    "SELECT 1 FROM stadium JOIN game ON game.stadium_id = stadium.id JOIN injury ON stadium.id = injury.game_id",
    "SELECT 1 FROM injury JOIN ref ON injury.game_id = ref.game_id",                     # siblings of one parent
    "SELECT 1 FROM stadium JOIN injury ON stadium.name = injury.game_id AND 1 = 1",      # not one equality
    "SELECT 1 FROM stadium JOIN (SELECT game_id FROM injury) AS d ON stadium.id = d.game_id",  # derived table
    "SELEC broken ((",
])
def test_everything_else_is_left_alone(sql: str) -> None:
    assert fix_join_keys(sql, "sqlite", GRAPH) is None


def test_no_declared_keys_no_change() -> None:
    bare = join_graph({"stadium": [], "injury": []})
    assert fix_join_keys("SELECT 1 FROM stadium JOIN injury ON stadium.id = injury.game_id", "sqlite", bare) is None


def test_the_routed_join_answers_what_was_asked(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE stadium (id INTEGER PRIMARY KEY, name TEXT);"
            "CREATE TABLE game (id INTEGER PRIMARY KEY, stadium_id INTEGER REFERENCES stadium(id));"
            "CREATE TABLE injury (id INTEGER PRIMARY KEY, game_id INTEGER REFERENCES game(id));"
            "INSERT INTO stadium VALUES (1, 'North'), (2, 'South');"
            "INSERT INTO game VALUES (1, 2), (2, 2), (3, 1);"
            "INSERT INTO injury VALUES (1, 1), (2, 2), (3, 3);")
    db = Database(f"sqlite:///{path}")
    sql = ("SELECT stadium.name FROM stadium JOIN injury ON stadium.id = injury.game_id "
           "GROUP BY stadium.id ORDER BY COUNT(*) DESC LIMIT 1")
    fixed = fix_join_keys(sql, "sqlite", GRAPH)
    assert fixed is not None
    assert db.run_query(fixed).rows == [("South",)]  # two injuries in South's games; North had one
