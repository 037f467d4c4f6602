"""Look-back windows computed before the date filter (rewrites.window_scope) on a real SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rewrites.window_scope import lift_window_filters

PX = """
CREATE TABLE px (eq INTEGER, day TEXT, close REAL);
INSERT INTO px VALUES (1, '2024-01-01', 10), (1, '2024-01-02', 20), (1, '2024-01-03', 30), (1, '2024-01-04', 40),
                      (2, '2024-01-03', 5), (2, '2024-01-04', 6);
"""


@pytest.fixture()
def px(tmp_path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(tmp_path / "px.sqlite")
    con.executescript(PX)
    return con


def test_a_moving_average_on_one_day_sees_the_days_before(px: sqlite3.Connection) -> None:
    sql = ("SELECT AVG(close) OVER (ORDER BY day ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS ma3 "
           "FROM px WHERE eq = 1 AND day = '2024-01-04'")
    assert px.execute(sql).fetchall() == [(40.0,)]  # the filter left one row to average
    lifted = lift_window_filters(sql, "sqlite")
    assert lifted == ("SELECT w.ma3 FROM (SELECT AVG(close) OVER (ORDER BY day ROWS BETWEEN 2 PRECEDING AND "
                      "CURRENT ROW) AS ma3, day FROM px WHERE eq = 1) AS w WHERE w.day = '2024-01-04'")
    assert px.execute(lifted).fetchall() == [(30.0,)]


def test_a_daily_return_keeps_its_first_day_and_the_order_and_limit(px: sqlite3.Connection) -> None:
    sql = ("SELECT p.day, p.close / LAG(p.close) OVER (PARTITION BY p.eq ORDER BY p.day) - 1 AS ret FROM px AS p "
           "WHERE p.day BETWEEN '2024-01-03' AND '2024-01-04' ORDER BY ret DESC LIMIT 2")
    lifted = lift_window_filters(sql, "sqlite")
    assert lifted is not None and lifted.endswith("ORDER BY w.ret DESC LIMIT 2")
    assert px.execute(lifted).fetchall() == [("2024-01-03", 0.5), ("2024-01-04", 0.33333333333333326)]


@pytest.mark.parametrize("sql", [
    "SELECT day, SUM(close) OVER (ORDER BY day) AS running FROM px WHERE day >= '2024-01-02'",  # a running total
    "SELECT day, close FROM px WHERE day = '2024-01-04'",                                        # no window
    "SELECT LAG(close) OVER (ORDER BY day) AS prev FROM px WHERE eq = 1",                        # no date filter
    "SELECT LAG(close) OVER (ORDER BY day) FROM px WHERE day = '2024-01-04'",                    # unnamed column
    "SELECT day, LAG(close) OVER (ORDER BY day) AS prev FROM px WHERE day = '2024-01-04' ORDER BY close * 2",
    "SELEC broken ((",
])
def test_nothing_else_is_rewritten(sql: str) -> None:
    assert lift_window_filters(sql, "sqlite") is None


def test_the_derived_table_gets_an_alias_the_query_does_not_use(px: sqlite3.Connection) -> None:
    sql = "SELECT w.day, LAG(w.close) OVER (ORDER BY w.day) AS prev FROM px AS w WHERE w.eq = 1 AND w.day = '2024-01-02'"
    lifted = lift_window_filters(sql, "sqlite")
    assert lifted is not None and ") AS w1 WHERE w1.day = '2024-01-02'" in lifted
    assert px.execute(lifted).fetchall() == [("2024-01-02", 10.0)]
