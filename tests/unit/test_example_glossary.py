"""Question words of approved examples aligned to opaque columns (tools.example_glossary), in the schema and in the
whole-schema candidate's prompt: a real SQLite file, a real Chroma store, a scripted generator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from core.llm import LLMProvider, UsageLog
from core.settings import CandidateSpec, Settings
from database.connection import Database
from retrieval.embeddings import OfflineMiniLM
from retrieval.examples_store import sync_example_records
from retrieval.indexing import index_database
from retrieval.store import ChromaStore
from tests.support.scripted_model import ScriptedChatModel
from tests.support.sqlite_case import sqlite_settings
from tools.base import ToolCall, ToolContext
from tools.example_glossary import (
    HEADER,
    align_example,
    glossary_from,
    guessed_without_examples,
    opaque_glossary,
    render_glossary,
)
from tools.generation import GenerateSQLTool
from tools.schema_retrieval import RetrieveSchemaTool

SCHEMA = """CREATE TABLE EDTR (EDTR_ID INTEGER PRIMARY KEY, NM TEXT, c7 REAL, c8 TEXT);
CREATE TABLE JRNL (JRNL_ID INTEGER PRIMARY KEY, THM TEXT, c3 INTEGER);
INSERT INTO EDTR VALUES (1, 'Kamila Porczyk', 34, 'W'), (2, 'Anna Panas', 43, 'W'), (3, 'Piotr Pawlus', 43, 'M');
INSERT INTO JRNL VALUES (1, 'Miami Dolphins', 1998), (2, 'at Jacksonville Jaguars', 2001);"""
EXAMPLES = [
    ("Show the year of every journal.", "SELECT c3 FROM JRNL"),
    ("What are the ages of the editors?", "SELECT c7 FROM EDTR"),
    ("Show the editor with the greatest age.", "SELECT NM FROM EDTR ORDER BY c7 DESC LIMIT 1"),
    ("List the themes of journals.", "SELECT THM FROM JRNL"),  # no opaque column
    ("Editors older than 30 by gender.", "SELECT c8, COUNT(*) FROM EDTR WHERE c7 > 30 GROUP BY c8"),  # two
]


@pytest.fixture()
def settings(tmp_path: Path) -> Settings:
    return sqlite_settings(tmp_path, SCHEMA, "journals")


def test_an_example_aligns_one_opaque_column_with_one_unnamed_term(settings: Settings) -> None:
    db = Database.from_settings(settings)
    assert align_example(db, False, *EXAMPLES[0]) == ("JRNL.c3", "year")
    assert align_example(db, False, *EXAMPLES[1]) == ("EDTR.c7", "ages")
    assert align_example(db, False, *EXAMPLES[2]) == ("EDTR.c7", "age")
    assert align_example(db, False, *EXAMPLES[3]) is None  # reads no opaque column
    assert align_example(db, False, *EXAMPLES[4]) is None  # two opaque columns: the pairing would be a guess
    assert align_example(db, False, "What?", "SELECT c7 FROM") is None  # does not parse
    glossary = glossary_from(db, False, EXAMPLES)
    assert glossary == {"EDTR.c7": [("ages", 2)], "JRNL.c3": [("year", 1)]}  # "ages" and "age" counted together
    assert render_glossary(glossary) == f'{HEADER}- EDTR.c7: "ages" (2 examples)\n- JRNL.c3: "year" (1 example)'
    assert render_glossary(glossary, ["JRNL"]) == f'{HEADER}- JRNL.c3: "year" (1 example)'
    assert render_glossary(glossary, ["OTHER"]) == "" and render_glossary({}) == ""


def _store(settings: Settings, embedding_function: OfflineMiniLM) -> ChromaStore:
    store = ChromaStore(settings.retrieval.chroma_path, embedding_function)
    index_database(Database.from_settings(settings), store, settings, progress=False)
    return store


def test_the_glossary_follows_the_indexed_examples(settings: Settings, embedding_function: OfflineMiniLM) -> None:
    store = _store(settings, embedding_function)
    db = Database.from_settings(settings)
    try:
        assert opaque_glossary(db, store, False) == {} and opaque_glossary(db, None, False) == {}
        sync_example_records(store, db.key, [{"question": q, "sql": s} for q, s in EXAMPLES[:2]])
        assert opaque_glossary(db, store, False) == {"EDTR.c7": [("ages", 1)], "JRNL.c3": [("year", 1)]}
        sync_example_records(store, db.key, [{"question": q, "sql": s} for q, s in EXAMPLES])
        assert opaque_glossary(db, store, False)["EDTR.c7"] == [("ages", 2)]  # the new example counts
    finally:
        store.close()


def test_a_column_the_examples_explain_is_no_guess(settings: Settings, embedding_function: OfflineMiniLM) -> None:
    store = _store(settings, embedding_function)
    db = Database.from_settings(settings)
    sql = "SELECT NM, c8 FROM EDTR ORDER BY c7 DESC"
    try:
        assert guessed_without_examples(db, store, False, sql) == ["EDTR.c8", "EDTR.c7"]
        assert guessed_without_examples(db, None, False, sql) == ["EDTR.c8", "EDTR.c7"]
        sync_example_records(store, db.key, [{"question": q, "sql": s} for q, s in EXAMPLES[:2]])
        assert guessed_without_examples(db, store, False, sql) == ["EDTR.c8"]  # c7: "ages" in an example
        assert guessed_without_examples(db, store, False, "SELECT THM FROM JRNL") == []
        assert guessed_without_examples(db, store, False, "SELECT broken (") == []
    finally:
        store.close()


def _ctx(settings: Settings, store: ChromaStore, model: ScriptedChatModel) -> ToolContext:
    return ToolContext(settings, Database.from_settings(settings), store,
                       LLMProvider(settings, {"generator": model}), UsageLog())


def test_every_candidate_reads_the_glossary(settings: Settings, embedding_function: OfflineMiniLM) -> None:
    settings = settings.model_copy(update={"generation": settings.generation.model_copy(update={
        "candidates_local": CandidateSpec.parse_list("whole,direct"), "cascade": True,
        "link_opaque_columns": False})})
    store = _store(settings, embedding_function)
    sync_example_records(store, Database.from_settings(settings).key,
                         [{"question": q, "sql": s} for q, s in EXAMPLES])

    def script(messages: list[BaseMessage]) -> Any:
        sql = "SELECT NM FROM EDTR ORDER BY c7 LIMIT 1"
        return sql if "SQL query only" in str(messages[-1].content) else {"sql": sql}

    model = ScriptedChatModel(script=script)
    ctx = _ctx(settings, store, model)
    try:
        question = "Who is the youngest editor?"
        schema = RetrieveSchemaTool()
        found = schema.run(schema.build_args(ToolCall(question, "#E1", schema.name, question, {}), ctx), ctx)
        assert found.ok and f'{HEADER}- EDTR.c7: "ages" (2 examples)' in found.text
        tool = GenerateSQLTool()
        tool.run(tool.build_args(ToolCall(question, "#E2", tool.name, "", {"#E1": found}), ctx), ctx)
        systems = [str(p[0].content) for p in model.prompts]
        assert len(systems) == 2 and systems[0].startswith("You write one sqlite SQL query")  # whole schema first
        assert all('- EDTR.c7: "ages" (2 examples)' in s for s in systems)
        off = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(
            update={"example_glossary": False})})
        ctx = _ctx(off, store, model)
        found = schema.run(schema.build_args(ToolCall(question, "#E1", schema.name, question, {}), ctx), ctx)
        assert HEADER not in found.text
    finally:
        store.close()
