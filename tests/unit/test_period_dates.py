"""Date bounds copied from an example moved onto the question's one period (rewrites.period_dates)."""

from __future__ import annotations

import pytest

from core.settings import Settings
from retrieval.store import ChromaStore
from rewrites.period_dates import align_period_dates
from tests.unit.test_agent import _ask

RETURN = ("SELECT m.TICKER, e.PX_LST / b.PX_LST - 1 AS ret FROM EQ_MSTR AS m "
          "JOIN EQ_PX_D AS b ON b.EQ_ID = m.EQ_ID AND b.TRD_DT = (SELECT MAX(TRD_DT) FROM EQ_PX_D WHERE TRD_DT < '{lo}') "
          "JOIN EQ_PX_D AS e ON e.EQ_ID = m.EQ_ID AND e.TRD_DT = (SELECT MAX(TRD_DT) FROM EQ_PX_D WHERE TRD_DT <= '{hi}') "
          "ORDER BY ret DESC LIMIT 3")


def align(sql: str, question: str) -> str | None:
    return align_period_dates(sql, "sqlite", question)


def test_an_example_s_quarter_moves_onto_the_question_s_half_year() -> None:
    copied = RETURN.format(lo="2025-06-30", hi="2025-09-30")
    assert align(copied, "Top 3 stocks by return in the first half of 2025") == RETURN.format(
        lo="2025-01-01", hi="2025-06-30")


def test_only_the_bound_that_is_off_moves_and_exclusive_operators_keep_their_sense() -> None:
    assert align(RETURN.format(lo="2024-07-01", hi="2024-12-31"), "Top 3 stocks by return in 2024") == RETURN.format(
        lo="2024-01-01", hi="2024-12-31")
    sql = "SELECT SUM(v) FROM t WHERE d > '2025-06-30' AND d < '2025-10-01'"
    assert align(sql, "Total volume in October 2025") == "SELECT SUM(v) FROM t WHERE d > '2025-09-30' AND d < '2025-11-01'"
    between = "SELECT SUM(v) FROM t WHERE d BETWEEN '2025-10-01' AND '2025-10-30'"
    assert align(between, "Total volume in October 2025") == between.replace("2025-10-30", "2025-10-31")


@pytest.mark.parametrize(("sql", "question"), [
    (RETURN.format(lo="2025-01-01", hi="2025-06-30"), "Top 3 in the first half of 2025"),   # aligned
    (RETURN.format(lo="2024-12-31", hi="2025-07-01"), "Top 3 in the first half of 2025"),   # day before / after
    ("SELECT p FROM t WHERE d BETWEEN '2024-06-20' AND '2024-06-30'", "Close as of June 30, 2024"),  # one day
    ("SELECT p FROM t WHERE d >= '2025-01-01' AND d <= '2025-10-31'", "Return so far in 2025"),      # to date
    ("SELECT t FROM c WHERE vld_fr = '2023-04-03' AND vld_to = '2023-03-31'", "Added at the April 2023 rebalance"),
    ("SELECT v FROM t WHERE d > '2025-01-01' AND d < '2025-02-01' AND e < '2025-03-01'", "Volume in 2025"),  # three
    (RETURN.format(lo="2025-06-30", hi="2025-09-30"), "First half of 2025 against the second half of 2024"),  # two periods
    (RETURN.format(lo="2025-06-30", hi="2025-09-30"), "Which stocks gained the most?"),             # none
    ("SELECT broken FROM (((", "Volume in 2025"),
])
def test_aligned_single_day_equality_and_ambiguous_queries_are_kept(sql: str, question: str) -> None:
    assert align(sql, question) is None


def test_the_agent_aligns_the_bounds_unless_turned_off(shop_settings: Settings, shop_store: ChromaStore) -> None:
    copied = {"sql": "SELECT SUM(amount) FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-01-31'"}
    question = "Total order amount in February 2024"
    out, _ = _ask(shop_settings, shop_store, question, planner={}, sql=copied)
    assert out.sql == "SELECT SUM(amount) FROM orders WHERE order_date BETWEEN '2024-02-01' AND '2024-02-29'"
    assert out.rows == [[27.25]]
    off = shop_settings.model_copy(update={"generation": shop_settings.generation.with_rewrites(align_period_dates=False)})
    out, _ = _ask(off, shop_store, question, planner={}, sql=copied)
    assert out.rows == [[10.5]]


@pytest.mark.parametrize("question", [
    "Total volume since 2020", "Total volume until 2020", "Total volume through 2020", "Volume since October 2025",
    "Volume in 2020 onwards", "Volume before June 2024", "Total volume from 2020 on",
])
def test_an_open_ended_period_keeps_its_open_end(question: str) -> None:
    since = "SELECT SUM(v) FROM t WHERE d >= '2020-01-01' AND d <= '2025-10-31'"  # to the data's last day
    assert align(since, question) is None
