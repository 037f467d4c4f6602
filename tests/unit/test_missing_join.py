"""Missing joins added along the one foreign key (rewrites.missing_join)."""

from __future__ import annotations

import pytest

from database.joins import join_graph
from rewrites.missing_join import add_missing_joins

GRAPH = join_graph({"px": [("eq_id", "eq.eq_id")], "eq": [("mic", "exch.mic")], "exch": [],
                    "idx": [("eq_id", "eq.eq_id"), ("alt_id", "eq.eq_id")]})


def test_a_qualified_table_that_was_never_joined_is_joined_and_the_shared_key_stays_the_source_s() -> None:
    sql = "SELECT day, close / LAG(close) OVER (PARTITION BY eq_id ORDER BY day) AS r FROM px WHERE eq.ticker = 'T'"
    assert add_missing_joins(sql, "sqlite", GRAPH) == (
        "SELECT day, close / LAG(close) OVER (PARTITION BY px.eq_id ORDER BY day) AS r FROM px "
        "JOIN eq ON px.eq_id = eq.eq_id WHERE eq.ticker = 'T'")
    nested = "SELECT a FROM (SELECT close AS a FROM px AS p WHERE eq.ticker = 'T') AS d"
    assert add_missing_joins(nested, "sqlite", GRAPH) == (
        "SELECT a FROM (SELECT close AS a FROM px AS p JOIN eq ON p.eq_id = eq.eq_id WHERE eq.ticker = 'T') AS d")


@pytest.mark.parametrize("sql", [
    "SELECT close FROM px JOIN eq ON px.eq_id = eq.eq_id WHERE eq.ticker = 'T'",  # joined already
    "SELECT close FROM px WHERE exch.mic = 'X'",                                     # no direct foreign key
    "SELECT n FROM eq WHERE idx.w > 1",                                              # two foreign keys: ambiguous
    "SELECT close FROM px WHERE mystery.a = 1",                                      # not a table
    "SELECT ticker FROM eq WHERE eq_id IN (SELECT eq_id FROM px WHERE px.eq_id = eq.eq_id)",  # correlated
    "WITH eq AS (SELECT 1 AS eq_id) SELECT close FROM px WHERE eq.eq_id = 1",       # a CTE of that name
    "SELEC broken ((",
])
def test_nothing_else_is_joined(sql: str) -> None:
    assert add_missing_joins(sql, "sqlite", GRAPH) is None
