"""Filters on knowledge-bound codes the question never names: dropped or re-pointed (rewrites.code_filters)."""

from __future__ import annotations

import pytest

from core.settings import Settings
from knowledge.files import save_knowledge
from knowledge.lookup import KnowledgeMatcher
from knowledge.records import KnowledgeBase, KnowledgeRecord
from retrieval.store import ChromaStore
from rewrites.code_filters import code_bindings, fix_code_filters
from tests.unit.test_agent import _ask


def _synonym(rid: str, name: str, synonyms: list[str], code: str) -> KnowledgeRecord:
    return KnowledgeRecord(id=rid, type="synonym", name=name, synonyms=synonyms, status="approved",
                           definition=f"exchanges.mic = '{code}'", columns=["EQ_MSTR.LIMAR"])


RECORDS = [
    _synonym("nyse", "NYSE", ["New York Stock Exchange", "Big Board"], "XNYS"),
    _synonym("lse", "LSE", ["London Stock Exchange", "London"], "XLON"),
    _synonym("tse", "TSE", ["Tokyo Stock Exchange", "Japanese exchange"], "XTKS"),
    KnowledgeRecord(id="weighting", type="enum", name="weighting scheme", status="approved",
                    definition="Values of indices.weighting.", columns=["indices.weighting"],
                    values={"EQUAL": "equal weighted", "MCAP": "market-cap weighted"}),
    KnowledgeRecord(id="pending_code", type="synonym", name="Xetra", synonyms=["Frankfurt"], status="pending",
                    definition="exchanges.mic = 'XETR'", columns=["EQ_MSTR.LIMAR"]),
]
BINDINGS = code_bindings(RECORDS)
MATCHER = KnowledgeMatcher([r for r in RECORDS if r.status == "approved"])
RANKING = ("SELECT m.TICKER, e.PX_LST / b.PX_LST - 1 AS ret FROM EQ_MSTR AS m JOIN EQ_PX_D AS b ON b.EQ_ID = m.EQ_ID "
           "JOIN EQ_PX_D AS e ON e.EQ_ID = m.EQ_ID WHERE m.LIMAR = 'XNYS' AND b.TRD_DT = '2023-12-29' "
           "ORDER BY ret DESC LIMIT 5")


def fix(sql: str, question: str) -> str | None:
    return fix_code_filters(sql, "sqlite", question, BINDINGS, MATCHER)


def test_bindings_come_from_approved_synonyms_and_enums_with_their_distinctive_words() -> None:
    pairs = {(b.table, b.column, b.code) for b in BINDINGS}
    assert {("exchanges", "mic", "XNYS"), ("eq_mstr", "limar", "XNYS"), ("indices", "weighting", "EQUAL")} <= pairs
    assert not any(b.code == "XETR" for b in BINDINGS)  # pending records bind nothing
    tokyo = next(b for b in BINDINGS if b.code == "XTKS")
    assert set(tokyo.words) == {"tse", "tokyo", "japanese"}  # 'stock' and 'exchange' are every exchange's words


def test_a_code_the_question_never_names_is_dropped() -> None:
    assert fix(RANKING, "Top 5 stocks by return in 2024") == RANKING.replace("m.LIMAR = 'XNYS' AND ", "")
    only = "SELECT TICKER FROM EQ_MSTR WHERE LIMAR IN ('XNYS', 'XLON')"
    assert fix(only, "List every ticker") == "SELECT TICKER FROM EQ_MSTR"


def test_a_code_in_a_subquery_or_cte_is_dropped_too() -> None:
    sql = ("WITH b AS (SELECT EQ_ID FROM EQ_MSTR WHERE LIMAR = 'XLON' AND GICS_SECT = '40') "
           "SELECT COUNT(*) FROM b")
    assert fix(sql, "How many Financials stocks are there?") == sql.replace("LIMAR = 'XLON' AND ", "")


def test_the_one_other_code_the_question_names_replaces_the_copied_one() -> None:
    assert fix(RANKING, "Top 5 London stocks by return") == RANKING.replace("'XNYS'", "'XLON'")


@pytest.mark.parametrize(("sql", "question"), [
    (RANKING, "Top 5 NYSE stocks by return"),                          # the name
    (RANKING, "Top 5 stocks on the big board"),                        # a synonym, case folded
    (RANKING, "Top 5 stocks of the stock exchange in New York"),       # synonym words out of order
    (RANKING, "Top 5 XNYS stocks"),                                    # the code itself
    (RANKING.replace("XNYS", "XTKS"), "Top 5 Japan stocks by return"),  # a distinctive word's stem
    (RANKING.replace("XNYS", "XETR"), "Top 5 stocks by return"),       # a code no approved record binds
    (RANKING.replace("m.LIMAR", "m.CO_NM"), "Top 5 stocks by return"),  # another column
    (RANKING, "Top 5 London or Tokyo stocks"),                         # two other codes named: ambiguous
    ("SELECT name FROM indices WHERE weighting = 'EQUAL'", "Which indices are equal weighted?"),
    ("SELECT broken FROM", "Top 5 stocks"),
])
def test_named_unbound_or_ambiguous_filters_are_kept(sql: str, question: str) -> None:
    assert fix(sql, question) is None


def test_a_short_code_the_question_writes_is_named() -> None:
    states = [KnowledgeRecord(id="states", type="enum", name="state code", status="approved",
                              definition="Values of schools.state.", columns=["schools.state"],
                              values={"CA": "California", "NV": "Nevada"})]
    matcher = KnowledgeMatcher(states)
    sql = "SELECT AVG(math) FROM schools WHERE state = 'CA'"
    assert fix_code_filters(sql, "sqlite", "Average math score of CA", code_bindings(states), matcher) is None
    assert fix_code_filters(sql, "sqlite", "Average math score of all schools", code_bindings(states),
                            matcher) == "SELECT AVG(math) FROM schools"


def test_without_bindings_nothing_changes() -> None:
    assert fix_code_filters(RANKING, "sqlite", "Top 5 stocks", [], MATCHER) is None


def test_the_agent_drops_the_unnamed_code_unless_turned_off(shop_settings: Settings, shop_store: ChromaStore) -> None:
    path = shop_settings.resolved_knowledge_path()
    assert path is not None
    save_knowledge(path, KnowledgeBase(records=[KnowledgeRecord(
        id="sweden", type="synonym", name="Swedish", synonyms=["Sweden", "Swedes"], status="approved",
        definition="customers.country = 'Sweden'", columns=["customers.country"])]))
    copied = {"sql": "SELECT name FROM customers WHERE country = 'Sweden' ORDER BY name"}
    out, _ = _ask(shop_settings, shop_store, "List all customers by name", planner={}, sql=copied)
    assert out.sql == "SELECT name FROM customers ORDER BY name"
    assert out.rows == [["Ana"], ["Bo"], ["Caio"]]
    out, _ = _ask(shop_settings, shop_store, "List the Swedish customers by name", planner={}, sql=copied)
    assert out.rows == [["Bo"]]
    off = shop_settings.model_copy(update={"generation": shop_settings.generation.with_rewrites(drop_unnamed_codes=False)})
    out, _ = _ask(off, shop_store, "List all customers by name", planner={}, sql=copied)
    assert out.rows == [["Bo"]]
