"""Conversion rates of a row's own currency divide, never multiply (rewrites.rate_direction)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from pydantic import ValidationError

from core.settings import Settings
from knowledge.files import save_knowledge
from knowledge.records import KnowledgeBase, KnowledgeRecord
from retrieval.store import ChromaStore
from rewrites.rate_direction import RateSpec, fix_rate_direction, rate_specs
from tests.unit.test_agent import _ask

FX = KnowledgeRecord(id="fx", type="metric", name="exchange rate", definition="Units of the quote per 1 USD.",
                     sql="fx.rate", rate="fx.rate = fx.quote per fx.base", status="approved")
SPECS = rate_specs([FX])
TOYOTA = ("SELECT p.px, p.px * f.rate AS usd FROM px AS p JOIN eq AS m ON m.id = p.id "
          "JOIN fx AS f ON f.base = 'USD' AND f.quote = m.ccy AND f.day = p.day WHERE m.ticker = '7203'")


def fix(sql: str) -> str | None:
    return fix_rate_direction(sql, "sqlite", SPECS)


def test_specs_come_from_approved_rate_records_and_the_form_is_checked() -> None:
    assert rate_specs([FX]) == [RateSpec("fx", "rate", "quote", "base")]
    assert rate_specs([FX.model_copy(update={"status": "pending"})]) == []
    with pytest.raises(ValidationError, match="TABLE.RATE = TABLE.QUOTE per TABLE.BASE"):
        KnowledgeRecord(id="x", type="metric", name="x", definition="x", sql="x", rate="fx.rate per fx.quote")
    with pytest.raises(ValidationError, match="one table"):
        KnowledgeRecord(id="x", type="metric", name="x", definition="x", sql="x", rate="fx.rate = eq.ccy per fx.base")


def test_an_amount_times_its_own_currency_rate_is_divided_instead() -> None:
    assert fix(TOYOTA) == TOYOTA.replace("p.px * f.rate", "p.px / f.rate")
    swapped = TOYOTA.replace("p.px * f.rate", "COALESCE(f.rate, 1) * m.shares * p.px")
    assert fix(swapped) == TOYOTA.replace("p.px * f.rate", "m.shares / COALESCE(f.rate, 1) * p.px")  # same value


@pytest.mark.parametrize("sql", [
    TOYOTA.replace("p.px * f.rate", "p.px / f.rate"),                          # already right
    TOYOTA.replace("f.quote = m.ccy", "f.quote = 'EUR'"),                       # dollars to euros: multiply
    TOYOTA.replace("p.px * f.rate", "p.px * m.shares"),                        # no rate in the product
    "SELECT a.rate * 2 FROM fx AS a JOIN fx AS b ON b.quote = a.quote",         # a cross of two rates
    "SELECT 1 FROM (((",
])
def test_other_arithmetic_is_kept(sql: str) -> None:
    assert fix(sql) is None


def test_the_agent_applies_the_rate_record(shop_settings: Settings, shop_store: ChromaStore, shop_db: Path) -> None:
    with sqlite3.connect(shop_db) as con:
        con.executescript("CREATE TABLE fx (base TEXT, quote TEXT, rate REAL);"
                          "INSERT INTO fx VALUES ('USD', 'BRL', 5.0), ('USD', 'SEK', 10.0);"
                          "ALTER TABLE customers ADD COLUMN ccy TEXT;"
                          "UPDATE customers SET ccy = CASE country WHEN 'Brazil' THEN 'BRL' ELSE 'SEK' END;")
    path = shop_settings.resolved_knowledge_path()
    assert path is not None
    save_knowledge(path, KnowledgeBase(records=[FX]))
    wrong = {"sql": "SELECT o.amount * f.rate AS usd FROM orders AS o JOIN customers AS c ON c.id = o.customer_id "
                    "JOIN fx AS f ON f.base = 'USD' AND f.quote = c.ccy WHERE o.id = 1"}
    out, _ = _ask(shop_settings, shop_store, "What was order 1 in US dollars?", planner={}, sql=wrong)
    assert out.rows == [[2.1]]
    off = shop_settings.model_copy(update={"generation": shop_settings.generation.with_rewrites(fix_rate_direction=False)})
    out, _ = _ask(off, shop_store, "What was order 1 in US dollars?", planner={}, sql=wrong)
    assert out.rows == [[52.5]]
