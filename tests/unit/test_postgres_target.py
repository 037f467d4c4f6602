"""PostgreSQL as a real target database: a throwaway cluster (``scripts/postgres_target.py``) with the demo
database and Chinook; read-only role, server-side refusal of writes and long queries, index and ask end to end.

Skipped, with the reason, only when no PostgreSQL server can be installed or started on this machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from core.settings import Settings
from database.connection import Database
from retrieval.embeddings import OfflineMiniLM
from retrieval.indexing import index_database
from retrieval.store import ChromaStore


@pytest.fixture()
def urls(postgres_cluster: dict[str, str]) -> dict[str, str]:
    """Read-only URLs of the session's PostgreSQL cluster (``markets``, ``chinook``)."""
    return {k: v for k, v in postgres_cluster.items() if k in ("markets", "chinook")}


def test_server_refuses_writes_and_long_queries_without_the_guard(urls: dict[str, str]) -> None:
    engine = Database(urls["markets"], timeout_s=1).engine
    for sql, message in (("DELETE FROM eq_mstr", "read-only transaction"),
                         ("CREATE TABLE t (a int)", "read-only transaction"),
                         ("SELECT pg_sleep(5)", "statement timeout")):
        with pytest.raises(Exception, match=message), engine.connect() as conn:
            conn.execute(text(sql))


def test_guarded_queries_on_both_databases(urls: dict[str, str]) -> None:
    markets = Database(urls["markets"])
    assert markets.dialect == "postgres"
    res = markets.run_query("SELECT m.TICKER, p.PX_LST FROM EQ_PX_D p JOIN EQ_MSTR m ON m.EQ_ID = p.EQ_ID "
                            "WHERE m.TICKER = 'AAPL' AND p.TRD_DT = (SELECT MAX(TRD_DT) FROM EQ_PX_D)")
    assert res.ok and res.rows[0][0] == "AAPL"
    refused = markets.run_query("DELETE FROM eq_mstr")
    assert not refused.ok and "DELETE" in (refused.error or "")
    chinook = Database(urls["chinook"])
    assert chinook.run_query("SELECT COUNT(*) FROM customer WHERE country = 'Brazil'").rows == [(5,)]


def test_iso_date_text_is_loaded_as_date(urls: dict[str, str]) -> None:
    markets = Database(urls["markets"])
    types = markets.run_query("SELECT column_name, data_type FROM information_schema.columns "
                              "WHERE table_name = 'eq_px_d' AND column_name IN ('trd_dt', 'px_lst')")
    assert dict(types.rows) == {"trd_dt": "date", "px_lst": "double precision"}
    year = markets.run_query("SELECT EXTRACT(YEAR FROM MAX(trd_dt)) FROM eq_px_d")
    assert year.ok and int(year.rows[0][0]) >= 2024


def test_a_large_table_is_sampled_with_tablesample_through_the_guard(urls: dict[str, str]) -> None:
    from database.profiling import distinct_query, profile_table, row_count, spread_step
    from database.schema_reader import read_schema

    markets = Database(urls["markets"])
    table = next(t for t in read_schema(markets, sample_rows=0) if t.name.lower() == "eq_px_d")
    total = row_count(markets, table)
    assert total and total > 40
    step = spread_step(markets, table.name, total, total // 4)
    assert step == 4 or step == 5
    sampled = markets.run_query(distinct_query(table, "postgres", total // 4, step), row_cap=1)
    assert sampled.ok and "TABLESAMPLE SYSTEM" in sampled.sql, sampled.error
    prof = profile_table(markets, table, sample_rows=total // 4)
    held = prof["trd_dt"].distinct_sample
    assert held is not None and 0 < held <= total // 4  # TABLESAMPLE SYSTEM ran (or, no page drawn, the first rows)
    assert prof["trd_dt"].row_count == total and prof["px_lst"].max is not None  # ranges over the whole table


def test_a_count_that_does_not_finish_falls_back_to_the_planner_estimate(postgres_cluster: dict[str, str],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    from database.profiling import row_count, spread_step
    from database.results import QueryResult
    from database.schema_reader import read_schema

    admin = make_url(postgres_cluster["admin"]).set(database="markets")
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("ANALYZE eq_px_d"))
        conn.execute(text("CREATE OR REPLACE VIEW px_view AS SELECT * FROM eq_px_d"))
        conn.execute(text("GRANT SELECT ON px_view TO nl2sql_ro"))
    markets = Database(postgres_cluster["markets"])
    try:
        assert markets.run_query("SELECT COUNT(*) FROM px_view", row_cap=1).ok  # readable by the app's role
        assert spread_step(markets, "px_view", 10**9, 1000) is None  # a view refuses TABLESAMPLE: the first rows
        assert spread_step(markets, "eq_px_d", 10**9, 1000) == 10**6
    finally:  # the cluster is shared by the session's tests
        with engine.connect() as conn:
            conn.execute(text("DROP VIEW px_view"))
        engine.dispose()
    table = next(t for t in read_schema(markets, sample_rows=0) if t.name.lower() == "eq_px_d")
    exact = row_count(markets, table)
    original = markets.run_query

    def timing_out(sql: str, *, row_cap: int | None = None) -> QueryResult:
        if "COUNT(*)" in sql:
            return QueryResult(False, sql, error="Query timed out after 15 s (interrupted)")
        return original(sql, row_cap=row_cap)

    monkeypatch.setattr(markets, "run_query", timing_out)
    estimate = row_count(markets, table)
    assert exact and estimate and abs(estimate - exact) <= exact * 0.1  # ANALYZE samples; close to the count


def test_index_and_ask_end_to_end(urls: dict[str, str], tmp_path: Path, embedding_function: OfflineMiniLM) -> None:
    from agent.runner import ask, build_deps
    from tests.support.scripted_model import ScriptedChatModel

    settings = Settings(database_url=urls["chinook"], retrieval={"chroma_path": tmp_path / "chroma"},
                        local_llm={"auto_start": False}, state_dir=tmp_path / "state")
    store = ChromaStore(tmp_path / "chroma", embedding_function)
    report = index_database(Database.from_settings(settings), store, settings, progress=False)
    assert report.tables == 11
    sql = "SELECT COUNT(*) AS n FROM customer WHERE country = 'Brazil'"
    models: dict[str, Any] = {"generator": ScriptedChatModel(replies=[{"sql": sql}]),
                              "organizer": ScriptedChatModel(replies=[{"text": "x"}]),
                              "planner": ScriptedChatModel(replies=[{}])}
    out = ask(build_deps(settings, llm_overrides=models, store=store), "How many customers are from Brazil?")
    assert out.rows == [[5]] and out.kind == "answer"
    prompt = "\n".join(str(m.content) for m in models["generator"].prompts[0])
    assert "postgres" in prompt.lower() and "CREATE TABLE customer" in prompt
