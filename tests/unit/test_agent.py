"""The ReWOO graph end to end with scripted fake LLMs, real SQLite and a real Chroma store."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from agent.outcome import Outcome
from agent.runner import ask, build_deps
from core.settings import CandidateSpec, Settings
from database.connection import Database
from retrieval.embeddings import OfflineMiniLM
from retrieval.indexing import index_database
from retrieval.store import ChromaStore
from tests.support.scripted_model import ScriptedChatModel

GOOD_PLAN = {"steps": [
    {"id": "#E1", "tool": "retrieve_schema", "input": "customers country", "description": "tables"},
    {"id": "#E2", "tool": "retrieve_examples", "input": "count customers", "description": "examples"},
    {"id": "#E3", "tool": "generate_sql", "input": "How many customers are from Brazil? #E1 #E2"},
    {"id": "#E4", "tool": "execute_sql", "input": "#E3"},
]}
COUNT_SQL = "SELECT COUNT(*) AS n FROM customers WHERE country = 'Brazil'"


def _fakes(planner: Any = GOOD_PLAN, sql: Any = None, text: Any = None) -> dict[str, ScriptedChatModel]:
    return {
        "planner": ScriptedChatModel(replies=[planner]),
        "generator": ScriptedChatModel(replies=[sql if sql is not None else {"reasoning": "plan", "sql": COUNT_SQL}]),
        "organizer": ScriptedChatModel(replies=[text if text is not None else {"text": "2 customers are from Brazil."}]),
    }


def _ask(settings: Settings, store: ChromaStore, question: str, **fakes: Any) -> tuple[Outcome, dict]:
    """Ask with scripted models; any planner reply but a compact plan (a dict without ``steps``) selects the
    full plan format, so the planner is called and its failures can be tested."""
    planner = fakes.get("planner", GOOD_PLAN)
    if not (isinstance(planner, dict) and "steps" not in planner):
        settings = settings.model_copy(update={"plan_format": "full"})
    models = _fakes(**fakes)
    deps = build_deps(settings, llm_overrides=models, store=store)  # type: ignore[arg-type]
    return ask(deps, question), models


def _prompt_text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


def test_answers_with_planner_plan(shop_settings: Settings, shop_store: ChromaStore) -> None:
    out, models = _ask(shop_settings, shop_store, "How many customers are from Brazil?")
    assert out.status == "ok"
    assert out.rows == [[2]] and out.columns == ["n"]
    assert out.answer == "N: 2"  # one row: the template phrases it, no organizer call
    assert out.account == ["Reads customers.", "Keeps rows where country is 'Brazil'.",  # no LLM call
                           "Shows count of rows as n."]
    assert out.to_json()["account"] == out.account
    assert out.plan_source == "planner" and out.plan_error is None
    assert out.index_snapshot  # the trace records which index snapshot answered
    assert out.llm_calls == 3  # planner, the direct and the plain candidate (they agree: the cascade stops)
    assert not models["organizer"].prompts
    assert out.prompt_tokens > 0 and out.completion_tokens > 0
    # the plain candidate reuses the direct candidate's prompt up to the hints: served from the prompt cache
    assert 0 < out.cached_tokens < out.prompt_tokens
    assert all(0 <= u["cached_tokens"] <= u["prompt_tokens"] for u in out.usage)
    generator_prompt = _prompt_text(models["generator"].prompts[0])
    assert "customers" in generator_prompt and "country" in generator_prompt
    assert "How many orders are there?" in generator_prompt  # the retrieved few-shot example
    steps = [(t["step"], t["tool"]) for t in out.trace if t["node"] == "run_step"]
    assert steps[-2:] == [("#E5", "judge_sql"), ("#E6", "verify_sql")]  # appended by plan completion


def test_invalid_plan_falls_back_and_records_it(shop_settings: Settings, shop_store: ChromaStore) -> None:
    bad = {"steps": [{"id": "#E1", "tool": "generate_sql", "input": "#E2"},
                     {"id": "#E2", "tool": "retrieve_schema", "input": "x"}]}
    out, _ = _ask(shop_settings, shop_store, "How many customers are from Brazil?", planner=bad)
    assert out.status == "ok" and out.rows == [[2]]
    assert out.plan_source == "fallback"
    assert "not an earlier step" in out.plan_error


def test_malformed_planner_json_falls_back(shop_settings: Settings, shop_store: ChromaStore) -> None:
    out, models = _ask(shop_settings, shop_store, "How many customers are from Brazil?", planner="not json {")
    assert out.plan_source == "fallback" and out.status == "ok"
    planner_calls = [u for u in out.usage if u["role"] == "planner"]
    assert len(planner_calls) == 2 and not any(u["ok"] for u in planner_calls)  # 1 try + 1 retry


def test_two_statements_are_refused_and_database_unchanged(
    shop_settings: Settings, shop_store: ChromaStore, shop_db: Path
) -> None:
    before = hashlib.sha256(shop_db.read_bytes()).hexdigest()
    out, _ = _ask(shop_settings, shop_store, "How many customers are from Brazil?",
                  sql={"reasoning": "plan", "sql": "SELECT 1; DROP TABLE customers"})
    assert out.status == "error"
    assert "statement" in out.answer.lower()
    assert hashlib.sha256(shop_db.read_bytes()).hexdigest() == before


def test_invented_column_reports_database_error(shop_settings: Settings, shop_store: ChromaStore) -> None:
    out, _ = _ask(shop_settings, shop_store, "Total revenue?", sql={"reasoning": "plan", "sql": "SELECT SUM(revenue) FROM orders"})
    assert out.status == "error"
    assert "revenue" in out.answer
    assert out.sql == "SELECT SUM(revenue) FROM orders"


def test_organizer_cannot_invent_numbers(shop_settings: Settings, shop_store: ChromaStore) -> None:
    per_country = {"reasoning": "", "sql": "SELECT country, COUNT(*) AS n FROM customers GROUP BY country"}
    out, models = _ask(shop_settings, shop_store, "How many customers per country?", sql=per_country,
                       text={"text": "There are 42 customers from Brazil."})
    assert models["organizer"].prompts  # two rows: the organizer writes a sentence...
    assert "42" not in out.answer  # ...but a number not in the result is never shown
    assert out.rows == [["Brazil", 2], ["Sweden", 1]]


def test_endpoint_down_gives_clear_message(shop_settings: Settings, shop_store: ChromaStore) -> None:
    down = ConnectionError("Connection refused")
    out, _ = _ask(shop_settings, shop_store, "How many customers are from Brazil?", planner=down, sql=down)
    assert out.status == "error"
    assert "unreachable" in out.answer
    assert out.plan_source == "fallback"


def test_bad_question_is_rejected_without_llm_calls(shop_settings: Settings, shop_store: ChromaStore) -> None:
    for question in ("", "   ", "?!?", "x" * 5000):
        out, models = _ask(shop_settings, shop_store, question)
        assert out.status == "error" and out.llm_calls == 0 and out.answer
        assert not models["planner"].prompts


def test_missing_index_is_explained(tmp_path: Path, shop_settings: Settings, embedding_function: Any) -> None:
    empty_store = ChromaStore(tmp_path / "empty-chroma", embedding_function)
    out, _ = _ask(shop_settings, empty_store, "How many customers are from Brazil?")
    assert out.status == "error" and "nl2sql index" in out.answer


def test_default_plan_resolves_values_for_the_generator(shop_settings: Settings, shop_store: ChromaStore) -> None:
    out, models = _ask(shop_settings, shop_store, "How many orders did Caio place?", planner="invalid",
                       sql={"reasoning": "plan", "sql": "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id "
                                   "WHERE c.name = 'Caio'"})
    assert out.plan_source == "fallback"
    assert [s["tool"] for s in out.plan] == ["retrieve_schema", "retrieve_examples", "search_values",
                                                 "lookup_knowledge", "check_question", "generate_sql", "execute_sql",
                                                 "judge_sql", "verify_sql"]
    prompt = _prompt_text(models["generator"].prompts[0])
    assert "customers.name = 'Caio'" in prompt
    assert out.rows == [[0]]


def test_disabled_tool_in_plan_falls_back(shop_settings: Settings, shop_store: ChromaStore) -> None:
    plan = {"steps": [{"id": "#E1", "tool": "retrieve_schema", "input": "customers"},
                      {"id": "#E2", "tool": "table_insights", "input": "#E1"},
                      {"id": "#E3", "tool": "generate_sql", "input": "#E1 #E2"},
                      {"id": "#E4", "tool": "execute_sql", "input": "#E3"}]}
    out, models = _ask(shop_settings, shop_store, "How many customers are from Brazil?", planner=plan)
    assert out.plan_source == "fallback" and "disabled" in out.plan_error
    assert "table_insights" not in _prompt_text(models["planner"].prompts[0])
    assert out.rows == [[2]]


def test_plan_descriptions_come_from_the_tools(shop_settings: Settings, shop_store: ChromaStore) -> None:
    out, _ = _ask(shop_settings, shop_store, "How many customers are from Brazil?")
    assert out.plan[0]["description"].startswith("find the tables")


def test_multi_row_results_skip_the_organizer_call(shop_settings: Settings, shop_store: ChromaStore) -> None:
    rows = {"reasoning": "all", "sql": "SELECT name AS who, country FROM customers UNION ALL "
                                       "SELECT customer_id, order_date FROM orders"}
    out, models = _ask(shop_settings, shop_store, "Customers and order dates", sql=rows)
    assert out.status == "ok" and len(out.rows) == 6
    assert not models["organizer"].prompts  # a table needs no sentence: the caption is deterministic
    assert out.answer == "The query returned 6 row(s); see the table."
    assert [c["strategy"] for c in out.candidates] == ["direct", "plain"]  # two votes for one result
    assert out.judge["skipped"] == "agreement" and out.verifier == {"needed": False}
    assert out.agreement == 1.0
    assert out.confidence is not None and out.confidence.level in ("verified", "likely", "unsure")
    assert out.confidence.reasons[0] == "2 of 2 independent SQL candidates returned the same rows"
    assert out.to_json()["confidence"]["features"]["all_agreed"] == 1.0
    labels = [u["label"] for u in out.usage]
    assert labels == ["plan", "candidate 1 direct", "candidate 2 plain"]


def test_compact_plan_without_switches_needs_no_planner_call(shop_settings: Settings,
                                                              shop_store: ChromaStore) -> None:
    out, models = _ask(shop_settings, shop_store, "How many customers are from Brazil?", planner={"i": 1})
    assert out.plan_source == "planner" and out.rows == [[2]] and not models["planner"].prompts
    assert [s["tool"] for s in out.plan] == ["retrieve_schema", "retrieve_examples", "search_values",
                                             "lookup_knowledge", "check_question", "generate_sql", "execute_sql",
                                             "judge_sql", "verify_sql"]
    assert out.plan[5]["input"].endswith("| #E1 #E2 #E3 #E4 #E5") and out.plan[6]["input"] == "#E6"
    charted, _ = _ask(shop_settings, shop_store, "Plot customers per country",
                      sql={"reasoning": "", "sql": "SELECT country, COUNT(*) AS n FROM customers GROUP BY country"})
    assert [s["tool"] for s in charted.plan][-1] == "build_chart"  # asked for: added without the planner


def test_compact_plan_switches_optional_steps(shop_settings: Settings, shop_store: ChromaStore) -> None:
    insights = shop_settings.model_copy(update={"use_insights": True})
    out, models = _ask(insights, shop_store, "How many customers are from Brazil?", planner={"i": 0})
    assert out.plan_source == "planner" and out.rows == [[2]]
    assert "table_insights" not in [s["tool"] for s in out.plan]
    system = str(models["planner"].prompts[0][0].content)
    assert "- i: only for vague questions" in system and "- c:" not in system
    assert out.usage[0]["label"] == "plan" and out.usage[0]["completion_tokens"] < 25


def test_compact_plan_with_an_unknown_switch_falls_back(shop_settings: Settings, shop_store: ChromaStore) -> None:
    insights = shop_settings.model_copy(update={"use_insights": True})
    out, _ = _ask(insights, shop_store, "How many customers are from Brazil?", planner={"i": 0, "drop": 1})
    assert out.plan_source == "fallback" and out.rows == [[2]]


def test_a_french_question_is_planned_and_answered_in_english(shop_settings: Settings,
                                                              shop_store: ChromaStore) -> None:
    settings = shop_settings.model_copy(update={"plan_format": "full"})
    planner = ScriptedChatModel(replies=[{"english": "How many customers are from Brazil?"}, GOOD_PLAN])
    models = {**_fakes(), "planner": planner}
    deps = build_deps(settings, llm_overrides=models, store=shop_store)  # type: ignore[arg-type]
    out = ask(deps, "Combien de clients sont du Brésil ?")
    assert out.status == "ok" and out.rows == [[2]]
    assert "Combien de clients" in _prompt_text(planner.prompts[0])  # the translation call
    assert "How many customers are from Brazil?" in _prompt_text(planner.prompts[1])  # the plan works on English
    assert "How many customers are from Brazil?" in _prompt_text(models["generator"].prompts[0])
    plan = next(t for t in out.trace if t["node"] == "plan")
    assert plan["translated_from"] == "Combien de clients sont du Brésil ?"
    english, _ = _ask(shop_settings, shop_store, "How many customers are from Brazil?")
    assert not any("translated_from" in t for t in english.trace)  # English: no translation call
    off = settings.model_copy(update={"translate_questions": False})
    models = {**_fakes(), "planner": ScriptedChatModel(replies=[GOOD_PLAN])}
    out = ask(build_deps(off, llm_overrides=models, store=shop_store), "Combien de clients sont du Brésil ?")  # type: ignore[arg-type]
    assert not any("translated_from" in t for t in out.trace)


def test_the_account_shows_documented_tables_by_their_description(
        shop_settings: Settings, shop_db: Path, embedding_function: OfflineMiniLM) -> None:
    shop_db.with_name("shop.metadata.yaml").write_text(
        "tables:\n  customers:\n    description: People who bought something. One row each.\n", encoding="utf-8")
    store = ChromaStore(shop_settings.retrieval.chroma_path, embedding_function)
    index_database(Database.from_settings(shop_settings), store, shop_settings, progress=False)
    out, _ = _ask(shop_settings, store, "How many customers are from Brazil?")
    assert out.account[0] == "Reads customers (People who bought something. One row each)."


def test_an_answer_that_skips_the_opaque_columns_names_the_unread_words(
        tmp_path: Path, embedding_function: OfflineMiniLM) -> None:
    import sqlite3

    path = tmp_path / "prod.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("""CREATE TABLE PROD (PROD_ID INTEGER PRIMARY KEY, PROD_DSC TEXT, PROD_PRC REAL, c2 TEXT);
            INSERT INTO PROD VALUES (1, 'a good read', 9.5, 'book'), (2, 'crunchy', 3.0, 'apple');""")
    settings = Settings(database_url=f"sqlite:///{path}", retrieval={"chroma_path": tmp_path / "chroma"},
                        local_llm={"auto_start": False}, state_dir=tmp_path / "state",
                        generation={"candidates_local": CandidateSpec.parse_list("direct,plain"),
                                    "link_opaque_columns": False, "column_choice": False})
    store = ChromaStore(settings.retrieval.chroma_path, embedding_function)
    index_database(Database.from_settings(settings), store, settings, progress=False)
    sql = "SELECT PROD_DSC FROM PROD ORDER BY PROD_PRC DESC LIMIT 1"
    out, _ = _ask(settings, store, "Find the name of the most expensive product.", planner={},
                  sql={"reasoning": "the dearest", "sql": sql})
    assert out.status == "ok" and out.sql == sql and out.rows == [["a good read"]]
    assert out.unread_terms == ["name"] and out.unread_columns == ["PROD.c2"] and out.guessed_columns == []
    assert out.confidence is not None and out.confidence.level != "verified"
    out, _ = _ask(settings, store, "Find the name of the most expensive product.", planner={},
                  sql={"reasoning": "the dearest", "sql": "SELECT c2 FROM PROD ORDER BY PROD_PRC DESC LIMIT 1"})
    assert out.rows == [["book"]] and out.guessed_columns == ["PROD.c2"] and out.unread_terms == []
