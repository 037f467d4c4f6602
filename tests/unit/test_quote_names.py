"""Names with spaces or signs written without quotes: quoted so the query parses (rewrites.quote_names)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from database.guard import guard_sql
from rewrites.quote_names import needs_quotes, quote_names

NAMES = ["Total Revenue", "Total Revenue %", "#_Records", "rate-%", "State", "2019_sales", "2019", "FINREV"]


@pytest.mark.parametrize(("sql", "fixed"), [
    ("SELECT SUM(Total Revenue) FROM FINREV", 'SELECT SUM("Total Revenue") FROM FINREV'),
    ("SELECT SUM(total revenue %) FROM FINREV", 'SELECT SUM("Total Revenue %") FROM FINREV'),  # the longer name
    ("SELECT State FROM FINREV WHERE #_Records > 2 AND rate-% < 0.5",
     'SELECT State FROM FINREV WHERE "#_Records" > 2 AND "rate-%" < 0.5'),
    ("SELECT 2019_sales FROM FINREV WHERE yr = 2019", 'SELECT "2019_sales" FROM FINREV WHERE yr = 2019'),
    ("SELECT x FROM FINREV WHERE note = 'Total Revenue' AND \"Total Revenue\" > 1", None),  # literal, quoted
    ("SELECT [rate-%], `#_Records` FROM FINREV", None),
    ("SELECT Total_Revenue FROM FINREV", None),  # a different name: the respell step's business
    ("SELECT state, Total Revenue FROM FINREV", 'SELECT state, "Total Revenue" FROM FINREV'),  # parsed as an alias
])
def test_bare_names_are_quoted_and_nothing_else(sql: str, fixed: str | None) -> None:
    assert quote_names(sql, NAMES, "sqlite") == fixed


def test_which_names_need_quotes_and_the_dialects_quotes() -> None:
    assert [n for n in NAMES if needs_quotes(n)] == ["Total Revenue", "Total Revenue %", "#_Records", "rate-%",
                                                     "2019_sales"]
    assert quote_names("SELECT SUM(Total Revenue) FROM t", NAMES, "mysql") == "SELECT SUM(`Total Revenue`) FROM t"
    assert quote_names("SELECT 1", [], "sqlite") is None


def test_a_candidate_that_did_not_parse_runs_after_quoting(tmp_path: Path, embedding_function: Any) -> None:
    from core.settings import Settings
    from core.settings_candidates import CandidateSpec
    from database.connection import Database
    from retrieval.indexing import index_database
    from retrieval.store import ChromaStore
    from tests.support.scripted_model import ScriptedChatModel
    from tools.candidate import write_candidate

    path = tmp_path / "rev.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute('CREATE TABLE FINREV (state TEXT, "Total Revenue" REAL, "#_Records" INTEGER)')
        conn.executemany("INSERT INTO FINREV VALUES (?, ?, ?)", [("AL", 10.0, 3), ("AK", 5.5, 1)])
    conn.close()
    settings = Settings(database_url=f"sqlite:///{path}", state_dir=tmp_path / "state",
                        retrieval={"chroma_path": tmp_path / "chroma"}, local_llm={"auto_start": False})
    db = Database.from_settings(settings)
    store = ChromaStore(tmp_path / "chroma", embedding_function)
    index_database(db, store, settings, progress=False)
    written = "SELECT SUM(Total Revenue) FROM FINREV WHERE #_Records > 0"
    assert not guard_sql(written, "sqlite").ok
    from core.llm import LLMProvider
    from tools.base import ToolContext

    llms = LLMProvider(settings, overrides={"generator": ScriptedChatModel(replies=[{"sql": written}])})
    ctx = ToolContext(settings, db, store, llms)
    cand = write_candidate(ctx, "SYSTEM", "USER", CandidateSpec(strategy="direct"), 1, question="total revenue?")
    assert cand.error is None and cand.sql == 'SELECT SUM("Total Revenue") FROM FINREV WHERE "#_Records" > 0'
    assert cand.rewrites[0]["step"] == "quote_names" and cand.rewrites[0]["fired"]
    assert db.run_query(cand.sql, row_cap=5).rows == [(15.5,)]


def test_respelling_quotes_a_name_that_needs_it_and_reads_through_a_same_named_alias() -> None:
    from rewrites.respell import respell_columns

    columns = {"finrev": ["state", "Total Revenue"]}
    sql = "SELECT state, SUM(Total_Revenue) AS Total_Revenue FROM FINREV GROUP BY state ORDER BY Total_Revenue DESC"
    assert respell_columns(sql, "sqlite", columns) == ('SELECT state, SUM("Total Revenue") AS Total_Revenue FROM FINREV '
                                                       "GROUP BY state ORDER BY Total_Revenue DESC")  # the alias stays
    kept = "SELECT SUM(amount) AS Total_Revenue FROM FINREV ORDER BY Total_Revenue"
    assert respell_columns(kept, "sqlite", {"finrev": ["amount", "Total Revenue"]}) == kept  # an alias reference
