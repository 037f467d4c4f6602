"""The SQL simplifier: what it rewrites, and that it keeps the result of every Spider dev gold query."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from core.settings import PROJECT_ROOT
from rewrites.simplify import complexity, simplify_sql

SPIDER = PROJECT_ROOT / "data" / "spider-dev"


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT T1.name FROM singer AS T1", "SELECT name FROM singer"),
    ("SELECT T1.* FROM singer AS T1 WHERE T1.age > 3", "SELECT * FROM singer WHERE age > 3"),
    ("SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid",
     "SELECT singer.name FROM singer JOIN concert ON singer.id = concert.sid"),
    ("SELECT T2.country FROM t AS T1 JOIN t AS T2 ON T1.id = T2.id WHERE T1.x = 1",
     "SELECT country FROM t WHERE x = 1"),
])
def test_rewrites(sql: str, expected: str) -> None:
    assert simplify_sql(sql, "sqlite", {"t": ["id"]}) == expected


@pytest.mark.parametrize("sql", [
    "SELECT T1.name FROM singer AS T1 WHERE T1.age > (SELECT avg(age) FROM singer)",  # a subquery
    "SELECT T1.a FROM t AS T1 JOIN t AS T2 ON T1.id = T2.parent_id",  # a self-join on another column
    "SELECT T1.a FROM t AS T1 LEFT JOIN t AS T2 ON T1.id = T2.id",  # an outer join
    "SELECT name FROM singer AS concert JOIN concert AS T2 ON concert.id = T2.sid",  # a name is an alias
    "SELECT name FROM singer",  # nothing to do
    "SELEC nonsense",  # unparsable
])
def test_leaves_alone(sql: str) -> None:
    assert simplify_sql(sql, "sqlite", {"t": ["id"]}) == sql


def test_complexity_prefers_fewer_joins_then_shorter() -> None:
    plain = "SELECT country FROM t WHERE x = 1"
    joined = "SELECT T2.country FROM t AS T1 JOIN t AS T2 ON T1.id = T2.id WHERE T1.x = 1"
    nested = "SELECT country FROM t WHERE x IN (SELECT x FROM u)"
    assert complexity(plain, "sqlite") < complexity(joined, "sqlite") < complexity("SELEC", "sqlite")
    assert complexity(plain, "sqlite") < complexity(nested, "sqlite")


def _primary_keys() -> dict[str, dict[str, list[str]]]:
    keys: dict[str, dict[str, list[str]]] = {}
    for db in json.loads((SPIDER / "tables.json").read_text(encoding="utf-8")):
        names, columns = db["table_names_original"], db["column_names_original"]
        per: dict[str, list[str]] = {}
        for pk in db["primary_keys"]:
            for index in pk if isinstance(pk, list) else [pk]:
                table, column = columns[index]
                per.setdefault(names[table].lower(), []).append(column)
        keys[db["db_id"]] = per
    return keys


def _result(conn: sqlite3.Connection, sql: str, ordered: bool) -> Any:
    rows = conn.execute(sql).fetchall()
    return rows if ordered else Counter(rows)


def test_spider_gold_results_unchanged() -> None:
    """Every Spider dev gold query returns the same rows before and after simplification."""
    items = json.loads((SPIDER / "dev.json").read_text(encoding="utf-8"))
    keys = _primary_keys()
    connections: dict[str, sqlite3.Connection] = {}
    changed, compared = 0, 0
    for item in items:
        db = item["db_id"]
        gold = item["query"]
        simple = simplify_sql(gold, "sqlite", keys.get(db, {}))
        if simple == gold:
            continue
        path = Path(SPIDER / "database" / db / f"{db}.sqlite")
        conn = connections.get(db) or sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        connections[db] = conn
        ordered = "order by" in gold.lower()
        try:
            before = _result(conn, gold, ordered)
        except sqlite3.Error:
            continue  # a gold query this SQLite cannot run tells nothing about the simplifier
        changed += 1
        assert _result(conn, simple, ordered) == before, (gold, simple)
        compared += 1
    for conn in connections.values():
        conn.close()
    assert compared == changed and changed >= 300  # most Spider gold queries use T1/T2 aliases


def test_selection_prefers_the_simplest_of_equal_results() -> None:
    from tools.execution import pick_majority

    joined = "SELECT T2.country FROM t AS T1 JOIN t AS T2 ON T1.id = T2.id WHERE T1.x = 1"
    outcomes = [
        {"index": 1, "sql": joined, "status": "ok", "signature": "a"},
        {"index": 2, "sql": "SELECT country FROM t WHERE x = 1", "status": "ok", "signature": "a"},
        {"index": 3, "sql": "SELECT 1", "status": "ok", "signature": "b"},
    ]
    assert pick_majority(outcomes, "sqlite") == 2
    assert pick_majority(outcomes[:1] + outcomes[2:], "sqlite") == 1  # a tie between groups: the first group


def test_examples_on_tables_the_question_does_not_need_are_left_out() -> None:
    from tools.examples import example_tables, on_topic

    sql = "WITH b AS (SELECT id FROM prices) SELECT * FROM b JOIN stocks ON stocks.id = b.id"
    assert example_tables(sql, "sqlite") == {"prices", "stocks"}  # the CTE is not a table
    ranking = [["stocks", 0.032], ["sectors", 0.031], ["prices", 0.016], ["index_members", 0.015], ["indices", 0.01]]
    examples = [
        {"question": "stocks per country", "sql": "SELECT COUNT(*) FROM stocks GROUP BY country"},
        {"question": "sector mix of an index", "sql": "SELECT COUNT(*) FROM index_members JOIN indices ON 1=1 "
                                                      "JOIN stocks ON 1=1"},
        {"question": "last price", "sql": sql},
    ]
    assert [e["question"] for e in on_topic(examples, ranking, "sqlite")] == ["stocks per country", "last price"]
    assert on_topic(examples, [], "sqlite") == examples
