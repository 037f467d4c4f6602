"""Opaque-column linking (tools.opaque_columns): which question words no readable name accounts for, the one model
call that links them to columns named like ``c10``, and the links in the candidates' prompts (scripted fake
LLMs, a real SQLite file)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from core.settings import CandidateSpec, Settings
from database.schema_types import ColumnInfo, TableInfo
from tests.support.scripted_model import ScriptedChatModel
from tests.support.sqlite_case import generator_ctx, sqlite_settings
from tools.base import ToolCall, ToolResult
from tools.generation import GenerateSQLTool
from tools.opaque_columns import HEADER, link_opaque_columns, opaque_columns, render_links, unnamed_terms
from tools.question_terms import readable_phrases, reads_opaque_column

HEADS = """CREATE TABLE HEAD (HEAD_ID INTEGER PRIMARY KEY, NM TEXT, BORN_ST TEXT, c10 REAL);
CREATE TABLE DEPT (DEPT_ID INTEGER PRIMARY KEY, NM TEXT, c3 TEXT);
INSERT INTO HEAD VALUES (1, 'Tiger Woods', 'Alabama', 67), (2, 'K. J. Choi', 'California', 43),
                        (3, 'Dudley Hart', 'Delaware', 52);
INSERT INTO DEPT VALUES (1, 'State', '1789'), (2, 'Treasury', '1789');"""
QUESTION = "List the name, born state and age of the heads ordered by age."
RIGHT = "SELECT NM, BORN_ST, c10 FROM HEAD ORDER BY c10"


def _table(name: str, *columns: str, comments: dict[str, str] | None = None) -> TableInfo:
    notes = comments or {}
    return TableInfo(name, [ColumnInfo(c, "TEXT", comment=notes.get(c)) for c in columns])


@pytest.fixture()
def heads(tmp_path: Path) -> Settings:
    return sqlite_settings(tmp_path, HEADS, "heads")


_ctx = generator_ctx


def test_words_no_readable_name_accounts_for_are_terms() -> None:
    head = _table("HEAD", "HEAD_ID", "NM", "BORN_ST", "c10")
    assert unnamed_terms(QUESTION, [head]) == ["age"]  # name ~ NM, born state ~ BORN_ST, heads ~ HEAD
    # adjacent unnamed words form one phrase; quoted values, capitalised names and verbs are not terms
    people = _table("PPL", "PRSN_ID", "EML_ADDR", "c12")
    assert unnamed_terms('What are the cell phone numbers of people called "Fail" who joined Microsoft?',
                         [people]) == ["cell phone"]


def test_a_column_accounts_for_a_word_only_with_the_rest_of_its_name() -> None:
    players = _table("PLYR", "PLYR_ID", "SPNSR_NM", "c3")
    coaches = _table("COACH", "COACH_ID", "NM")
    # SPNSR_NM would need "sponsor" in the question; COACH.NM is in a table the question does not name
    assert unnamed_terms("List the names of the players.", [players, coaches]) == ["names"]
    assert unnamed_terms("List the names of the coaches.", [coaches]) == []
    # once the sponsor is asked for, the sponsor's name column accounts for "name"
    assert unnamed_terms("List the sponsor names of players.", [players]) == []
    # other attribute words of the name ("code" of PLCY_TYP_CD) need not be asked for
    policies = _table("AVLBL_PLCS", "PLCY_ID", "PLCY_TYP_CD", "c7")
    assert unnamed_terms("Which policy type is the most frequent?", [policies]) == []
    # a word that is not an attribute word is accounted for by any column with it, whatever the rest of the name
    stations = _table("STS", "STN_ID", "BKS_AVLBL", "c11")
    assert unnamed_terms("Stations that never had bike availability above 10", [stations]) == []
    # ... in any table of the prompt, also when the table the question names has opaque columns of its own
    gymnasts, people = _table("GYMNST", "GYMNST_ID", "c4"), _table("PPL", "PPL_ID", "HMTWN", "c10")
    assert unnamed_terms("What is the hometown of the gymnasts?", [gymnasts, people]) == []
    assert unnamed_terms("What are the names of the gymnasts?", [gymnasts, _table("PPL", "NM")]) == ["names"]


def test_counting_frequency_and_text_matching_words_are_not_terms() -> None:
    races = _table("RACE", "RACE_ID", "c3")
    assert unnamed_terms("What are the classes of races that have two or more races?", [races]) == ["classes"]
    assert unnamed_terms("What is the most common class of races?", [races]) == ["class"]
    assert unnamed_terms("Which races contain the substring 'Cup'?", [races]) == []



def test_synonyms_of_readable_names_and_negated_verbs_are_not_terms() -> None:
    airports = _table("airports", "apid", "name", "elevation", "x", "y")
    asked: list[list[str]] = []

    def synonyms(words: Sequence[str]) -> set[str]:  # what the embedding would say: altitude ~ "airports elevation"
        asked.append(list(words))
        return {w for w in words if w in {"altitude", "aerodromes"}}

    question = "What is the altitude of the aerodromes with the longest runway?"
    assert unnamed_terms(question, [airports]) == ["altitude", "aerodromes", "runway"]
    assert unnamed_terms(question, [airports], synonyms) == ["runway"]
    assert asked == [["altitude", "aerodromes", "runway"]]  # one call, unnamed words only
    # a run stays a term while one of its unnamed words is no synonym
    assert unnamed_terms("Show the altitude band.", [airports], synonyms) == ["altitude band"]
    assert unnamed_terms("Which instructors didn't get grants?", [_table("INSTR", "INSTR_ID", "c44")]) == ["grants"]
    assert readable_phrases([airports]) == ["airports", "apid", "airports apid", "name", "airports name",
                                            "elevation", "airports elevation"]

def test_documented_opaque_columns_are_not_offered() -> None:
    table = _table("T", "c1", "c2", "CUST_NM", comments={"c2": "Customer age in years"})
    assert [c for _, c in opaque_columns([table])] == ["c1"]


def test_the_model_links_a_word_to_an_opaque_column_with_its_stored_values(heads: Settings) -> None:
    model = ScriptedChatModel(replies=[{"age": "HEAD.c10"}])
    ctx = _ctx(heads, model)
    links = link_opaque_columns(ctx, "Database schema: ...", QUESTION, ["HEAD", "DEPT"])
    assert [(k.term, k.column.ref) for k in links] == [("age", "HEAD.c10")]
    user = str(model.prompts[0][-1].content)
    assert "HEAD.c10 (REAL): 67.0, 43.0, 52.0" in user and "DEPT.c3 (TEXT): '1789'" in user and '"age"' in user
    assert [c.label for c in ctx.usage.calls] == ["opaque links"]
    text = render_links(links)
    assert text.startswith(HEADER) and "- 'age': HEAD.c10 (stored values: 67.0, 43.0, 52.0)" in text
    assert render_links([]) == ""


def test_no_call_without_opaque_columns_or_unnamed_words(heads: Settings) -> None:
    silent = ScriptedChatModel(replies=[RuntimeError("no call expected")])
    ctx = _ctx(heads, silent)
    assert link_opaque_columns(ctx, "s", "List the names of the departments.", ["DEPT"]) == []  # no unnamed word
    assert link_opaque_columns(ctx, "s", QUESTION, ["MISSING"]) == []  # no opaque column among these tables
    off = heads.model_copy(update={"generation": heads.generation.model_copy(update={"link_opaque_columns": False})})
    assert link_opaque_columns(_ctx(off, silent), "s", QUESTION, []) == []
    assert not silent.prompts


def test_none_and_a_failing_model_give_no_links(heads: Settings) -> None:
    assert link_opaque_columns(_ctx(heads, ScriptedChatModel(replies=[{"age": "none"}])), "s", QUESTION, []) == []
    broken = ScriptedChatModel(replies=[{"age": "HEAD.missing"}])  # outside the schema's choices: rejected
    assert link_opaque_columns(_ctx(heads, broken), "s", QUESTION, []) == []


def test_readable_columns_as_choices_take_words_from_opaque_columns(heads: Settings) -> None:
    on = heads  # the default
    off_settings = heads.model_copy(
        update={"generation": heads.generation.model_copy(update={"link_readable_choices": False})})
    readable = ScriptedChatModel(replies=[{"age": "HEAD.BORN_ST"}])  # a readable column: no link to show
    assert link_opaque_columns(_ctx(on, readable), "s", QUESTION, ["HEAD", "DEPT"]) == []
    user = str(readable.prompts[0][-1].content)
    assert "- HEAD: HEAD_ID, NM, BORN_ST\n" in user and "- DEPT: DEPT_ID, NM\n" in user and "HEAD.c10 (REAL)" in user
    opaque = ScriptedChatModel(replies=[{"age": "HEAD.c10"}])
    assert [k.column.ref for k in link_opaque_columns(_ctx(on, opaque), "s", QUESTION, [])] == ["HEAD.c10"]
    off = ScriptedChatModel(replies=[{"age": "HEAD.BORN_ST"}])  # not a choice without the setting: rejected
    assert link_opaque_columns(_ctx(off_settings, off), "s", QUESTION, []) == []
    assert "- HEAD: HEAD_ID" not in str(off.prompts[0][-1].content)


def test_direct_sees_the_links_plain_does_not_and_the_call_is_made_once(heads: Settings) -> None:
    def script(messages: list[BaseMessage]) -> Any:
        user = str(messages[-1].content)
        if "say nothing; their stored values" in user:
            return {"age": "HEAD.c10"}
        return RIGHT if "SQL query only" in user else {"sql": RIGHT}

    model = ScriptedChatModel(script=script)
    ctx = _ctx(heads, model)
    schema = ToolResult(ok=True, kind="schema", text="CREATE TABLE HEAD (HEAD_ID INTEGER, NM TEXT, c10 REAL);",
                        value={"tables": ["HEAD"]})
    tool = GenerateSQLTool()
    res = tool.run(tool.build_args(ToolCall(QUESTION, "#E2", tool.name, "", {"#E1": schema}), ctx), ctx)
    prompts = [str(p[-1].content) for p in model.prompts]
    assert sum("say nothing; their stored values" in p for p in prompts) == 1
    assert [p.startswith(HEADER) and "'age': HEAD.c10" in p for p in prompts[1:]] == [True, False]  # direct, plain
    assert res.value["opaque_links"] == [{"term": "age", "table": "HEAD", "column": "c10"}]
    assert HEADER in res.value["context"]  # the judge and verifier read the same context


def test_the_answer_names_the_links_its_sql_reads() -> None:
    from agent.outcome import Outcome
    from ui.render import used_links

    links = [{"term": "age", "table": "HEAD", "column": "c10"}, {"term": "year", "table": "DEPT", "column": "c1"}]
    assert used_links(Outcome(sql="SELECT H.NM, H.c10 FROM HEAD AS H", column_links=links)) == ["'age' is HEAD.c10"]
    assert used_links(Outcome(sql="SELECT NM FROM HEAD", column_links=links)) == []


def test_a_numeric_column_with_more_values_than_shown_is_offered_with_its_span(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE GAME (GAME_ID INTEGER PRIMARY KEY, c2 INTEGER, c3 INTEGER)")
        conn.executemany("INSERT INTO GAME VALUES (?, ?, ?)", [(i, 1000 + 97 * i, i % 3) for i in range(1, 9)])
    settings = Settings(database_url=f"sqlite:///{path}", retrieval={"chroma_path": tmp_path / "chroma"},
                        local_llm={"auto_start": False}, state_dir=tmp_path / "state")
    model = ScriptedChatModel(replies=[{"attendance": "GAME.c2"}])
    links = link_opaque_columns(_ctx(settings, model), "s", "Which games had an attendance above 1500?", [])
    user = str(model.prompts[0][-1].content)
    assert "GAME.c2 (INTEGER): 1097, 1194, 1291, 1388, 1485 (from 1097 to 1776)" in user
    assert "GAME.c3 (INTEGER): 1, 2, 0\n" in user  # every stored value shown: no span
    assert "(stored values: 1097, 1194, 1291, 1388, 1485 (from 1097 to 1776))" in render_links(links)


def _gated(settings: Settings, candidates: str, hold_back: str = "while_rows") -> Settings:
    """``settings`` with these cascade candidates and the links held back as ``hold_back`` says.

    The missing-column choice is off: these tests fail a candidate with "no such column: age" on purpose, and
    that step (tests/unit/test_missing_column.py) would read ``c10`` for it before the links are asked for.
    """
    return settings.model_copy(update={"generation": settings.generation.model_copy(update={
        "candidates_local": CandidateSpec.parse_list(candidates), "cascade": True,
        "link_opaque_hold_back": hold_back, "missing_column_choice": False})})


def _by_prompt(whole: str) -> ScriptedChatModel:
    """A generator fake: ``whole`` for the whole-schema prompt, the links for the links call, else RIGHT."""
    def script(messages: list[BaseMessage]) -> Any:
        user = str(messages[-1].content)
        if "say nothing; their stored values" in user:
            return {"age": "HEAD.c10"}
        if str(messages[0].content).startswith("You write one sqlite SQL query"):
            return whole
        return RIGHT if "SQL query only" in user else {"sql": RIGHT}
    return ScriptedChatModel(script=script)


def _generate(settings: Settings, model: ScriptedChatModel) -> tuple[ToolResult, list[str]]:
    ctx = _ctx(settings, model)
    schema = ToolResult(ok=True, kind="schema", text="CREATE TABLE HEAD (HEAD_ID INTEGER, NM TEXT, c10 REAL);",
                        value={"tables": ["HEAD"]})
    tool = GenerateSQLTool()
    res = tool.run(tool.build_args(ToolCall(QUESTION, "#E2", tool.name, "", {"#E1": schema}), ctx), ctx)
    return res, [str(p[-1].content) for p in model.prompts]


def test_gated_links_are_not_asked_for_while_every_candidate_returns_rows(heads: Settings) -> None:
    res, prompts = _generate(_gated(heads, "whole,direct,plain"), _by_prompt(whole=RIGHT))
    assert not any("say nothing; their stored values" in p for p in prompts)  # no links call
    assert len(prompts) == 2 and not any(HEADER in p for p in prompts)  # whole and direct agree, unlinked
    assert res.value["opaque_links"] == [] and HEADER not in res.value["context"]


def test_gated_links_are_shown_once_a_candidate_has_failed(heads: Settings) -> None:
    res, prompts = _generate(_gated(heads, "whole,direct,plain"), _by_prompt(whole="SELECT NM, age FROM HEAD"))
    assert sum("say nothing; their stored values" in p for p in prompts) == 1
    direct = [p for p in prompts if p.startswith(HEADER)]
    assert len(direct) == 1 and "'age': HEAD.c10" in direct[0]  # the candidate after the failed one is linked
    assert res.value["opaque_links"] == [{"term": "age", "table": "HEAD", "column": "c10"}]
    # the first candidate is linked whatever came before it: with direct first, it sees the links
    _, prompts = _generate(_gated(heads, "direct,plain"), _by_prompt(whole=RIGHT))
    assert [p.startswith(HEADER) for p in prompts if "their stored values tell" not in p] == [True, False]


def test_links_are_shown_after_a_candidate_that_read_an_opaque_column(heads: Settings) -> None:
    # whole schema read c10 itself: with while_readable_rows the next candidate gets the links to agree on it
    _, prompts = _generate(_gated(heads, "whole,direct,plain", "while_readable_rows"), _by_prompt(whole=RIGHT))
    assert sum("their stored values tell" in p for p in prompts) == 1
    assert [p.startswith(HEADER) for p in prompts if "their stored values tell" not in p] == [False, True]
    # rows from readable columns alone: the links stay back, as with while_rows
    readable = "SELECT NM, BORN_ST FROM HEAD ORDER BY NM"
    _, prompts = _generate(_gated(heads, "whole,direct,plain", "while_readable_rows"), _by_prompt(whole=readable))
    assert not any("their stored values tell" in p or HEADER in p for p in prompts)
    assert reads_opaque_column(RIGHT, "sqlite") and not reads_opaque_column(readable, "sqlite")
    assert not reads_opaque_column("SELECT FROM WHERE (", "sqlite")
