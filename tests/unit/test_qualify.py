"""Column-qualifier correction (rewrites.qualify)."""

from __future__ import annotations

import pytest

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
