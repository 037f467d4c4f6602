"""Answer conventions (presentation records) added to a candidate's SELECT list: rewrites.answer_shape."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from pydantic import ValidationError

from core.settings import Settings
from knowledge.files import save_knowledge
from knowledge.records import KnowledgeBase, KnowledgeRecord
from retrieval.store import ChromaStore
from rewrites.answer_shape import Convention, apply_conventions, conventions_of
from tests.unit.test_agent import _ask

NAMES = Convention("identify", (("customers", "id"), ("customers", "name")))
DATES = Convention("picked_date", (("orders", "order_date"),))
KEYS = {"customers": ["id"]}


def shape(sql: str) -> str:
    return apply_conventions(sql, "sqlite", [NAMES, DATES], KEYS)


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as con:
        return con.execute(sql).fetchall()


def test_a_list_of_several_entities_gets_their_identifying_columns(shop_db: Path) -> None:
    sql = "SELECT c.country FROM customers c WHERE c.country = 'Brazil'"
    new = shape(sql)
    assert new == "SELECT c.id, c.name, c.country FROM customers AS c WHERE c.country = 'Brazil' ORDER BY c.id"
    assert rows(shop_db, new) == [(1, "Ana", "Brazil"), (3, "Caio", "Brazil")]
    several = "SELECT amount FROM orders JOIN customers ON customers.id = orders.customer_id WHERE name IN ('Ana', 'Bo')"
    assert shape(several).startswith("SELECT customers.id, customers.name, amount")
    assert len(rows(shop_db, shape(several))) == len(rows(shop_db, several))


def test_one_pinned_entity_aggregates_distinct_and_star_are_left_alone() -> None:
    for sql in ["SELECT country FROM customers WHERE name = 'Ana'",
                "SELECT country FROM customers WHERE id IN (2)",
                "SELECT COUNT(*) FROM customers",
                "SELECT country, COUNT(*) FROM customers GROUP BY country",
                "SELECT DISTINCT country FROM customers",
                "SELECT * FROM customers",
                "SELECT id, name, country FROM customers ORDER BY id",
                "SELECT id, name FROM customers LIMIT 2",  # which rows a LIMIT keeps is the query's choice
                "SELECT SUM(amount) FROM orders",
                "not sql (("]:
        assert shape(sql) == sql, sql


def test_a_listing_is_put_in_a_stable_order_by_its_first_identifying_column(shop_db: Path) -> None:
    assert shape("SELECT id, name FROM customers") == "SELECT id, name FROM customers ORDER BY id"
    tied = "SELECT id, name, country FROM customers ORDER BY country DESC"
    assert shape(tied) == "SELECT id, name, country FROM customers ORDER BY country DESC, id"
    assert rows(shop_db, shape(tied)) == [(2, "Bo", "Sweden"), (1, "Ana", "Brazil"), (3, "Caio", "Brazil")]


def test_a_query_grouped_by_the_entity_key_gets_the_columns_in_select_and_group_by(shop_db: Path) -> None:
    sql = ("SELECT SUM(o.amount) AS total FROM orders o JOIN customers c ON c.id = o.customer_id "
           "GROUP BY c.id ORDER BY total DESC")
    new = shape(sql)
    assert new.startswith("SELECT c.id, c.name, SUM(o.amount) AS total") and "GROUP BY c.id, c.name ORDER" in new
    assert rows(shop_db, new) == [(1, "Ana", 30.5), (2, "Bo", 7.25)]


def test_a_value_picked_by_date_shows_the_date(shop_db: Path) -> None:
    latest = "SELECT amount FROM orders WHERE order_date = (SELECT MAX(order_date) FROM orders)"
    assert shape(latest) == ("SELECT order_date, amount FROM orders "
                             "WHERE order_date = (SELECT MAX(order_date) FROM orders)")
    assert rows(shop_db, shape(latest)) == [("2024-02-04", 7.25)]
    last = "SELECT o.amount FROM orders o WHERE o.customer_id = 1 ORDER BY o.order_date DESC LIMIT 1"
    assert shape(last).startswith("SELECT o.order_date, o.amount")
    for sql in ["SELECT amount FROM orders WHERE order_date = '2024-01-02'",  # the question gave the date
                "SELECT order_date, amount FROM orders ORDER BY order_date DESC LIMIT 1",
                "SELECT amount FROM orders ORDER BY amount DESC LIMIT 1",
                "SELECT MAX(amount) FROM orders WHERE order_date = (SELECT MAX(order_date) FROM orders)"]:
        assert shape(sql) == sql, sql


def test_presentation_records_validate_and_convert() -> None:
    record = KnowledgeRecord(id="who", type="presentation", convention="identify", name="customer identity",
                             definition="Listed customers show id and name.",
                             columns=["customers.id", "customers.name"], status="approved")
    assert conventions_of([record]) == [NAMES]
    with pytest.raises(ValidationError, match="needs a convention"):
        KnowledgeRecord(id="x", type="presentation", name="x", definition="x", columns=["customers.id"])
    with pytest.raises(ValidationError, match="one table"):
        KnowledgeRecord(id="x", type="presentation", convention="identify", name="x", definition="x",
                        columns=["customers.id", "orders.id"])
    with pytest.raises(ValidationError, match="TABLE.COLUMN"):
        KnowledgeRecord(id="x", type="presentation", convention="picked_date", name="x", definition="x",
                        columns=["order_date"])


def test_the_agent_applies_approved_conventions_and_never_prompts_them(
        shop_settings: Settings, shop_store: ChromaStore) -> None:
    path = shop_settings.resolved_knowledge_path()
    assert path is not None
    record = KnowledgeRecord(id="who", type="presentation", convention="identify", name="customer",
                             definition="Listed customers show their name.", columns=["customers.name"],
                             status="approved")
    save_knowledge(path, KnowledgeBase(records=[record]))
    question = "Which customers are from Brazil? Give me the customer"
    out, models = _ask(shop_settings, shop_store, question, planner={},
                       sql={"sql": "SELECT id FROM customers WHERE country = 'Brazil'"})
    assert out.sql == "SELECT name, id FROM customers WHERE country = 'Brazil' ORDER BY name"
    assert out.rows == [["Ana", 1], ["Caio", 3]]
    assert "Listed customers" not in "\n".join(str(m.content) for m in models["generator"].prompts[0])
    off = shop_settings.model_copy(update={"generation": shop_settings.generation.with_rewrites(answer_conventions=False)})
    out, _ = _ask(off, shop_store, question, planner={}, sql={"sql": "SELECT id FROM customers WHERE country = 'Brazil'"})
    assert out.sql == "SELECT id FROM customers WHERE country = 'Brazil'"


RANK = Convention("rank_measure", ())


def test_a_list_with_one_computed_figure_is_ranked_by_it_then_by_its_first_label(shop_db: Path) -> None:
    per_country = "SELECT country, COUNT(*) AS n FROM customers GROUP BY country"
    ranked = apply_conventions(per_country, "sqlite", [RANK], KEYS)
    assert ranked == "SELECT country, COUNT(*) AS n FROM customers GROUP BY country ORDER BY n DESC, country"
    assert rows(shop_db, ranked) == [("Brazil", 2), ("Sweden", 1)]
    spend = ("SELECT customers.name, orders.amount * 2 AS doubled FROM orders "
             "JOIN customers ON customers.id = orders.customer_id")
    both = apply_conventions(spend, "sqlite", [NAMES, RANK], KEYS)  # ranking first, the identity breaks ties
    assert both.endswith("ORDER BY doubled DESC, customers.name, customers.id")
    assert [r[2] for r in rows(shop_db, both)] == [40.0, 21.0, 14.5]


def test_plain_columns_time_axes_and_ordered_or_limited_lists_are_not_ranked() -> None:
    for sql in ["SELECT name, amount FROM orders JOIN customers ON customers.id = orders.customer_id",
                "SELECT substr(order_date, 1, 7) AS month, SUM(amount) FROM orders GROUP BY month",
                "SELECT order_date, SUM(amount) AS total FROM orders GROUP BY order_date",
                "SELECT country, COUNT(*) AS n FROM customers GROUP BY country ORDER BY country",
                "SELECT country, COUNT(*) AS n FROM customers GROUP BY country LIMIT 1",
                "SELECT COUNT(*) AS n, SUM(id) AS s, country FROM customers GROUP BY country",  # two figures
                "SELECT COUNT(*) FROM customers"]:  # no label
        assert apply_conventions(sql, "sqlite", [RANK], KEYS) == sql, sql


def test_a_rank_record_needs_no_columns() -> None:
    record = KnowledgeRecord(id="rank", type="presentation", convention="rank_measure", name="ranked figures",
                             definition="Lists with one figure read largest first.", status="approved")
    assert conventions_of([record]) == [RANK]


SHOW = Convention("ranked_by", ())


def test_a_top_n_pick_shows_the_figure_it_is_ranked_by(shop_db: Path) -> None:
    top = "SELECT name FROM customers JOIN orders ON orders.customer_id = customers.id ORDER BY amount DESC LIMIT 1"
    shown = apply_conventions(top, "sqlite", [SHOW], KEYS)
    assert shown == top.replace("SELECT name", "SELECT name, amount")
    assert rows(shop_db, shown) == [("Ana", 20.0)]
    grouped = "SELECT country FROM customers GROUP BY country ORDER BY COUNT(*) DESC LIMIT 1"
    assert apply_conventions(grouped, "sqlite", [SHOW], KEYS) == grouped.replace("country FROM", "country, COUNT(*) FROM")
    for kept in ["SELECT name, amount FROM orders JOIN customers ON customers.id = orders.customer_id "
                 "ORDER BY amount DESC LIMIT 1",                                      # shown
                 "SELECT country, COUNT(*) AS n FROM customers GROUP BY country ORDER BY n DESC LIMIT 1",  # alias
                 "SELECT name, id FROM customers ORDER BY 2 DESC LIMIT 1",            # position
                 "SELECT name FROM customers ORDER BY id DESC",                        # no LIMIT: not a pick
                 "SELECT DISTINCT country FROM customers ORDER BY id LIMIT 1"]:        # DISTINCT: rows could change
        assert apply_conventions(kept, "sqlite", [SHOW], KEYS) == kept, kept


def test_a_picked_date_comes_first_and_the_rank_figure_last() -> None:
    sql = "SELECT amount FROM orders ORDER BY order_date DESC LIMIT 1"
    assert apply_conventions(sql, "sqlite", [SHOW, DATES], KEYS) == (
        "SELECT order_date, amount FROM orders ORDER BY order_date DESC LIMIT 1")


SERIES = Convention("series", (("orders", "order_date"),))


def test_a_window_series_shows_its_date_and_the_column_it_reads(shop_db: Path) -> None:
    running = "SELECT SUM(amount) OVER (ORDER BY order_date) AS total FROM orders"
    shown = apply_conventions(running, "sqlite", [SERIES], KEYS)
    assert shown == "SELECT order_date, amount, SUM(amount) OVER (ORDER BY order_date) AS total FROM orders"
    assert rows(shop_db, shown) == [("2024-01-02", 10.5, 10.5), ("2024-02-03", 20.0, 30.5), ("2024-02-04", 7.25, 37.75)]
    nested = ("SELECT w.order_date, w.ma FROM (SELECT order_date, AVG(amount) OVER (ORDER BY order_date ROWS "
              "BETWEEN 1 PRECEDING AND CURRENT ROW) AS ma FROM orders) AS w WHERE w.order_date >= '2024-02-01'")
    assert apply_conventions(nested, "sqlite", [SERIES], KEYS) == (
        "SELECT w.amount, w.order_date, w.ma FROM (SELECT order_date, AVG(amount) OVER (ORDER BY order_date ROWS "
        "BETWEEN 1 PRECEDING AND CURRENT ROW) AS ma, amount FROM orders) AS w WHERE w.order_date >= '2024-02-01'")


def test_pinned_grouped_and_foreign_order_series_are_left_alone() -> None:
    for sql in ["SELECT ma FROM (SELECT order_date, AVG(amount) OVER (ORDER BY order_date) AS ma FROM orders) "
                "WHERE order_date = '2024-02-03'",                                    # one day: one value answers
                "SELECT ROW_NUMBER() OVER (ORDER BY id) AS n FROM orders",             # not ordered by a date
                "SELECT order_date, amount, SUM(amount) OVER (ORDER BY order_date) FROM orders",  # shown
                "SELECT SUM(amount) OVER (ORDER BY order_date) FROM orders LIMIT 1"]:  # a pick
        assert apply_conventions(sql, "sqlite", [SERIES], KEYS) == sql, sql


def test_a_figure_of_one_pinned_entity_is_not_ranked() -> None:
    one = "SELECT name, id * 2 AS x FROM customers WHERE name = 'Ana'"
    assert apply_conventions(one, "sqlite", [NAMES, RANK], KEYS) == one
