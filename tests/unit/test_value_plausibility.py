"""Value-linking precision: common words and schema words are not entities unless they name a whole value."""

from __future__ import annotations

from retrieval.value_matching import extract_mentions
from retrieval.value_plausibility import is_common_word, plausible, schema_words, whole_value


def _mention(question: str, text: str):  # type: ignore[no-untyped-def]
    return next(m for m in extract_mentions(question) if m.text == text)


SCHEMA = schema_words(["Customer", "Country", "InvoiceLine", "track_name", "Genre"])


def test_schema_words_split_camel_and_snake_case() -> None:
    assert {"customer", "country", "invoice", "line", "track", "name", "genre"} <= SCHEMA


def test_common_words_need_a_whole_value() -> None:
    assert is_common_word("country") and is_common_word("plot") and not is_common_word("aerosmith")
    plot = _mention("Plot total sales per year", "Plot")
    assert not plausible(plot, "Plot 180", SCHEMA)
    rock = _mention("How many tracks are Rock?", "Rock")
    assert plausible(rock, "Rock", SCHEMA) and not plausible(rock, "Rock And Roll", SCHEMA)
    apple = _mention("What did Apple close at?", "Apple")
    assert whole_value(apple, "Apple Inc.") and plausible(apple, "Apple Inc.", SCHEMA)


def test_words_naming_the_schema_are_not_values() -> None:
    country = _mention("Which country has the most customers?", "country")
    assert not plausible(country, "Country Feedback", SCHEMA)
    assert not plausible(country, "Country", SCHEMA)  # the question names the column, not a value


def test_rare_names_keep_partial_matching_and_quotes_always_pass() -> None:
    hendrix = _mention("Tracks by Hendrix", "Hendrix")
    assert plausible(hendrix, "Jimi Hendrix", SCHEMA)
    quoted = _mention('Tracks named "country"', "country")
    assert quoted.kind == "quoted" and plausible(quoted, "Country Feedback", SCHEMA)
