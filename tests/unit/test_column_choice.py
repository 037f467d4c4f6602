"""The column-choice check (tools.column_choice): which readable columns an answer reads as look-alikes, the one
multiple-choice call with stored values, the rewrite to the column picked, and the check inside the verifier
(scripted fake LLMs, a real SQLite file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from database.connection import Database
from database.schema_reader import read_schema
from tests.support.scripted_model import ScriptedChatModel
from tests.support.sqlite_case import generator_ctx, sqlite_settings
from tools.base import ToolContext
from tools.column_choice import LookAlike, choose_column, find_lookalikes, substitute_column
from tools.execution import execute_candidates, pick_majority, selection_value
from tools.verifier import VerifySQLTool

CLUB = """CREATE TABLE PLYR (PLYR_ID INTEGER PRIMARY KEY, SPNSR_NM TEXT, c3 TEXT, c6 TEXT, CLUB_ID INTEGER);
CREATE TABLE PLYR_CH (PLYR_ID INTEGER, CH_ID INTEGER);
CREATE TABLE CLUB (CLUB_ID INTEGER PRIMARY KEY, CLUB_NM TEXT);
INSERT INTO PLYR VALUES (1, 'Brandon-Souris', 'Jean Luc Bouche', 'Locomotive Engineer', 1),
                        (2, 'Churchill', 'Niki Ashton', 'Researcher', 1), (3, 'Elmwood', 'Fiona Shiells', 'Nurse', 2);
INSERT INTO PLYR_CH VALUES (1, 1);
INSERT INTO CLUB VALUES (1, 'AIK'), (2, 'BK Hacken');"""
QUESTION = "List the names of players that do not have coaches."
WRONG = "SELECT SPNSR_NM FROM PLYR WHERE PLYR_ID NOT IN (SELECT PLYR_ID FROM PLYR_CH)"


@pytest.fixture()
def club(tmp_path: Path) -> Settings:
    return sqlite_settings(tmp_path, CLUB, "club")


_ctx = generator_ctx


def _tables(settings: Settings) -> Any:
    return read_schema(Database.from_settings(settings), sample_rows=0)


def test_a_readable_column_read_for_an_unnamed_word_is_a_lookalike(club: Settings) -> None:
    tables = _tables(club)
    assert find_lookalikes(QUESTION, WRONG, tables, "sqlite") == [LookAlike("PLYR", "SPNSR_NM", "names")]
    # asked for by its own words, the sponsor's name is no look-alike
    assert find_lookalikes("List the sponsor names of players.", "SELECT SPNSR_NM FROM PLYR", tables, "sqlite") == []
    # the opaque column itself, key columns and join conditions are never flagged
    assert find_lookalikes(QUESTION, "SELECT c3 FROM PLYR", tables, "sqlite") == []
    assert find_lookalikes("Which club ids have players?", "SELECT CLUB_ID FROM PLYR", tables, "sqlite") == []
    # a table without opaque columns, or a query that does not parse, gives nothing
    assert find_lookalikes("List the names of clubs.", "SELECT CLUB_NM FROM CLUB", tables, "sqlite") == []
    assert find_lookalikes(QUESTION, "SELECT FROM WHERE", tables, "sqlite") == []


def test_substitution_follows_aliases_and_leaves_other_tables_alone(club: Settings) -> None:
    tables = _tables(club)
    sql = "SELECT T1.SPNSR_NM, T2.CLUB_NM FROM PLYR AS T1 JOIN CLUB AS T2 ON T1.CLUB_ID = T2.CLUB_ID"
    assert substitute_column(sql, "sqlite", tables, "PLYR", "SPNSR_NM", "c3") == (
        "SELECT T1.c3, T2.CLUB_NM FROM PLYR AS T1 JOIN CLUB AS T2 ON T1.CLUB_ID = T2.CLUB_ID")
    assert substitute_column(WRONG, "sqlite", tables, "PLYR", "SPNSR_NM", "c3").startswith("SELECT c3 FROM PLYR")


def test_the_model_chooses_among_the_column_read_and_the_opaque_ones_with_values(club: Settings) -> None:
    model = ScriptedChatModel(replies=[{"column": "c3"}])
    ctx = _ctx(club, model)
    table = next(t for t in _tables(club) if t.name == "PLYR")
    look = LookAlike("PLYR", "SPNSR_NM", "names")
    assert choose_column(ctx, "schema", QUESTION, WRONG, look, table) == "c3"
    user = str(model.prompts[0][-1].content)
    assert "- SPNSR_NM (spnsr name): 'Brandon-Souris'" in user and "- c3: 'Jean Luc Bouche'" in user
    assert '"names"' in user and [c.label for c in ctx.usage.calls] == ["column choice"]
    # keeping the column read, an answer outside the choices, or a failed call: no change
    assert choose_column(_ctx(club, ScriptedChatModel(replies=[{"column": "SPNSR_NM"}])), "s", QUESTION, WRONG,
                         look, table) is None
    assert choose_column(_ctx(club, ScriptedChatModel(replies=[{"column": "CLUB_ID"}])), "s", QUESTION, WRONG,
                         look, table) is None
    assert choose_column(_ctx(club, ScriptedChatModel(replies=[RuntimeError("down")])), "s", QUESTION, WRONG,
                         look, table) is None
    # an opaque column the query reads already is not offered; with none left there is no call
    silent = ScriptedChatModel(replies=[RuntimeError("no call expected")])
    both = "SELECT SPNSR_NM, c3, c6 FROM PLYR"
    assert choose_column(_ctx(club, silent), "s", QUESTION, both, look, table) is None and not silent.prompts


def _selected(ctx: ToolContext, sql: str) -> dict[str, Any]:
    outcomes, results = execute_candidates(ctx, [{"index": 1, "strategy": "direct", "sql": sql},
                                                 {"index": 2, "strategy": "plain", "sql": sql}])
    chosen = pick_majority(outcomes) or 1
    return selection_value(outcomes, results, chosen, {"question": QUESTION, "system": "schema", "context": ""})


def test_the_verifier_reads_the_opaque_column_the_model_picks(club: Settings) -> None:
    ctx = _ctx(club, ScriptedChatModel(replies=[{"column": "c3"}]))
    tool = VerifySQLTool()
    out = tool.run(tool.Args(value=_selected(ctx, WRONG), ok=True), ctx)
    assert out.ok and out.value["sql"].startswith("SELECT c3 FROM PLYR")
    assert sorted(out.value["rows"]) == [["Fiona Shiells"], ["Niki Ashton"]]
    assert out.value["outcomes"][-1]["strategy"] == "column_choice"
    choice = out.value["verifier"]["column_choice"]
    assert choice["lookalikes"] == [{"table": "PLYR", "column": "SPNSR_NM", "term": "names", "picked": "c3"}]
    assert choice["outcome"] == "ok" and out.value["verifier"]["needed"] is False


def test_the_answer_stays_when_kept_empty_or_switched_off(club: Settings) -> None:
    tool = VerifySQLTool()
    kept = _ctx(club, ScriptedChatModel(replies=[{"column": "SPNSR_NM"}]))
    out = tool.run(tool.Args(value=_selected(kept, WRONG), ok=True), kept)
    assert out.value["sql"] == WRONG and out.value["verifier"]["column_choice"]["outcome"] == "kept"
    # the column picked makes the query return nothing: the answer stays
    empty = _ctx(club, ScriptedChatModel(replies=[{"column": "c6"}]))
    filtered = "SELECT SPNSR_NM FROM PLYR WHERE SPNSR_NM = 'Churchill'"
    out = tool.run(tool.Args(value=_selected(empty, filtered), ok=True), empty)
    assert out.value["sql"] == filtered and out.value["verifier"]["column_choice"]["outcome"] == "empty"
    off = club.model_copy(update={"generation": club.generation.model_copy(update={"column_choice": False})})
    silent = ScriptedChatModel(replies=[RuntimeError("no call expected")])
    ctx = _ctx(off, silent)
    out = tool.run(tool.Args(value=_selected(ctx, WRONG), ok=True), ctx)
    assert out.value["sql"] == WRONG and out.value["verifier"] == {"needed": False} and not silent.prompts
