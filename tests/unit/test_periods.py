"""Time expressions resolved to ISO date ranges (knowledge.periods) and shown with the definitions."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from core.settings import Settings
from knowledge.periods import Period, periods_block, resolve_periods
from tools.knowledge import LookupKnowledgeArgs, LookupKnowledgeTool


@pytest.mark.parametrize(("question", "expected"), [
    ("Top 5 stocks by return in 2024", [("2024", "2024-01-01", "2024-12-31")]),
    ("Best return in October 2025?", [("October 2025", "2025-10-01", "2025-10-31")]),
    ("Sales in Feb 2024", [("Feb 2024", "2024-02-01", "2024-02-29")]),  # a leap year
    ("Which three gained most in the first half of 2025?", [("first half of 2025", "2025-01-01", "2025-06-30")]),
    ("H2 2024 against the fourth quarter 2023", [("H2 2024", "2024-07-01", "2024-12-31"),
                                                  ("fourth quarter 2023", "2023-10-01", "2023-12-31")]),
    ("Q3 2024 performance", [("Q3 2024", "2024-07-01", "2024-09-30")]),
    ("Returns in the first week of September 2025", [("first week of September 2025", "2025-09-01", "2025-09-07")]),
    ("Returns for the last week of October 2025", [("last week of October 2025", "2025-10-25", "2025-10-31")]),
    ("Close as of June 30, 2024", [("June 30, 2024", "2024-06-30", "2024-06-30")]),
    ("Prices on 15 Sept 2025", [("15 Sept 2025", "2025-09-15", "2025-09-15")]),
    ("Level at the end of 2024", [("the end of 2024", "2024-12-31", "2024-12-31")]),
    ("Level at the end of June 2025", [("the end of June 2025", "2025-06-30", "2025-06-30")]),
])
def test_time_expressions_become_calendar_ranges(question: str, expected: list[tuple[str, str, str]]) -> None:
    assert [(p.text, p.start, p.end) for p in resolve_periods(question)] == expected


@pytest.mark.parametrize("question", [
    "Top 2000 stocks", "Music of the 1990s", "Close on 2025-10-31", "February 30, 2024", "fifth quarter 2024",
    "How many singers are there?", "Songs with more than 2024 plays",
])
def test_counts_iso_dates_decades_and_impossible_dates_are_not_periods(question: str) -> None:
    assert resolve_periods(question) == []


def test_year_to_date_runs_to_the_latest_date_and_the_block_is_stable() -> None:
    (ytd,) = resolve_periods("How much has the pound moved so far in 2025?")
    assert ytd == Period("so far in 2025", "2025-01-01", "2025-12-31", to_latest=True)
    assert "to the latest date in the data" in ytd.describe()
    block = periods_block("Return in October 2025")
    assert block == periods_block("Return in October 2025")
    assert block.startswith("Dates in the question") and "'2025-10-01' to '2025-10-31'" in block
    assert periods_block("How many singers are there?") == ""


def test_the_knowledge_lookup_shows_the_periods_unless_turned_off(tmp_path: Path) -> None:
    path = tmp_path / "shop.knowledge.yaml"
    path.write_text("version: 1\ndatabase: shop\nrecords: []\n")
    on = Settings(knowledge_path=path)
    off = on.model_copy(update={"retrieval": on.retrieval.model_copy(update={"period_hints": False})})
    question = LookupKnowledgeArgs(question="Orders in March 2024")
    for settings, shown in ((on, True), (off, False)):
        ctx = SimpleNamespace(settings=settings, db=SimpleNamespace(dialect="sqlite"))
        text = LookupKnowledgeTool().run(question, ctx).text  # type: ignore[arg-type]
        assert ("'2024-03-01' to '2024-03-31'" in text) is shown


@pytest.mark.parametrize(("question", "word"), [
    ("Returns since 2020", "since"), ("Close until the end of 2024", "until"), ("Volume since October 2025", "since"),
    ("Stocks listed in 2019 and later", "and later"), ("Prices before June 2024", "before"),
    ("Returns in 2024", ""), ("Volume throughout 2024", ""), ("from January 2024 to March 2024", ""),
])
def test_a_period_bounding_an_open_range_is_marked_open_ended(question: str, word: str) -> None:
    first = resolve_periods(question)[0]
    assert first.open_ended == word
    assert ("open range" in first.describe()) is bool(word)
