"""``nl2sql ask``'s first-use indexing and terminal output (real SQLite and Chroma in temp dirs, no model)."""

from __future__ import annotations

import pytest

from agent.context import AgentDeps
from agent.outcome import Outcome
from agent.runner import build_deps
from cli.ask import format_table, index_on_first_use, print_outcome
from core.settings import Settings
from retrieval.embeddings import OfflineMiniLM
from retrieval.hybrid import load_catalog
from retrieval.store import ChromaStore


def _deps(settings: Settings, store: ChromaStore) -> AgentDeps:
    return build_deps(settings, store=store, start_local_llm=False)


def test_an_unindexed_database_is_indexed_once(shop_settings: Settings, embedding_function: OfflineMiniLM,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    store = ChromaStore(shop_settings.retrieval.chroma_path, embedding_function)
    try:
        deps = _deps(shop_settings, store)
        assert load_catalog(store, deps.db.key) is None
        assert index_on_first_use(deps) is True
        catalog = load_catalog(store, deps.db.key)
        assert catalog is not None and {"customers", "orders"} <= {t.lower() for t in catalog.names}
        assert "Indexing" in capsys.readouterr().err
        assert index_on_first_use(deps) is False  # indexed already: nothing to do, nothing printed
        assert capsys.readouterr().err == ""
    finally:
        store.close()


def test_an_indexed_database_is_left_alone(shop_settings: Settings, shop_store: ChromaStore,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert index_on_first_use(_deps(shop_settings, shop_store), quiet=True) is False
    assert capsys.readouterr().err == ""


def test_table_is_capped_with_a_count_of_the_rest() -> None:
    text = format_table(["name", "total"], [[f"n{i}", i] for i in range(25)], limit=20)
    assert "n19" in text and "n20" not in text and text.endswith("... 5 more rows")
    assert format_table([], []) == ""


def test_outcome_prints_answer_table_and_sql(capsys: pytest.CaptureFixture[str]) -> None:
    out = Outcome(question="q", answer="Two customers.", status="ok", sql="SELECT name FROM customers",
                  columns=["name"], rows=[["Ada"], ["Bo"]])
    print_outcome(out)
    text = capsys.readouterr().out
    assert text.startswith("Two customers.") and "Ada" in text and "SQL: SELECT name FROM customers" in text


def test_guessed_and_unread_columns_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    out = Outcome(question="q", answer="a good read", status="ok", sql="SELECT PROD_DSC FROM PROD",
                  columns=["PROD_DSC"], rows=[["a good read"]], unread_terms=["name"], unread_columns=["PROD.c2"])
    print_outcome(out)
    text = capsys.readouterr().out
    assert "Not named by any readable column read: name; unread columns whose names say nothing: PROD.c2" in text
    assert "Guessed from stored values" not in text



def test_range_conflicts_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    line = "200 compared with PPL.WT, whose stored values run from 82 to 94"
    out = Outcome(question="q", answer="Nine people.", status="ok", sql="SELECT NM FROM PPL WHERE WT > 200",
                  columns=["NM"], rows=[["Ann"]], range_conflicts=[line])
    print_outcome(out)
    assert f"Outside the stored values: {line}" in capsys.readouterr().out


def test_numbers_stored_as_text_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    line = "wrestler.days_held stores numbers as text: it is ordered and compared alphabetically"
    out = Outcome(question="q", answer="Ann.", status="ok", sql="SELECT name FROM wrestler ORDER BY days_held",
                  columns=["name"], rows=[["Ann"]], text_order=[line])
    print_outcome(out)
    assert f"Ordered as text: {line}" in capsys.readouterr().out


def test_joins_on_links_no_key_states_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    out = Outcome(question="q", answer="Ann.", status="ok",
                  sql="SELECT PPL.NM FROM PPL JOIN GYMNST ON PPL.NM = GYMNST.c3", columns=["NM"], rows=[["Ann"]],
                  unstated_joins=["PPL.NM = GYMNST.c3"], keys_stated=True)
    print_outcome(out)
    assert "Joined on links no foreign key states: PPL.NM = GYMNST.c3" in capsys.readouterr().out
