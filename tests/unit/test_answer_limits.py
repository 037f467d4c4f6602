"""Output discipline: a LIMIT, a descending order and a ranking figure only where the question asks for them."""

from __future__ import annotations

import sqlite3

from rewrites.answer_limits import (
    asks_figure,
    asks_rank,
    drop_rank_figure,
    drop_unasked_limit,
    order_as_asked,
)


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


def test_a_top_pick_drops_the_figure_it_ranks_by_unless_a_figure_is_asked() -> None:
    pick = "SELECT colour, COUNT(*) FROM cars GROUP BY colour ORDER BY COUNT(*) DESC LIMIT 1"
    assert drop_rank_figure(pick, "sqlite", "Which colour do most cars have?") == (
        "SELECT colour FROM cars GROUP BY colour ORDER BY COUNT(*) DESC LIMIT 1")
    aliased = "SELECT maker, SUM(price) AS total_sold FROM cars GROUP BY maker ORDER BY total_sold DESC LIMIT 3"
    assert drop_rank_figure(aliased, "sqlite", "The three makers whose cars sold best") == (
        "SELECT maker FROM cars GROUP BY maker ORDER BY SUM(price) DESC LIMIT 3")  # the alias becomes the figure
    for question in ("Which colour is most common, and how many cars have it?", "the colour with the largest "
                     "number of cars", "Which maker sold the most, with their total?", "top colour and its count"):
        assert asks_figure(question) and drop_rank_figure(pick, "sqlite", question) is None
    assert drop_rank_figure(pick.replace(" LIMIT 1", ""), "sqlite", "colours by popularity") is None  # no pick
    assert drop_rank_figure("SELECT COUNT(*), MAX(price) FROM cars ORDER BY COUNT(*) LIMIT 1", "sqlite",
                            "which most") is None  # only aggregates would remain
    assert drop_rank_figure("SELECT DISTINCT colour, COUNT(*) FROM cars GROUP BY colour ORDER BY COUNT(*) DESC "
                            "LIMIT 1", "sqlite", "Which colour do most cars have?") is None
    assert drop_rank_figure("SELECT name, age FROM people ORDER BY age DESC LIMIT 1", "sqlite", "the oldest") is None
    assert drop_rank_figure("SELECT colour, COUNT(*), maker FROM cars GROUP BY colour, maker ORDER BY COUNT(*) DESC, 3 "
                            "LIMIT 1", "sqlite", "Which colour do most cars have?") is None  # ordinal keys stay valid
    assert drop_rank_figure("not sql at all", "sqlite", "Which colour do most cars have?") is None


def test_dropping_the_rank_figure_keeps_the_rows_picked() -> None:
    con = sqlite3.connect(":memory:")
    con.executescript("CREATE TABLE cars (colour TEXT, maker TEXT, price REAL);"
                      "INSERT INTO cars VALUES ('red','A',10),('red','B',20),('blue','A',5),('red','A',1),"
                      "('green','C',40),('blue','C',3);")
    for sql, question in (
            ("SELECT colour, COUNT(*) FROM cars GROUP BY colour ORDER BY COUNT(*) DESC LIMIT 2", "two commonest colours"),
            ("SELECT maker, SUM(price) AS s FROM cars GROUP BY maker ORDER BY s DESC LIMIT 1", "best-selling maker")):
        new = drop_rank_figure(sql, "sqlite", question)
        assert new is not None
        assert [r[0] for r in con.execute(sql)] == [r[0] for r in con.execute(new)]
