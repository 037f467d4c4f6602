"""Missing joins added along the one foreign key (rewrites.missing_join)."""

from __future__ import annotations

import pytest

from database.joins import join_graph
from rewrites.missing_join import add_missing_joins, join_column_owners

GRAPH = join_graph({"px": [("eq_id", "eq.eq_id")], "eq": [("mic", "exch.mic")], "exch": [],
                    "idx": [("eq_id", "eq.eq_id"), ("alt_id", "eq.eq_id")]})


def test_a_qualified_table_that_was_never_joined_is_joined_and_the_shared_key_stays_the_source_s() -> None:
    sql = "SELECT day, close / LAG(close) OVER (PARTITION BY eq_id ORDER BY day) AS r FROM px WHERE eq.ticker = 'T'"
    assert add_missing_joins(sql, "sqlite", GRAPH) == (
        "SELECT day, close / LAG(close) OVER (PARTITION BY px.eq_id ORDER BY day) AS r FROM px "
        "JOIN eq ON px.eq_id = eq.eq_id WHERE eq.ticker = 'T'")
    nested = "SELECT a FROM (SELECT close AS a FROM px AS p WHERE eq.ticker = 'T') AS d"
    assert add_missing_joins(nested, "sqlite", GRAPH) == (
        "SELECT a FROM (SELECT close AS a FROM px AS p JOIN eq ON p.eq_id = eq.eq_id WHERE eq.ticker = 'T') AS d")


@pytest.mark.parametrize("sql", [
    "SELECT close FROM px JOIN eq ON px.eq_id = eq.eq_id WHERE eq.ticker = 'T'",  # joined already
    "SELECT close FROM px WHERE exch.mic = 'X'",                                     # no direct foreign key
    "SELECT n FROM eq WHERE idx.w > 1",                                              # two foreign keys: ambiguous
    "SELECT close FROM px WHERE mystery.a = 1",                                      # not a table
    "SELECT ticker FROM eq WHERE eq_id IN (SELECT eq_id FROM px WHERE px.eq_id = eq.eq_id)",  # correlated
    "WITH eq AS (SELECT 1 AS eq_id) SELECT close FROM px WHERE eq.eq_id = 1",       # a CTE of that name
    "SELEC broken ((",
])
def test_nothing_else_is_joined(sql: str) -> None:
    assert add_missing_joins(sql, "sqlite", GRAPH) is None


OWNERS = join_graph({"round": [("member_id", "member.member_id")], "member": [("college_id", "college.college_id")],
                     "college": [], "dorm": [], "student": [],
                     "lives_in": [("dorm_id", "dorm.dorm_id"), ("stu_id", "student.stu_id")]})
OWNER_COLUMNS = {"round": {"round_id", "member_id", "theme"}, "member": {"member_id", "name", "country", "college_id"},
                 "college": {"college_id", "name", "city"}, "dorm": {"dorm_id", "dorm_name"},
                 "lives_in": {"stu_id", "dorm_id"}, "student": {"stu_id", "sex"}}


@pytest.mark.parametrize(("sql", "fixed"), [
    # `name` is also a college's, but only member is one foreign key away from round
    ("SELECT name, theme FROM round",
     "SELECT member.name, theme FROM round JOIN member ON round.member_id = member.member_id"),
    # through an alias; the key both tables have keeps reading round's
    ("SELECT name FROM round AS r WHERE member_id > 1 ORDER BY country",
     "SELECT member.name FROM round AS r JOIN member ON r.member_id = member.member_id WHERE r.member_id > 1 "
     "ORDER BY member.country"),
    # referenced from the other side of the foreign key; an output alias is not a column to look for
    ("SELECT theme, COUNT(*) AS n FROM member GROUP BY theme ORDER BY n",
     "SELECT round.theme, COUNT(*) AS n FROM member JOIN round ON round.member_id = member.member_id "
     "GROUP BY round.theme ORDER BY n"),
    # qualified with a table of the SELECT that only links others and lacks it, as every table there does
    ("SELECT COUNT(*) FROM lives_in WHERE lives_in.dorm_name = 'Smith'",
     "SELECT COUNT(*) FROM lives_in JOIN dorm ON lives_in.dorm_id = dorm.dorm_id WHERE dorm.dorm_name = 'Smith'"),
    ("SELECT COUNT(*) FROM lives_in AS l WHERE l.sex = 'F'",
     "SELECT COUNT(*) FROM lives_in AS l JOIN student ON l.stu_id = student.stu_id WHERE student.sex = 'F'"),
])
def test_a_column_no_table_has_is_read_from_its_one_neighbouring_owner(sql: str, fixed: str) -> None:
    assert join_column_owners(sql, "sqlite", OWNERS, OWNER_COLUMNS) == fixed


@pytest.mark.parametrize("sql", [
    "SELECT name, theme FROM round JOIN member ON round.member_id = member.member_id",  # resolves already
    "SELECT city FROM round",                          # two foreign keys away
    "SELECT nothing FROM round",                       # nobody has it
    "SELECT round.nothing FROM round",                 # nobody has it, qualified: kept as written
    "SELECT round.city FROM round",                    # qualified, two foreign keys away
    "SELECT r.name, r.theme FROM round AS r",          # qualified with a table of attributes: its intent stands
    "SELECT round.name FROM round JOIN round AS r2 ON round.round_id = r2.round_id",  # two ways to join it
    "SELECT theme FROM round WHERE theme = \"F\"",      # quoted: SQLite reads an unknown name as text
    "SELECT theme FROM round WHERE member_id IN (SELECT member_id FROM member WHERE name = theme)",  # correlated
    "SELECT x FROM (SELECT theme AS x FROM round) AS d",  # a derived table
    "SELECT dorm_name FROM lives_in AS a JOIN lives_in AS b ON a.stu_id = b.stu_id",  # two ways to join it
    "SELECT round.* FROM round",                       # a qualified star (raised before 2026-11-29)
    "SELECT member.* FROM round",                      # a star of a table not in the query
    "SELECT r.*, member.* FROM round AS r",
    "SELEC broken ((",
])
def test_what_it_cannot_place_is_left_to_the_repair(sql: str) -> None:
    assert join_column_owners(sql, "sqlite", OWNERS, OWNER_COLUMNS) is None


@pytest.mark.parametrize(("sql", "fixed"), [
    ("SELECT dorm_name FROM student",
     "SELECT dorm.dorm_name FROM student JOIN lives_in ON lives_in.stu_id = student.stu_id "
     "JOIN dorm ON lives_in.dorm_id = dorm.dorm_id"),
    # the key the linking table shares keeps reading the SELECT's own table
    # a chain of references: each round's member's college
    ("SELECT city FROM round",
     "SELECT college.city FROM round JOIN member ON round.member_id = member.member_id "
     "JOIN college ON member.college_id = college.college_id"),
    ("SELECT s.sex, dorm_name FROM student AS s WHERE stu_id > 3",
     "SELECT s.sex, dorm.dorm_name FROM student AS s JOIN lives_in ON lives_in.stu_id = s.stu_id "
     "JOIN dorm ON lives_in.dorm_id = dorm.dorm_id WHERE s.stu_id > 3"),
])
def test_an_owner_behind_a_linking_table_is_joined_through_it(sql: str, fixed: str) -> None:
    assert join_column_owners(sql, "sqlite", OWNERS, OWNER_COLUMNS, through_links=True) == fixed
    assert join_column_owners(sql, "sqlite", OWNERS, OWNER_COLUMNS) is None  # one foreign key away only


@pytest.mark.parametrize("sql", [
    "SELECT name, theme FROM round",  # one foreign key away: the direct step's business
    "SELECT theme FROM college",  # down a chain (college <- member <- round): one college, many rounds
    "SELECT nothing FROM student",
])
def test_through_links_leaves_other_shapes_alone(sql: str) -> None:
    assert join_column_owners(sql, "sqlite", OWNERS, OWNER_COLUMNS, through_links=True) is None
