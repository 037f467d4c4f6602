"""Column-qualifier correction (rewrites.qualify)."""

from __future__ import annotations

import pytest

from database.joins import join_graph
from rewrites.qualify import fix_qualifiers

COLUMNS = {
    "tv_channel": {"id", "series_name", "country", "language", "pixel_aspect_ratio_par"},
    "cartoon": {"id", "title", "channel"},
    "tv_series": {"id", "episode", "channel"},
    "cars_data": {"id", "weight"},
    "car_names": {"makeid", "model"},
}


def fix(sql: str) -> str:
    return fix_qualifiers(sql, "sqlite", COLUMNS)


def test_repoints_a_column_to_the_only_table_of_the_select_that_has_it() -> None:
    sql = ("SELECT TV_Channel.Pixel_aspect_ratio_PAR, Cartoon.Country FROM TV_Channel JOIN Cartoon "
           "ON TV_Channel.id = Cartoon.Channel WHERE Cartoon.Language <> 'English'")
    assert fix(sql) == ("SELECT TV_Channel.Pixel_aspect_ratio_PAR, TV_Channel.Country FROM TV_Channel JOIN Cartoon "
                        "ON TV_Channel.id = Cartoon.Channel WHERE TV_Channel.Language <> 'English'")


def test_uses_the_alias_the_query_gave_and_fixes_inside_subqueries() -> None:
    sql = ("SELECT T2.title FROM tv_channel AS T1 JOIN cartoon AS T2 ON T1.id = T2.channel "
           "WHERE T2.country IN (SELECT x.country FROM tv_channel AS x)")
    assert fix(sql) == ("SELECT T2.title FROM tv_channel AS T1 JOIN cartoon AS T2 ON T1.id = T2.channel "
                        "WHERE T1.country IN (SELECT x.country FROM tv_channel AS x)")


@pytest.mark.parametrize("sql", [
    "SELECT TV_Channel.country FROM TV_Channel",  # already right
    "SELECT Cartoon.episode FROM Cartoon JOIN TV_Channel ON Cartoon.channel = TV_Channel.id",  # in no table of it
    "SELECT Cartoon.x FROM Cartoon",
    "SELECT c.id FROM cartoon AS c",
    # two tables of the select have the column: ambiguous
    "SELECT TV_Channel.channel FROM TV_Channel JOIN Cartoon ON 1 = 1 JOIN TV_series ON 1 = 1",
    # the fix would compare car_names with itself
    "SELECT T2.Model FROM cars_data AS T1 JOIN car_names AS T2 ON T1.MakeId = T2.MakeId",
    # an unknown table or a derived table
    "SELECT m.a FROM mystery AS m",
    "SELECT d.country FROM (SELECT country FROM tv_channel) AS d",
    "not sql at all (",
])
def test_leaves_alone_what_it_cannot_fix_for_certain(sql: str) -> None:
    assert fix(sql) == sql


def test_a_table_name_used_after_its_alias_is_replaced_by_the_alias_unless_it_is_correlated() -> None:
    sql = "SELECT c.title, cartoon.channel FROM cartoon AS c JOIN tv_channel AS t ON t.id = c.channel"
    assert fix(sql) == "SELECT c.title, c.channel FROM cartoon AS c JOIN tv_channel AS t ON t.id = c.channel"
    correlated = ("SELECT title FROM cartoon WHERE id = (SELECT MAX(c2.id) FROM cartoon AS c2 "
                  "WHERE c2.channel = cartoon.channel)")
    assert fix(correlated) == correlated
    twice = "SELECT cartoon.title FROM cartoon AS a JOIN cartoon AS b ON a.id = b.id"
    assert fix(twice) == twice  # which of the two is meant is not certain


def test_a_column_no_table_of_the_select_has_does_not_stop_the_others_being_fixed() -> None:
    sql = ("SELECT Cartoon.series_name, Cartoon.episode FROM Cartoon JOIN TV_Channel "
           "ON Cartoon.channel = TV_Channel.id")
    assert fix(sql) == ("SELECT TV_Channel.series_name, Cartoon.episode FROM Cartoon JOIN TV_Channel "
                        "ON Cartoon.channel = TV_Channel.id")


BROWSERS = {
    "browser": {"id", "name", "market_share"},
    "web_client_accelerator": {"id", "name", "os"},
    "accelerator_compatible_browser": {"accelerator_id", "browser_id", "compatible_since_year"},
    "singer": {"singer_id", "name", "country"},
    "concert": {"concert_id", "concert_name"},
    "singer_in_concert": {"singer_id", "concert_id"},
}
BROWSER_KEYS = join_graph({
    "accelerator_compatible_browser": [("accelerator_id", "web_client_accelerator.id"), ("browser_id", "browser.id")],
    "singer_in_concert": [("singer_id", "singer.singer_id"), ("concert_id", "concert.concert_id")],
    "browser": [], "web_client_accelerator": [], "singer": [], "concert": []})


def test_a_column_a_neighbour_outside_the_select_also_has_is_not_unique() -> None:
    # ``T2.name`` with T2 the linking table: the accelerator's name (in the query) or the browser's (not in it)
    sql = ("SELECT T2.name FROM web_client_accelerator AS T1 JOIN accelerator_compatible_browser AS T2 "
           "ON T1.id = T2.accelerator_id WHERE T1.name = 'CProxy'")
    assert fix_qualifiers(sql, "sqlite", BROWSERS, BROWSER_KEYS) == sql
    assert fix_qualifiers(sql, "sqlite", BROWSERS).startswith("SELECT T1.name FROM")  # without the keys: as before
    # the linking table's other neighbour (concert) has no ``country``: the singer's is the only reading
    sql = ("SELECT T2.country, COUNT(*) FROM singer AS T1 JOIN singer_in_concert AS T2 "
           "ON T1.singer_id = T2.singer_id GROUP BY T2.country")
    assert fix_qualifiers(sql, "sqlite", BROWSERS, BROWSER_KEYS) == (
        "SELECT T1.country, COUNT(*) FROM singer AS T1 JOIN singer_in_concert AS T2 "
        "ON T1.singer_id = T2.singer_id GROUP BY T1.country")


def test_a_fact_table_beside_the_named_dimension_does_not_count() -> None:
    # ``m.trade_date``: the prices table of the query has it; the dividends table, which points at the same
    # company table, has it too, but nothing in ``m`` names one dividend: the prices' date is the one reading
    columns = {"company": {"id", "ticker"}, "prices": {"company_id", "trade_date", "close"},
               "dividends": {"company_id", "trade_date", "amount"}}
    keys = join_graph({"prices": [("company_id", "company.id")], "dividends": [("company_id", "company.id")],
                       "company": []})
    sql = ("SELECT m.trade_date, p.close FROM company AS m JOIN prices AS p ON p.company_id = m.id "
           "WHERE m.ticker = 'MSFT'")
    assert fix_qualifiers(sql, "sqlite", columns, keys) == sql.replace("SELECT m.trade_date", "SELECT p.trade_date")
