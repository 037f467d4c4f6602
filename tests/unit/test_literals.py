"""Filter literals respelled as stored (rewrites.literals) on a real SQLite file, and in the cascade."""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from core.llm import LLMProvider, UsageLog
from core.settings import CandidateSpec, ConsistencySettings, Settings
from database.connection import Database
from rewrites.literals import degenerate, fix_literals, fold
from tests.support.candidates import by_strategy, cand, schema_ref
from tests.support.scripted_model import ScriptedChatModel
from tools.base import ToolCall, ToolContext
from tools.generation import GenerateSQLTool


@pytest.fixture()
def companies(tmp_path: Path) -> Database:
    path = tmp_path / "co.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE co (id INTEGER PRIMARY KEY, name TEXT, state TEXT, n INTEGER);"
            "INSERT INTO co VALUES (1, 'Nestle S.A.', 'NorthCarolina', 5), (2, 'Apple Inc.', 'Texas', 7),"
            " (3, 'APPLE INC', 'Texas', 9), (4, ' AHD', 'Ohio', 0);")
    return Database(f"sqlite:///{path}")


def test_fold_drops_accents_case_spaces_and_punctuation() -> None:
    assert fold("Nestlé S.A.") == fold("nestle sa") == "nestlesa"
    assert fold("North Carolina") == fold("NorthCarolina")
    assert fold("...") == ""


@pytest.mark.parametrize(("sql", "fixed"), [
    ("SELECT id FROM co WHERE name = 'Nestlé S.A.'", "SELECT id FROM co WHERE name = 'Nestle S.A.'"),
    ("SELECT c.id FROM co AS c WHERE c.state IN ('North Carolina', 'Texas')",
     "SELECT c.id FROM co AS c WHERE c.state IN ('NorthCarolina', 'Texas')"),
    ("SELECT id FROM co WHERE 'north carolina' = state", "SELECT id FROM co WHERE 'NorthCarolina' = state"),
])
def test_literals_are_respelled_as_stored(companies: Database, sql: str, fixed: str) -> None:
    assert fix_literals(companies, sql) == fixed
    assert companies.run_query(fixed).rows


@pytest.mark.parametrize("sql", [
    "SELECT id FROM co WHERE name = 'Nestle S.A.'",     # already stored as written
    "SELECT id FROM co WHERE name = 'apple inc.'",      # two stored values fold the same: ambiguous
    "SELECT id FROM co WHERE name = 'Atlantis'",        # nothing close
    "SELECT id FROM co WHERE nope = 'Texas'",           # the probe fails: no change, no error
    "SELECT id FROM co WHERE n = 5",                    # no string literal
    "SELECT id FROM co WHERE name = 'AHD'",             # only surrounding spaces differ: left to the engine
    "SELEC broken ((",
])
def test_nothing_is_changed_without_one_unambiguous_stored_spelling(companies: Database, sql: str) -> None:
    assert fix_literals(companies, sql) is None


def _cascade(settings: Settings, store: Any, sql: str, question: str,
             **switches: bool) -> tuple[list[dict[str, Any]], ScriptedChatModel]:
    """The direct,qp cascade's candidates when every model reply is ``sql``, and the scripted model.

    ``switches`` turn rewrite steps on or off (``generation.rewrites``)."""
    settings = settings.model_copy(update={"generation": settings.generation.with_rewrites(**switches).model_copy(
        update={"candidates": CandidateSpec.parse_list("direct,qp"), "cascade": True,
                "consistency": ConsistencySettings(agree=1)})})  # the fallback: stops at the first with rows
    gen = by_strategy({"repair": cand(sql), "qp": cand(sql)})
    ctx = ToolContext(settings, Database.from_settings(settings), store,
                      LLMProvider(settings, {"generator": gen}), UsageLog())
    call = ToolCall(question, "#E2", "generate_sql", "", schema_ref())
    return GenerateSQLTool().run(GenerateSQLTool().build_args(call, ctx), ctx).value["candidates"], gen


def test_an_empty_result_is_respelled_before_any_new_call(shop_settings: Settings, shop_store: Any) -> None:
    accented = "SELECT name FROM customers WHERE country = 'brazil'"
    made, gen = _cascade(shop_settings, shop_store, accented, "Names of the customers from Brazil")
    assert [c["strategy"] for c in made] == ["direct", "literal"] and len(gen.prompts) == 1
    assert made[1]["sql"] == "SELECT name FROM customers WHERE country = 'Brazil'"
    made, _ = _cascade(shop_settings, shop_store, accented, "Names of the customers from Brazil", fix_literals=False)
    assert "literal" not in [c["strategy"] for c in made]


def test_degenerate_results_are_empty_or_one_row_of_nulls_and_zeros() -> None:
    assert degenerate([]) and degenerate([(None,)]) and degenerate([(0, None)])
    assert not degenerate([(3,)]) and not degenerate([(None,), (None,)]) and not degenerate([("",)])


def test_a_null_total_is_respelled_and_replaces_the_first_candidate(shop_settings: Settings, shop_store: Any) -> None:
    total = "SELECT SUM(id) FROM customers WHERE country = 'SWEDEN'"
    made, _ = _cascade(shop_settings, shop_store, total, "Sum of the ids of customers from Sweden")
    assert [(c["strategy"], bool(c["error"])) for c in made] == [("direct", True), ("literal", False)]
    assert made[1]["sql"] == "SELECT SUM(id) FROM customers WHERE country = 'Sweden'"


@pytest.mark.parametrize(("question", "literal", "named"), [
    ("What is the ISIN of Microsoft?", "Microsoft Corporation", True),
    ("What is the ISIN of Microsoft?", "XETR", False),
    ("Life expectancy in African countries that are republics", "Africa", True),
    ("Life expectancy in African countries that are republics", "Republic", True),
    ("Flights on 2024-06-30", "2024-06-30", True),
    ("Customers of The Company", "The Company Inc.", False),  # only stop words and suffixes in common
])
def test_named_in_reads_the_question(question: str, literal: str, named: bool) -> None:
    from rewrites.literals import named_in
    assert named_in(question, literal) is named


def test_named_in_accepts_a_value_match_code() -> None:
    from rewrites.literals import named_in
    aberdeen = {"mention": "Aberdeen", "value": "Aberdeen", "id": "APG", "siblings": {}}
    assert named_in("Flights arriving at Aberdeen", "APG", [aberdeen])
    assert not named_in("Flights arriving at Aberdeen", "APG")


def test_unasked_filters_are_dropped_from_the_outer_where() -> None:
    from rewrites.literals import drop_unasked_filters, named_in
    named = functools.partial(named_in, "What is the ISIN of Microsoft?")
    sql = "SELECT isin FROM eq WHERE co_nm = 'Microsoft Corporation' AND limar = 'XETR' AND n > 1"
    assert drop_unasked_filters(sql, "sqlite", named) == (
        "SELECT isin FROM eq WHERE co_nm = 'Microsoft Corporation' AND n > 1")
    assert drop_unasked_filters("SELECT isin FROM eq WHERE limar IN ('XETR', 'XPAR')", "sqlite", named) == (
        "SELECT isin FROM eq")
    assert drop_unasked_filters("SELECT isin FROM eq WHERE co_nm = 'Microsoft'", "sqlite", named) is None
    assert drop_unasked_filters("SELECT isin FROM eq", "sqlite", named) is None
    now = functools.partial(named_in, "Who is in the Japan Prime 20 right now?")
    assert drop_unasked_filters("SELECT t FROM c WHERE name = 'Japan Prime 20' AND vld_to = '2025-10-31'", "sqlite",
                                now) is None  # a wrong date is not an unasked filter
    assert drop_unasked_filters("SELEC (((", "sqlite", named) is None


def test_an_empty_result_drops_a_copied_filter_before_any_new_call(shop_settings: Settings, shop_store: Any) -> None:
    copied = "SELECT name FROM customers WHERE country = 'Brazil' AND name = 'Bo'"  # 'Bo' came from an example
    made, gen = _cascade(shop_settings, shop_store, copied, "Names of the customers from Brazil")
    assert [c["strategy"] for c in made] == ["direct", "unasked"] and len(gen.prompts) == 1
    assert made[1]["sql"] == "SELECT name FROM customers WHERE country = 'Brazil'"


def test_a_short_code_is_named_when_the_question_writes_it_as_a_word() -> None:
    from rewrites.literals import drop_unasked_filters, named_in
    assert named_in("What is the average math score of CA?", "CA")
    assert named_in("How many F students?", "F")
    assert not named_in("Average score in California", "CA") and not named_in("a cat's score", "CA")
    assert not named_in("What is the average math score of ca?", "CA")  # short codes match with their case
    named = functools.partial(named_in, "What is the average math score of CA?")
    sql = "SELECT AVG(math) FROM scores WHERE state = 'CA' AND kind = 'XX'"
    assert drop_unasked_filters(sql, "sqlite", named) == "SELECT AVG(math) FROM scores WHERE state = 'CA'"


def test_every_filter_named_means_the_empty_result_is_the_answer() -> None:
    from rewrites.literals import all_filters_named, named_in
    named = functools.partial(named_in, "Orders of the customer Caio in 2024 above 100")
    assert all_filters_named("SELECT id FROM o JOIN c ON c.id = o.cid WHERE c.name = 'Caio' AND o.y = 2024 "
                             "AND o.amount > 100", "sqlite", named)
    assert not all_filters_named("SELECT id FROM o WHERE o.name = 'Caio' AND o.exchange = 'XETR'", "sqlite", named)
    assert not all_filters_named("SELECT id FROM o WHERE o.amount > 50", "sqlite", named)
    assert not all_filters_named("SELEC (((", "sqlite", named)
