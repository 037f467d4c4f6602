"""As-of dates (rewrites.as_of): a date with no row read as the last day on or before it, and in the cascade."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from rewrites.as_of import as_of_dates, latest_per_series
from tests.unit.test_literals import _cascade

PRICES = """
CREATE TABLE px (eq_id INTEGER, day TEXT, close REAL, PRIMARY KEY (eq_id, day));
INSERT INTO px VALUES (1, '2024-06-27', 10.0), (1, '2024-06-28', 11.0), (2, '2024-06-26', 20.0),
                      (2, '2024-07-01', 21.0), (1, '2024-07-01', 12.0);
"""
KEYS = {"px": ["eq_id", "day"]}


@pytest.fixture()
def prices(tmp_path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(tmp_path / "px.sqlite")
    con.executescript(PRICES)
    return con


def test_a_weekend_date_reads_the_last_day_on_or_before_it_per_series(prices: sqlite3.Connection) -> None:
    sql = "SELECT p.close FROM px AS p WHERE p.day = '2024-06-30' AND p.eq_id IN (1, 2) ORDER BY p.eq_id"
    fixed = as_of_dates(sql, "sqlite", KEYS)
    assert fixed == ("SELECT p.close FROM px AS p WHERE p.day = (SELECT MAX(as_of.day) FROM px AS as_of "
                     "WHERE as_of.day <= '2024-06-30' AND as_of.day > '2024-06-20' AND as_of.eq_id = p.eq_id) "
                     "AND p.eq_id IN (1, 2) ORDER BY p.eq_id")
    assert prices.execute(fixed).fetchall() == [(11.0,), (20.0,)]  # each series' own last day


def test_without_a_key_the_whole_table_s_last_day_is_used_and_old_gaps_stay_empty(prices: sqlite3.Connection) -> None:
    fixed = as_of_dates("SELECT close FROM px WHERE '2024-06-29' = day", "sqlite", {})
    assert fixed is not None and prices.execute(fixed).fetchall() == [(11.0,)]
    far = as_of_dates("SELECT close FROM px WHERE day = '2024-09-30'", "sqlite", KEYS)
    assert far is not None and prices.execute(far).fetchall() == []  # more than 10 days after the last row


@pytest.mark.parametrize("sql", [
    "SELECT close FROM px WHERE day >= '2024-06-30'",      # a range, not a day
    "SELECT close FROM px WHERE name = 'Apple'",            # not a date
    "SELECT close FROM px WHERE day = '2024-02-30'",        # not a real date
    "SELECT close FROM px",
    "SELECT a FROM (SELECT close AS a, day FROM px) AS d WHERE d.day = '2024-06-30'",  # a derived table
    "SELEC broken ((",
])
def test_nothing_else_is_rewritten(sql: str) -> None:
    assert as_of_dates(sql, "sqlite", KEYS) is None


def test_an_empty_result_on_a_weekend_is_read_as_of_before_any_new_call(shop_settings: Settings,
                                                                         shop_store: Any) -> None:
    sunday = "SELECT amount FROM orders WHERE order_date = '2024-02-05'"
    made, gen = _cascade(shop_settings, shop_store, sunday, "Order amounts on 2024-02-05")
    assert [c["strategy"] for c in made] == ["direct", "as_of"] and len(gen.prompts) == 1
    assert "MAX(as_of.order_date)" in made[1]["sql"] and not made[1]["error"]
    made, _ = _cascade(shop_settings, shop_store, sunday, "Order amounts on 2024-02-05", as_of_dates=False)
    assert "as_of" not in [c["strategy"] for c in made]


def test_the_latest_row_for_every_series_replaces_one_latest_row(prices: sqlite3.Connection) -> None:
    one = "SELECT p.eq_id, p.day, p.close FROM px AS p ORDER BY p.day DESC LIMIT 1"
    every = latest_per_series(one, "sqlite", "Latest close for every stock", KEYS)
    assert every == ("SELECT p.eq_id, p.day, p.close FROM px AS p WHERE p.day = "
                     "(SELECT MAX(latest.day) FROM px AS latest WHERE latest.eq_id = p.eq_id)")
    assert sorted(prices.execute(every).fetchall()) == [(1, "2024-07-01", 12.0), (2, "2024-07-01", 21.0)]
    assert latest_per_series(one, "sqlite", "The latest close", KEYS) is None        # one row was asked for
    assert latest_per_series(one, "sqlite", "Latest close for every stock", {}) is None  # no series key
    assert latest_per_series(one.replace("LIMIT 1", "LIMIT 5"), "sqlite", "each stock", KEYS) is None
    assert latest_per_series("SELECT MAX(close) FROM px ORDER BY day DESC LIMIT 1", "sqlite", "each", KEYS) is None


@pytest.mark.parametrize(("question", "per_series"), [
    ("Latest close for every stock", True), ("The latest close of each stock", True),
    ("Latest close of all stocks", True), ("Latest price per stock", True),
    ("Show all prices on the latest date", False), ("List all the latest prices", False),
    ("The latest close of all", False), ("Latest close every day", False),
])
def test_all_alone_does_not_ask_for_every_series(question: str, per_series: bool) -> None:
    one = "SELECT p.eq_id, p.day, p.close FROM px AS p ORDER BY p.day DESC LIMIT 1"
    assert (latest_per_series(one, "sqlite", question, KEYS) is not None) is per_series
