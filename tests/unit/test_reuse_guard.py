"""Deterministic near-miss guard of approved-answer reuse (tools.reuse_guard): shapes and entities."""

from __future__ import annotations

import pytest

from tools.reuse_guard import entity_conflict, question_kinds, shape_conflict, sql_kinds, sql_literals

TOP = "SELECT region, COUNT(*) AS n FROM stores GROUP BY region ORDER BY n DESC LIMIT 1"
TOTAL = "SELECT SUM(amount) FROM orders WHERE customer_id = 7"


@pytest.mark.parametrize(("question", "kinds"), [
    ("Which region has the most stores?", {"max"}),
    ("How many stores are there per region?", {"count"}),
    ("Total number of stores", {"count"}),
    ("What is the total amount ordered?", {"sum"}),
    ("Mean order value in 2024", {"avg"}),
    ("Quelle région a le moins de magasins ?", {"min"}),
    ("Combien de magasins ?", {"count"}),
    ("List the stores in Paris", set()),
])
def test_question_kinds(question: str, kinds: set[str]) -> None:
    assert question_kinds(question) == kinds


def test_sql_kinds_read_aggregates_and_top_n() -> None:
    assert sql_kinds(TOP) == {"count", "max"}
    assert sql_kinds("SELECT name FROM stores ORDER BY opened LIMIT 3") == {"min"}
    assert sql_kinds("SELECT name FROM stores ORDER BY opened DESC") == set()  # no LIMIT: a sort, not a top-n
    assert sql_kinds("SELEC nonsense (((") == set()


@pytest.mark.parametrize("paraphrase", [
    "Region with the highest number of stores", "Where are most of the stores?",
    "In which region is the largest count of shops?",
])
def test_paraphrases_keep_the_shape(paraphrase: str) -> None:
    assert shape_conflict(paraphrase, "Which region has the most stores?", TOP) is None


@pytest.mark.parametrize("near_miss", [
    "Which region has the fewest stores?",            # the other direction
    "How many stores does each region have?",         # every group instead of the top one
])
def test_near_misses_change_the_shape(near_miss: str) -> None:
    assert shape_conflict(near_miss, "Which region has the most stores?", TOP) is not None


def test_a_list_is_not_a_count_and_a_count_is_not_a_total() -> None:
    count = "SELECT COUNT(*) FROM stores WHERE closed IS NOT NULL"
    assert shape_conflict("Which stores have closed?", "How many stores have closed?", count) is not None
    assert shape_conflict("Number of closed stores", "How many stores have closed?", count) is None
    assert shape_conflict("How many orders did customer 7 place?", "Total amount of customer 7", TOTAL)
    assert shape_conflict("How much did customer 7 spend altogether?", "Total amount of customer 7",
                          TOTAL) is None
    assert shape_conflict("Highest order of customer 7", "Total amount of customer 7", TOTAL) is not None


def _match(mention: str, value: str, **extra: object) -> dict[str, object]:
    return {"mention": mention, "value": value, "score": 97.0, **extra}


def test_entities_are_the_approved_sql_literals_or_the_approved_question_words() -> None:
    sql = "SELECT close FROM prices p JOIN stocks s ON s.id = p.stock_id WHERE s.ticker = 'MSFT'"
    asked = "What was Microsoft's close on 2025-10-31?"
    assert sql_literals(sql) == {"msft"}
    assert entity_conflict(asked, sql, [_match("Microsoft", "Microsoft Corporation")]) is None
    assert entity_conflict(asked, sql, [_match("MSFT", "MSFT")]) is None
    assert entity_conflict(asked, sql, [_match("Microsoft Corp", "Microsoft Corporation",
                                               siblings={"TICKER": "MSFT"})]) is None  # a sibling code
    reason = entity_conflict(asked, sql, [_match("Apple", "Apple Inc.", siblings={"TICKER": "AAPL"})])
    assert reason is not None and "Apple Inc." in reason


def test_a_key_links_a_name_to_a_code_and_common_words_do_not_stop_reuse() -> None:
    sql = "SELECT rate FROM fx WHERE base = 'USD' AND quote = 'CHF'"
    asked = "What was the USD/CHF rate?"
    assert entity_conflict(asked, sql, [_match("Swiss franc", "Swiss Franc", id="CHF")]) is None
    assert entity_conflict(asked, sql, [_match("francs", "France", id="FR")]) is None  # lower-case word
    assert entity_conflict(asked, sql, [_match("JPY", "JPY", id="JPY")]) is not None
