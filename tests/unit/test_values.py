"""Referential search (value index + resolution) and the search_values tool.

Real SQLite and a real Chroma store (offline MiniLM) in temp dirs; the filter model is a scripted fake.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from core.llm import LLMProvider, UsageLog
from core.settings import Settings
from database.connection import Database
from database.schema_reader import read_schema
from retrieval.embeddings import OfflineMiniLM
from retrieval.store import VALUES_INDEX, ChromaStore
from retrieval.value_matching import CandidateList, extract_mentions
from retrieval.values import ValueMatch, build_value_index, index_values, search_values
from tests.support.scripted_model import ScriptedChatModel
from tools.base import ToolCall, ToolContext
from tools.referential import NO_INDEX_TEXT, NO_MATCH_TEXT, SearchValuesTool
from tools.registry import ToolRegistry

MARKET_SQL = """
CREATE TABLE equities (eq_id INTEGER PRIMARY KEY, ticker TEXT NOT NULL, name TEXT NOT NULL, sector TEXT,
                       listed_on TEXT, blurb TEXT, shares INTEGER);
INSERT INTO equities VALUES
 (1001, 'AAPL', 'Apple Inc.', 'Technology', '1980-12-12', 'Designs phones, computers, tablets and wearables for consumers worldwide.', 15000),
 (1002, 'TSLA', 'Tesla, Inc.', 'Consumer Discretionary', '2010-06-29', 'Makes electric vehicles, batteries and solar roofs in several countries.', 3200),
 (1003, 'NVDA', 'NVIDIA Corporation', 'Technology', '1999-01-22', 'Designs graphics processors and accelerated computing platforms for data centers.', 24000),
 (1004, 'MSFT', 'Microsoft Corporation', 'Technology', '1986-03-13', 'Sells software, cloud services, devices and games to companies and consumers.', 7400),
 (1005, 'ACB', 'Acme Bank', 'Financials', '2001-05-02', 'A regional retail and commercial bank with branches in three neighbouring states.', 90),
 (1006, 'ACI', 'Acme Insurance', 'Financials', '2003-09-15', 'Provides property, casualty and life insurance to households and small firms.', 80);
CREATE TABLE states (code TEXT PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO states VALUES ('AK', 'Alaska'), ('CA', 'California'), ('NV', 'Nevada');
CREATE TABLE airports (airport_id INTEGER PRIMARY KEY, iata TEXT, state TEXT);
INSERT INTO airports VALUES (1, 'ANC', 'alaska'), (2, 'FAI', 'alaska'), (3, 'AUS', 'texas'), (4, 'LAX', 'california');
CREATE TABLE users (user_id INTEGER PRIMARY KEY, email TEXT, password TEXT, team TEXT);
INSERT INTO users VALUES (1, 'bob@example.com', 'hunter2', 'Red'), (2, 'eve@example.com', 's3cret', 'Blue');
"""


@pytest.fixture()
def market_db(tmp_path: Path) -> Path:
    path = tmp_path / "market.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(MARKET_SQL)
    return path


@pytest.fixture()
def db(market_db: Path) -> Database:
    return Database(f"sqlite:///{market_db}")


@pytest.fixture()
def store(tmp_path: Path, embedding_function: OfflineMiniLM) -> ChromaStore:
    return ChromaStore(tmp_path / "chroma", embedding_function)


@pytest.fixture()
def indexed(db: Database, store: ChromaStore) -> ChromaStore:
    build_value_index(db, store, read_schema(db, sample_rows=0))
    return store


def _records(store: ChromaStore, db: Database) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(str(h.metadata["table"]), str(h.metadata["column"]), h.document): dict(h.metadata)
            for h in store.get(VALUES_INDEX, where={"db": db.key})}


def _filter(reply: Any) -> tuple[LLMProvider, ScriptedChatModel, UsageLog]:
    fake = (ScriptedChatModel(script=reply) if callable(reply) else ScriptedChatModel(replies=[reply]))
    settings = Settings(local_llm={"auto_start": False})
    return LLMProvider(settings, overrides={"filter": fake, "generator": fake}), fake, UsageLog()


def _prompt(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


def _pick(value: str) -> Callable[[list[BaseMessage]], dict[str, Any]]:
    """A filter script choosing the option whose line contains ``value``."""
    def script(messages: list[BaseMessage]) -> dict[str, Any]:
        options = [line.strip() for line in _prompt(messages).splitlines() if line.startswith("  ")]
        number = next(int(o.split(")")[0]) for o in options if value in o)
        return {"choices": [number]}
    return script


def test_index_covers_identifying_text_columns_only(indexed: ChromaStore, db: Database) -> None:
    records = _records(indexed, db)
    columns = {(t, c) for t, c, _v in records}
    assert {("equities", "ticker"), ("equities", "name"), ("equities", "sector"), ("states", "code"),
            ("states", "name"), ("airports", "state"), ("users", "team")} <= columns
    assert ("equities", "listed_on") not in columns  # dates stored as text
    assert ("equities", "blurb") not in columns  # free text
    assert not any(c in ("eq_id", "shares", "airport_id") for _t, c in columns)  # numbers
    apple = records[("equities", "name", "Apple Inc.")]
    assert apple["id"] == 1001 and apple["id_column"] == "eq_id" and '"ticker": "AAPL"' in apple["siblings"]
    assert records[("equities", "sector", "Technology")]["id"] == ""  # not unique: no row id
    assert records[("states", "code", "AK")]["id"] == "AK"


def test_sensitive_columns_are_not_indexed(indexed: ChromaStore, db: Database, store: ChromaStore) -> None:
    columns = {(t, c) for t, c, _v in _records(indexed, db)}
    assert ("users", "email") not in columns and ("users", "password") not in columns
    assert not any(m.column in ("email", "password") for m in search_values("bob@example.com hunter2", db.key, store))
    build_value_index(db, store, read_schema(db, sample_rows=0), sensitive_patterns=["team"])
    columns = {(t, c) for t, c, _v in _records(store, db)}
    assert ("users", "team") not in columns and ("users", "email") in columns  # custom patterns replace


def test_three_companies_resolve_to_their_ids_without_llm(indexed: ChromaStore, db: Database) -> None:
    llms, fake, usage = _filter(RuntimeError("the filter must not be called"))
    matches = search_values("Apple, Tesla and Nvidia prices on Sept 15, 2025", db.key, indexed,
                            llms=llms, usage=usage)
    assert [(m.mention, m.value, m.id) for m in matches] == [
        ("Apple", "Apple Inc.", 1001), ("Tesla", "Tesla, Inc.", 1002), ("Nvidia", "NVIDIA Corporation", 1003)]
    assert all(m.table == "equities" and m.column == "name" and m.id_column == "eq_id" for m in matches)
    assert matches[0].siblings["ticker"] == "AAPL"
    assert usage.calls == [] and fake.prompts == []


def test_ticker_is_matched_exactly(indexed: ChromaStore, db: Database) -> None:
    [match] = search_values("AAPL close last day?", db.key, indexed)
    assert (match.table, match.column, match.value, match.id, match.score) == ("equities", "ticker", "AAPL", 1001, 100)
    assert match.siblings["name"] == "Apple Inc."
    assert search_values("AAP close last day?", db.key, indexed) == []  # no fuzzy tickers
    described = match.describe()
    assert described.startswith('"AAPL" -> equities.ticker = \'AAPL\' (eq_id 1001; name \'Apple Inc.\'')


def test_returns_the_exact_database_spelling(indexed: ChromaStore, db: Database) -> None:
    [match] = search_values("How many airports are in Texas?", db.key, indexed)
    assert (match.table, match.column, match.value, match.mention) == ("airports", "state", "texas", "Texas")


def test_case_variants_are_ambiguous_and_the_filter_decides(indexed: ChromaStore, db: Database) -> None:
    [plain] = search_values("airports in Alaska", db.key, indexed)
    assert (plain.table, plain.value, plain.id) == ("states", "Alaska", "AK")  # same case wins without LLM
    llms, fake, usage = _filter(_pick("'alaska'"))
    [match] = search_values("airports in Alaska", db.key, indexed, llms=llms, usage=usage)
    assert (match.table, match.column, match.value, match.source) == ("airports", "state", "alaska", "filter")
    assert len(usage.calls) == 1 and usage.calls[0].role == "filter"
    assert "'Alaska'" in _prompt(fake.prompts[0]) and "'alaska'" in _prompt(fake.prompts[0])


def test_shared_word_triggers_one_filter_call_and_its_choice_is_used(indexed: ChromaStore, db: Database) -> None:
    llms, fake, usage = _filter({"choices": [2]})
    [match] = search_values("Acme prices last week", db.key, indexed, llms=llms, usage=usage)
    assert len(fake.prompts) == 1 and [c.role for c in usage.calls] == ["filter"]
    second = next(line for line in _prompt(fake.prompts[0]).splitlines() if line.startswith("  2)"))
    assert f"'{match.value}'" in second and match.source == "filter"
    assert {match.value} <= {"Acme Bank", "Acme Insurance"}


def test_malformed_filter_output_falls_back_to_top_candidate(indexed: ChromaStore, db: Database) -> None:
    [top] = search_values("Acme prices last week", db.key, indexed)
    llms, _fake, usage = _filter("this is not JSON")
    [match] = search_values("Acme prices last week", db.key, indexed, llms=llms, usage=usage)
    assert match.value == top.value and match.source != "filter"
    assert usage.calls and not any(c.ok for c in usage.calls)
    llms, _fake, usage = _filter({"choices": [9]})  # valid JSON, impossible option
    [match] = search_values("Acme prices last week", db.key, indexed, llms=llms, usage=usage)
    assert match.value == top.value and len(usage.calls) == 1


def test_limit_empty_question_and_missing_index(indexed: ChromaStore, db: Database, store: ChromaStore) -> None:
    assert len(search_values("Apple, Tesla, Nvidia and Microsoft", db.key, indexed, limit=2)) == 2
    assert search_values("   ", db.key, indexed) == []
    assert search_values("Apple", "no_such_db", indexed) == []


def test_reindex_is_incremental_and_drops_deleted_values(db: Database, store: ChromaStore, market_db: Path) -> None:
    n = index_values(db, store)
    assert n == store.count(VALUES_INDEX, {"db": db.key}) and n > 20
    assert index_values(db, store) == n
    with sqlite3.connect(market_db) as conn:
        conn.execute("DELETE FROM equities WHERE eq_id = 1004")
    assert index_values(db, store) < n
    assert ("equities", "name", "Microsoft Corporation") not in _records(store, db)
    assert search_values("Microsoft", db.key, store) == []


def test_extract_mentions_kinds_and_spans() -> None:
    question = 'What was Apple\'s close vs "Acme Bank" and AAPL on the New York Stock Exchange?'
    mentions = {m.text: m for m in extract_mentions(question)}
    assert mentions["Apple"].kind == "caps" and "Apple's" not in mentions
    assert mentions["Acme Bank"].kind == "quoted"
    assert mentions["AAPL"].kind == "ticker"
    assert "New York Stock Exchange" in mentions and "What" not in mentions and "the" not in mentions
    assert question[mentions["AAPL"].start : mentions["AAPL"].end] == "AAPL"


def _context(db: Database, store: ChromaStore, llms: LLMProvider | None = None) -> ToolContext:
    settings = Settings(database_url=db.url, local_llm={"auto_start": False})
    return ToolContext(settings=settings, db=db, store=store, llms=llms or LLMProvider(settings))


def _call(question: str, tool_input: str | None = None) -> ToolCall:
    return ToolCall(question=question, step_id="#E1", tool="search_values",
                    input=question if tool_input is None else tool_input)


def test_tool_returns_values_result(indexed: ChromaStore, db: Database) -> None:
    registry = ToolRegistry([SearchValuesTool()])
    assert "resolve names, tickers, codes" in registry.describe()
    result = registry.run(_call("Apple and Tesla prices"), _context(db, indexed))
    assert result.ok and result.kind == "values"
    assert result.text.splitlines()[0].startswith(
        "\"Apple\" -> equities.name = 'Apple Inc.' (eq_id 1001; ticker 'AAPL'")
    assert [m["id"] for m in result.value["matches"]] == [1001, 1002] and result.value["indexed"] is True
    ValueMatch(**result.value["matches"][0])  # the payload round-trips


def test_tool_no_match_no_index_and_invalid_input(indexed: ChromaStore, db: Database, tmp_path: Path,
                                                   embedding_function: OfflineMiniLM) -> None:
    registry = ToolRegistry([SearchValuesTool()])
    none = registry.run(_call("How many rows are there?"), _context(db, indexed))
    assert none.ok and none.kind == "values" and none.text == NO_MATCH_TEXT and none.value["matches"] == []
    empty_store = ChromaStore(tmp_path / "empty", embedding_function)
    missing = registry.run(_call("Apple"), _context(db, empty_store))
    assert missing.ok and missing.text == NO_INDEX_TEXT and missing.value["indexed"] is False
    bad = registry.run(_call("", ""), _context(db, indexed))
    assert not bad.ok and bad.kind == "error" and "invalid input for search_values" in (bad.error or "")


def test_index_values_uses_the_settings_patterns_and_always_skips_credentials(
    db: Database, store: ChromaStore
) -> None:
    settings = Settings(retrieval={"sensitive_patterns": ["team"]}, local_llm={"auto_start": False})
    index_values(db, store, settings=settings)
    columns = {(t, c) for t, c, _v in _records(store, db)}
    assert ("users", "team") not in columns and ("users", "email") in columns
    assert ("users", "password") not in columns


def test_candidate_scoring_rules() -> None:
    values = ["Bayview Stadium", "Stark's Park", "NVIDIA Corporation", "New York Stock Exchange",
              "Aaron Copland", "AC/DC", "Toyota Motor Corporation"]
    candidates = CandidateList(values)

    def best(question: str) -> dict[str, float]:
        scores: dict[str, float] = {}
        for mention in extract_mentions(question):
            for i, score in candidates.score(mention).items():
                scores[values[i]] = max(scores.get(values[i], 0.0), score)
        return scores

    assert best("concerts in the stadium").get("Bayview Stadium", 0) < 80  # a trailing generic word
    assert best("Nvidea close")["NVIDIA Corporation"] >= 80  # a typo
    assert best("Toyota close")["Toyota Motor Corporation"] == 90  # leading word of a longer name
    assert best("volume on the NYSE")["New York Stock Exchange"] == 92  # initials, tickers only
    assert "Aaron Copland" not in best("tracks by AC/DC") and best("tracks by AC/DC")["AC/DC"] == 100


def test_tool_adds_the_step_input_without_repeating_matches(indexed: ChromaStore, db: Database) -> None:
    result = ToolRegistry([SearchValuesTool()]).run(
        _call("Compare Apple with its peer", "Apple Microsoft"), _context(db, indexed))
    assert [m["value"] for m in result.value["matches"]] == ["Apple Inc.", "Microsoft Corporation"]
