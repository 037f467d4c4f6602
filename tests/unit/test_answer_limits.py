"""Output discipline: a LIMIT and a descending order only where the question asks for them."""

from __future__ import annotations

from rewrites.answer_limits import asks_rank, drop_unasked_limit, order_as_asked


def test_a_limit_goes_unless_the_question_ranks_or_counts() -> None:
    listing = "SELECT name FROM people ORDER BY birth DESC LIMIT 100"
    assert drop_unasked_limit(listing, "sqlite", "What are the names of all people?") == (
        "SELECT name FROM people ORDER BY birth DESC")
    for question in ("Which county has the largest population?", "Top 5 stocks by volume", "the 3 oldest people",
                     "Who was hired first?", "the most recent order"):
        assert asks_rank(question) and drop_unasked_limit(listing, "sqlite", question) is None
    assert not asks_rank("Which stocks earn interest since 2020?")  # -est words that are no superlative
    assert drop_unasked_limit("SELECT a FROM t LIMIT 5 OFFSET 10", "sqlite", "all a") is None  # paging stays


def test_an_asked_order_is_ascending_unless_a_descending_cue_or_a_pick() -> None:
    sql = "SELECT name FROM people ORDER BY birth DESC"
    assert order_as_asked(sql, "sqlite", "Names of all people, ordered by birth date") == (
        "SELECT name FROM people ORDER BY birth ASC")
    assert order_as_asked(sql, "sqlite", "Names of all people, in descending order of birth date") is None
    assert order_as_asked(sql, "sqlite", "Names of all people") is None  # no order asked: left alone
    assert order_as_asked(sql, "sqlite", "People ordered by age from the oldest to the youngest") is None
    assert order_as_asked(sql + " LIMIT 3", "sqlite", "people ordered by birth, 3 of them") is None
