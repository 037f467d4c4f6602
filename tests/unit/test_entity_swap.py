"""Entities copied from a few-shot example swapped for the question's own (rewrites.entity_swap)."""

from __future__ import annotations

from typing import Any

import pytest

from core.llm import LLMProvider, UsageLog
from core.settings import CandidateSpec, Settings
from database.connection import Database
from rewrites.entity_swap import swap_copied_entities
from tests.support.candidates import by_strategy, cand, schema_ref
from tools.base import ToolCall, ToolContext
from tools.generation import GenerateSQLTool

TENCENT = {"mention": "Tencent", "value": "Tencent Holdings Ltd.", "table": "EQ_MSTR", "column": "CO_NM",
           "id": 1030, "score": 97.0, "id_column": "EQ_ID", "siblings": {"TICKER": "0700"}}
QUESTION = "Where is Tencent incorporated?"


def test_a_copied_ticker_becomes_the_matched_entity_s_ticker_key_or_name() -> None:
    sql = "SELECT c.name FROM EQ_MSTR AS m JOIN countries AS c ON c.code = m.ISS_CTRY WHERE m.TICKER = 'SHOP'"
    assert swap_copied_entities(sql, "sqlite", QUESTION, [TENCENT]) == sql.replace("'SHOP'", "'0700'")
    assert swap_copied_entities("SELECT 1 FROM EQ_MSTR WHERE CO_NM = 'Shopify Inc.'", "sqlite", QUESTION,
                                [TENCENT]) == "SELECT 1 FROM EQ_MSTR WHERE CO_NM = 'Tencent Holdings Ltd.'"


@pytest.mark.parametrize(("sql", "question", "matches"), [
    ("SELECT 1 FROM EQ_MSTR WHERE TICKER = '0700'", QUESTION, [TENCENT]),               # already the match
    ("SELECT 1 FROM EQ_MSTR WHERE TICKER = 'SHOP'", "Is Shop listed?", [TENCENT]),       # the question names it
    ("SELECT 1 FROM EQ_MSTR WHERE LIMAR = 'XETR'", QUESTION, [TENCENT]),                 # not an entity column
    ("SELECT 1 FROM EQ_MSTR WHERE TICKER = 'SHOP'", QUESTION, []),                        # nothing matched
    ("SELECT 1 FROM EQ_MSTR WHERE TICKER = 'SHOP'", QUESTION,
     [TENCENT, {**TENCENT, "value": "Other Ltd.", "siblings": {"TICKER": "9999"}}]),      # two candidates
    ("SELECT 1 FROM prices WHERE TICKER = 'SHOP'", QUESTION, [TENCENT]),                 # another table
    ("SELEC broken ((", QUESTION, [TENCENT]),
])
def test_nothing_else_is_swapped(sql: str, question: str, matches: list[dict[str, Any]]) -> None:
    assert swap_copied_entities(sql, "sqlite", question, matches) is None


def test_the_generator_s_candidate_is_swapped_unless_turned_off(shop_settings: Settings, shop_store: Any) -> None:
    bo = {"mention": "Caio", "value": "Caio", "table": "customers", "column": "name", "id": 3, "score": 100.0,
          "id_column": "id", "siblings": {}}
    copied = "SELECT country FROM customers WHERE name = 'Ana'"
    for on, expected in ((True, "SELECT country FROM customers WHERE name = 'Caio'"), (False, copied)):
        settings = shop_settings.model_copy(update={"generation": shop_settings.generation.with_rewrites(
            swap_copied_entities=on).model_copy(update={"candidates": CandidateSpec.parse_list("direct"), "cascade": True})})
        ctx = ToolContext(settings, Database.from_settings(settings), shop_store,
                          LLMProvider(settings, {"generator": by_strategy({"repair": cand(copied)})}), UsageLog())
        tool = GenerateSQLTool()
        args = tool.build_args(ToolCall("Which country is Caio from?", "#E2", "generate_sql", "", schema_ref()), ctx)
        made = tool.run(args.model_copy(update={"matches": [bo]}), ctx).value["candidates"]
        assert made[0]["sql"] == expected
