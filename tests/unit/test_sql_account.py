"""The plain-language account of executed SQL (tools.sql_account): one case per construct, plus a property over
gold queries: every filter value and aggregate of the SQL is in the account, and no name is invented."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from core.settings import PROJECT_ROOT
from tools.sql_account import SqlAccount, describe_sql

SHARED = PROJECT_ROOT.parent / "shared" / "benchmarks"
GOLD_SETS = {"spider-dev": SHARED / "spider-dev" / "dev.json", "spider-wide": SHARED / "spider-wide" / "dev.json"}

VOCABULARY = frozenset(re.findall(r"\w+", """
reads keeps rows row where then groups shows for each highest lowest first only skipping without duplicates using
with their matching to every keeping any match unmatched of both is not one among the greater than less at least
most from before after up during january february march april may june july august september october november
december q1 q2 q3 q4 contains contain starts start ends end matches pattern does there some no missing count
number distinct sum average minimum maximum plus minus times divided by modulo joined computed value all columns
per in order rank dense previous next last year month day and hour week length absolute part rounded or else
null true false today now union intersect except if otherwise between sub select as a together also those
parameter subtotals same name window functions on
"""))
"""The describer's own words; any other word of an account must come from the SQL or a supplied description."""

AGGREGATE_WORDS = {exp.Count: ("count", "number of"), exp.Sum: ("sum",), exp.Avg: ("average",),
                   exp.Min: ("minimum",), exp.Max: ("maximum",)}

OWN_QUERIES = [
    "SELECT c.name, SUM(i.total) AS revenue FROM customers c JOIN invoices i ON c.customer_id = i.customer_id "
    "WHERE c.country = 'Brazil' AND i.invoice_date >= '2024-01-01' AND i.invoice_date < '2025-01-01' "
    "GROUP BY c.name HAVING COUNT(*) > 2 ORDER BY revenue DESC LIMIT 5",
    "SELECT COUNT(DISTINCT customer_id), AVG(price), MIN(price), MAX(price) FROM orders WHERE amount > 100.5",
    "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert WHERE year = 2014)",
    "SELECT name FROM singer WHERE country IN ('France', 'Spain') OR age BETWEEN 20 AND 30",
    "SELECT name FROM singer WHERE name LIKE 'Jo%' AND song NOT LIKE '%love%' AND genre IS NULL",
    "SELECT a FROM t WHERE d BETWEEN '2024-04-01' AND '2024-06-30' UNION SELECT b FROM u WHERE x = -3",
    "SELECT a FROM t EXCEPT SELECT a FROM u WHERE u.flag = 'Y' INTERSECT SELECT a FROM v",
    "WITH recent AS (SELECT id, amount FROM payments WHERE paid >= '2023-03-01') "
    "SELECT COUNT(*) FROM recent WHERE amount > (SELECT AVG(amount) FROM payments)",
    "SELECT id, ROW_NUMBER() OVER (PARTITION BY region ORDER BY sales DESC) AS rk, SUM(sales) OVER () FROM shops",
    "SELECT CASE WHEN score >= 90 THEN 'A' ELSE 'B' END AS grade FROM exams WHERE NOT (score < 50)",
    "SELECT x FROM (SELECT x, y FROM (SELECT x, y FROM deep WHERE y <> 'z') AS d1) AS d2 WHERE EXISTS "
    "(SELECT 1 FROM other WHERE other.x = d2.x AND other.w LIKE '%q%')",
    'SELECT T1.name FROM people AS T1, pets AS T2 WHERE T1.id = T2.owner_id AND T2.kind = "dog" ORDER BY 1',
    "SELECT e.name, m.name FROM emp AS e LEFT JOIN emp AS m ON e.manager_id = m.id AND m.active = 1 LIMIT 10 OFFSET 20",
    "SELECT strftime('%Y', d) AS yr, group_concat(name) FROM t GROUP BY 1 HAVING SUM(amount) <= 7",
]

OTHER_DIALECTS = [
    ("postgres", "SELECT date_trunc('month', created_at) AS m, count(*) FILTER (WHERE status = 'paid') FROM orders "
                 "WHERE created_at >= DATE '2024-01-01' AND created_at < DATE '2024-04-01' GROUP BY 1 ORDER BY 1"),
    ("postgres", "SELECT EXTRACT(YEAR FROM d), amount::numeric FROM t WHERE d > now() - INTERVAL '7 days' AND a = $1"),
    ("postgres", "SELECT * FROM t, LATERAL (SELECT max(x) FROM u WHERE u.id = t.id) s"),
    ("oracle", "SELECT * FROM (SELECT a FROM t ORDER BY a DESC) WHERE ROWNUM <= 5"),
    ("oracle", "SELECT a FROM t FETCH FIRST 5 ROWS ONLY"),
    ("duckdb", "SELECT a, sum(b) FROM t GROUP BY ROLLUP (a) QUALIFY row_number() OVER (ORDER BY a) = 1"),
    ("sqlite", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n < 5) SELECT n FROM r"),
    ("sqlite", "SELECT a FROM t JOIN u USING (id) NATURAL JOIN v WHERE b = ? AND (c = 1 OR d = 2 AND e = 3)"),
    ("sqlite", "SELECT coalesce(a, 0) + 1, iif(a > 1, 'x', 'y'), substr(name, 1, 3) FROM t WHERE lower(name) LIKE '%abc%'"),
    ("sqlite", "SELECT a FROM t WHERE a > ANY (SELECT c FROM u) AND b = (SELECT max(c) FROM u WHERE u.k = t.k)"),
]


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z_][a-z0-9_]*", text.lower()))


def _operands(pred: exp.Expr) -> list[exp.Expr]:
    if isinstance(pred, exp.In):
        return list(pred.expressions)
    if isinstance(pred, exp.Between):
        return [pred.args["low"], pred.args["high"]]
    if isinstance(pred, exp.Binary) and not isinstance(pred, exp.Connector):
        return [pred.this, pred.expression]
    return []


def filter_values(tree: exp.Expr, dialect: str) -> list[tuple[str, bool]]:
    """Each literal compared in a WHERE, HAVING or ON condition: (value, is a number); a LIKE pattern without
    its outer wildcards; in SQLite a double-quoted bare name compared is the string it falls back to."""
    clauses = [*tree.find_all(exp.Where, exp.Having), *(j.args["on"] for j in tree.find_all(exp.Join)
                                                         if j.args.get("on") is not None)]
    values = []
    for clause in clauses:
        for pred in clause.find_all(exp.Predicate):
            for operand in _operands(pred):
                while isinstance(operand, exp.Paren | exp.Cast | exp.Neg):
                    operand = operand.this
                if isinstance(operand, exp.Literal):
                    values.append((operand.this, not operand.is_string))
                elif (dialect == "sqlite" and isinstance(operand, exp.Column) and not operand.table
                      and operand.this.args.get("quoted") and operand is not pred.this):
                    values.append((operand.name, False))
                else:
                    continue
                if isinstance(pred, exp.Like | exp.ILike):
                    values[-1] = (values[-1][0].strip("%"), False)
    return values


def aggregate_words(tree: exp.Expr, dialect: str) -> list[tuple[str, ...]]:
    out = []
    for node in tree.find_all(exp.AggFunc):
        head = re.match(r"\s*(\w+)", node.sql(dialect=dialect))
        out.append(AGGREGATE_WORDS.get(type(node), (head.group(1).lower() if head else "",)))
    return out


def problems(sql: str, dialect: str = "sqlite", descriptions: dict[str, str] | None = None) -> list[str]:
    """Why the account of ``sql`` is incomplete or invents a name ([] when it is complete)."""
    tree = sqlglot.parse_one(sql, read=dialect)
    account = describe_sql(sql, dialect, descriptions)
    text = account.text.lower()
    numbers = {float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)}
    found = []
    for value, numeric in filter_values(tree, dialect):
        try:
            ok = float(value) in numbers if numeric else value.lower() in text
        except ValueError:
            ok = value.lower() in text
        if not ok:
            found.append(f"value {value!r} missing")
    for options in aggregate_words(tree, dialect):
        if not any(o in text for o in options):
            found.append(f"aggregate {options[0]!r} missing")
    allowed = words(sql) | VOCABULARY | words(" ".join((descriptions or {}).values()))
    invented = words(account.text) - allowed
    if invented:
        found.append(f"invented {sorted(invented)}")
    if not account.lines() or len(account.lines()) > 4:
        found.append(f"{len(account.lines())} lines")
    return found


# -- constructs --------------------------------------------------------------------------------------------

def test_joins_filters_measures_grouping_ordering_limit() -> None:
    account = describe_sql(OWN_QUERIES[0], "sqlite")
    assert account.tables == ["customers", "invoices"]
    assert account.joins == ["customers with their invoices (matching customer_id)"]
    assert account.filters == ["country is 'Brazil'",
                               "invoice_date during 2024 (from 2024-01-01 to before 2025-01-01)"]
    assert account.group_filters == ["count of rows greater than 2"]
    assert account.measures == ["sum of total as revenue"]
    assert account.grouping == ["name"] and account.ordering == ["highest revenue first"] and account.limit == 5
    assert account.text.splitlines() == [
        "Reads customers, invoices: customers with their invoices (matching customer_id).",
        "Keeps rows where country is 'Brazil' and invoice_date during 2024 (from 2024-01-01 to before "
        "2025-01-01); then groups where count of rows greater than 2.",
        "Shows name, sum of total as revenue for each name, highest revenue first, first 5 rows."]


def test_aggregates_in_words() -> None:
    account = describe_sql(OWN_QUERIES[1], "sqlite")
    assert account.measures == ["number of distinct customer_id", "average of price", "minimum of price",
                                "maximum of price"]
    assert account.filters == ["amount greater than 100.5"]
    assert describe_sql("SELECT count(*), count(x) FROM t", "sqlite").columns == ["count of rows", "count of x"]


def test_in_like_null_not_between_and_or() -> None:
    assert describe_sql(OWN_QUERIES[2], "sqlite").filters == [
        "stadium_id is not among the stadium_id of concert where year is 2014"]
    assert describe_sql(OWN_QUERIES[3], "sqlite").filters == [
        "(country is one of 'France', 'Spain' or age between 20 and 30)"]
    assert describe_sql(OWN_QUERIES[4], "sqlite").filters == [
        "name starts with 'Jo'", "song does not contain 'love'", "genre is missing"]
    assert describe_sql(OWN_QUERIES[9], "sqlite").filters == ["not score less than 50"]
    assert describe_sql("SELECT a FROM t WHERE b LIKE '%x' AND c LIKE 'a_b' AND d IS NOT NULL AND e != 'q'",
                        "sqlite").filters == ["b ends with 'x'", "c matches the pattern 'a_b'", "d is not missing",
                                              "e is not 'q'"]


def test_date_ranges_name_the_period() -> None:
    quarter = describe_sql(OWN_QUERIES[5], "sqlite")
    assert quarter.filters == ["d during Q2 2024 (from 2024-04-01 to 2024-06-30)"]
    month = describe_sql("SELECT 1 FROM t WHERE d >= '2024-02-01' AND d <= '2024-02-29'", "sqlite")
    assert month.filters == ["d during February 2024 (from 2024-02-01 to 2024-02-29)"]
    odd = describe_sql("SELECT 1 FROM t WHERE d < '2024-03-15' AND d >= '2024-01-10'", "sqlite")
    assert odd.filters == ["d from 2024-01-10 to before 2024-03-15"]
    assert describe_sql("SELECT 1 FROM t WHERE d > '2024-01-01'", "sqlite").filters == ["d after 2024-01-01"]


def test_set_operations_and_subqueries() -> None:
    union = describe_sql(OWN_QUERIES[5], "sqlite")
    assert union.set_operations == ["together with (union) b of u where x is -3"]
    chained = describe_sql(OWN_QUERIES[6], "sqlite")
    assert chained.set_operations == ["except those in (except) a of u where flag is 'Y'",
                                      "only those also in (intersect) a of v"]
    cte = describe_sql(OWN_QUERIES[7], "sqlite")
    assert cte.tables == ["payments"]
    assert cte.subqueries == ["recent: id, amount of payments where paid on or after 2023-03-01"]
    assert cte.filters == ["amount greater than the average of amount of payments"]
    nested = describe_sql(OWN_QUERIES[10], "sqlite")
    assert nested.tables == ["deep", "other"] and nested.filters[0].startswith("there is some 1 of other where")
    assert nested.subqueries == ["d2: x, y of d1 (d1: x, y of deep where y is not 'z')"]


def test_windows_case_and_comma_joins() -> None:
    window = describe_sql(OWN_QUERIES[8], "sqlite")
    assert window.columns == ["id", "row number per region in order of highest sales first as rk",
                              "sum of sales"]
    assert describe_sql(OWN_QUERIES[9], "sqlite").columns == ["'A' if score at least 90, 'B' otherwise as grade"]
    comma = describe_sql(OWN_QUERIES[11], "sqlite")
    assert comma.joins == ["people with their pets (matching id to owner_id)"]
    assert comma.filters == ["kind is 'dog'"] and comma.ordering == ["lowest name first"]
    left = describe_sql(OWN_QUERIES[12], "sqlite")
    assert left.joins == ["emp with their emp (matching manager_id to id), keeping emp without any emp"]
    assert left.filters == ["active is 1"] and (left.limit, left.offset) == (10, 20)
    assert describe_sql("SELECT a FROM t CROSS JOIN u", "sqlite").joins == ["t with every u"]
    spider = describe_sql("SELECT T1.name FROM attractions AS T1 JOIN visitors AS T2 JOIN visits AS T3 "
                          "ON T1.id = T3.attraction_id AND T2.id = T3.visitor_id WHERE T2.name = 'Vincent'", "sqlite")
    assert spider.joins == ["attractions with their visits (matching id to attraction_id)",
                            "visitors with their visits (matching id to visitor_id)"]
    assert spider.filters == ["name is 'Vincent'"]  # no "true" from the ON-less first join
    outer = describe_sql("SELECT c.name, COUNT(i.id) FROM customers c LEFT JOIN invoices i "
                         "ON i.customer_id = c.id GROUP BY c.name", "sqlite")
    assert outer.joins == ["customers with their invoices (matching id to customer_id), "
                           "keeping customers without any invoices"]


def test_descriptions_and_measure_names() -> None:
    account = describe_sql("SELECT SUM(invoices.total) FROM invoices", "sqlite", descriptions={"INVOICES": "sales"},
                           measures={"sum(total)": "revenue", "not sql ((": "broken"})
    assert account.tables == ["invoices (sales)"]
    assert account.measures == ["revenue (sum of total)"]
    assert account.text.splitlines()[0] == "Reads invoices (sales)."


def test_other_dialects_and_rarer_constructs() -> None:
    pg = describe_sql(OTHER_DIALECTS[0][1], "postgres")
    assert pg.filters == ["created_at during Q1 2024 (from 2024-01-01 to before 2024-04-01)"]
    assert pg.columns == ["month of created_at as m", "count of rows where status is 'paid'"]
    assert pg.grouping == ["month of created_at"] and pg.ordering == ["lowest month of created_at first"]
    assert describe_sql(OTHER_DIALECTS[1][1], "postgres").filters == ["d greater than now minus 7 days",
                                                                      "a is a parameter"]
    assert describe_sql(OTHER_DIALECTS[1][1], "postgres").columns == ["year of d", "amount"]
    assert describe_sql(OTHER_DIALECTS[4][1], "oracle").limit == 5
    duck = describe_sql(OTHER_DIALECTS[5][1], "duckdb")
    assert duck.grouping == ["a with subtotals"]
    assert duck.filters == ["row number in order of lowest a first is 1 (after the window functions)"]
    joined = describe_sql(OTHER_DIALECTS[7][1], "sqlite")
    assert joined.joins == ["t with their u (matching id)", "t with their v (matching the columns of the same name)"]
    assert joined.filters == ["b is a parameter", "(c is 1 or (d is 2 and e is 3))"]
    correlated = describe_sql(OTHER_DIALECTS[9][1], "sqlite")
    assert correlated.filters == ["a greater than any of the c of u", "b is the maximum of c of u where u.k is t.k"]
    assert describe_sql(OTHER_DIALECTS[8][1], "sqlite").columns == [
        "a or else 0 plus 1", "'x' if a greater than 1, 'y' otherwise", "part of name, 1, 3"]


def test_never_raises_and_odd_sql_is_generic() -> None:
    for sql in ("", "garbage ((", "DELETE FROM t", "SELECT 1; SELECT 2", "UPDATE t SET a = 1"):
        assert describe_sql(sql, "sqlite") == SqlAccount() and describe_sql(sql, "sqlite").text == ""
    odd = describe_sql("SELECT json_extract(doc, '$.a') FROM t WHERE json_extract(doc, '$.b') = 'x'", "sqlite")
    assert odd.columns == ["json_extract of doc, '$.a'"]
    assert describe_sql("SELECT a FROM t", "no-such-dialect") == SqlAccount()
    assert describe_sql("SELECT DISTINCT a FROM t", "postgres").distinct


# -- property over gold queries ----------------------------------------------------------------------------

def test_own_queries_are_complete() -> None:
    found = {sql: p for sql in OWN_QUERIES if (p := problems(sql))}
    found |= {sql: p for dialect, sql in OTHER_DIALECTS if (p := problems(sql, dialect))}
    assert found == {}
    assert problems(OWN_QUERIES[0], descriptions={"customers": "people who bought"}) == []


def test_the_property_catches_a_missing_value_or_an_invented_name(monkeypatch: pytest.MonkeyPatch) -> None:
    sql = "SELECT name FROM singer WHERE age > 30 AND country = 'France'"
    dropped = describe_sql(sql, "sqlite").model_copy(update={"filters": ["age greater than 30"]})
    monkeypatch.setattr(sys.modules[__name__], "describe_sql", lambda *a, **k: dropped)
    assert problems(sql) == ["value 'France' missing"]
    invented = dropped.model_copy(update={"filters": ["age greater than 30", "country is 'France'"],
                                          "columns": ["nickname", "count of rows"]})
    monkeypatch.setattr(sys.modules[__name__], "describe_sql", lambda *a, **k: invented)
    assert problems(sql) == ["invented ['nickname']"]


def _gold(name: str) -> list[str]:
    path: Path = GOLD_SETS[name]
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared benchmarks live outside the project)")
    return [row["query"] for row in json.loads(path.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("name", sorted(GOLD_SETS))
def test_gold_queries_are_complete(name: str) -> None:
    queries = _gold(name)
    found = {sql: p for sql in queries if (p := problems(sql))}
    share = 1 - len(found) / len(queries)
    print(f"{name}: {len(queries) - len(found)}/{len(queries)} complete accounts ({share:.1%})")
    assert not found, f"{share:.2%} complete; first: {list(found.items())[:5]}"
