"""A written column no table has, read as the opaque column the model picks (tools.missing_column): which
failures qualify, the one constrained call, the rewrite, and the cascade keeping the rewritten candidate
(scripted fake LLMs, a real SQLite file)."""

from __future__ import annotations

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
from tools.missing_column import (
    MAX_ROUNDS,
    find_missing,
    respell_missing,
    respell_until_runs,
    substitute_missing,
)

GUESTS = """CREATE TABLE GSTS (GST_ID INTEGER PRIMARY KEY, GNDR_CD TEXT, GST_FST_NM TEXT, c20 TEXT, c21 TEXT);
CREATE TABLE BKNG (BKNG_ID INTEGER PRIMARY KEY, GST_ID INTEGER REFERENCES GSTS (GST_ID), c5 TEXT);
INSERT INTO GSTS VALUES (1, 'M', 'Kip', 'Smith', '1990-01-02'), (2, 'F', 'Rebeca', 'Jones', '1985-07-30');
INSERT INTO BKNG VALUES (1, 1, 'Provisional'), (2, 2, 'Confirmed');"""
QUESTION = "Return the first names and last names of all guests."
WRONG = "SELECT GST_FST_NM, GST_LST_NM FROM GSTS"
ERROR = "no such column: GST_LST_NM"


def _table(name: str, *columns: str) -> TableInfo:
    return TableInfo(name, [ColumnInfo(c, "TEXT") for c in columns])


SCHEMA = [_table("GSTS", "GST_ID", "GNDR_CD", "GST_FST_NM", "c20", "c21"), _table("BKNG", "BKNG_ID", "GST_ID", "c5")]


@pytest.fixture()
def guests(tmp_path: Path) -> Settings:
    settings = sqlite_settings(tmp_path, GUESTS, "guests")
    return settings.model_copy(update={"generation": settings.generation.model_copy(update={
        "missing_column_choice": True, "candidates_local": CandidateSpec.parse_list("direct,plain"),
        "cascade": True, "repair_errors": False})})


def test_only_a_name_no_table_of_the_query_has_with_opaque_columns_beside_it_qualifies() -> None:
    missing = find_missing(WRONG, ERROR, SCHEMA, "sqlite")
    assert missing is not None and missing.written == "GST_LST_NM" and missing.qualifier is None
    assert missing.options == (("GSTS", "c20"), ("GSTS", "c21"))
    joined = "SELECT g.GST_FST_NM, g.GST_LST_NM FROM GSTS AS g JOIN BKNG AS b ON b.GST_ID = g.GST_ID"
    qualified = find_missing(joined, "no such column: g.GST_LST_NM", SCHEMA, "sqlite")
    assert qualified is not None and qualified.options == (("GSTS", "c20"), ("GSTS", "c21"))  # not BKNG.c5
    # a column the query already reads is no option; nothing left: no call
    assert find_missing("SELECT c20, c21, X FROM GSTS", "no such column: X", SCHEMA, "sqlite") is None
    # a wrong qualifier (BKNG has c5), a missing join (BKNG not read), a table outside the query, another error,
    # no opaque column: not this step
    assert find_missing("SELECT GSTS.c5 FROM GSTS JOIN BKNG ON 1=1", "no such column: GSTS.c5", SCHEMA, "sqlite") is None
    assert find_missing("SELECT c5 FROM GSTS", "no such column: c5", SCHEMA, "sqlite") is None
    assert find_missing("SELECT X.NM FROM GSTS", "no such column: X.NM", SCHEMA, "sqlite") is None
    assert find_missing(WRONG, "no such table: GSTS", SCHEMA, "sqlite") is None
    assert find_missing(WRONG, ERROR, [_table("GSTS", "GST_ID", "GST_FST_NM")], "sqlite") is None
    # PostgreSQL's wording
    assert find_missing(WRONG, 'column "gst_lst_nm" does not exist', SCHEMA, "postgres") is not None


def test_the_pick_replaces_the_written_name_only_where_it_was_written() -> None:
    joined = "SELECT g.GST_LST_NM FROM GSTS AS g JOIN BKNG AS b ON b.GST_ID = g.GST_ID ORDER BY g.GST_LST_NM"
    missing = find_missing(joined, "no such column: g.GST_LST_NM", SCHEMA, "sqlite")
    assert missing is not None
    assert substitute_missing(joined, "sqlite", missing, "c20") == (
        "SELECT g.c20 FROM GSTS AS g JOIN BKNG AS b ON b.GST_ID = g.GST_ID ORDER BY g.c20")


def test_one_call_with_stored_values_picks_the_column(guests: Settings) -> None:
    model = ScriptedChatModel(replies=[{"column": "GSTS.c20"}])
    found = respell_missing(generator_ctx(guests, model), "s", QUESTION, WRONG, ERROR)
    assert found == ("SELECT GST_FST_NM, c20 FROM GSTS", {"written": "GST_LST_NM", "table": "GSTS", "picked": "c20"})
    user = str(model.prompts[0][-1].content)
    assert "a column GST_LST_NM (\"gst last name\")." in user  # the name in words, where parts are known
    assert "GSTS.c20 (TEXT): 'Smith', 'Jones'" in user and WRONG in user
    # the table's other readable columns are choices too, keys aside
    assert "Other columns of the same tables, which the query does not read: GSTS.GNDR_CD\n" in user
    picked = respell_missing(generator_ctx(guests, ScriptedChatModel(replies=[{"column": "GSTS.GNDR_CD"}])), "s",
                             QUESTION, WRONG, ERROR)
    assert picked is not None and picked[0] == "SELECT GST_FST_NM, GNDR_CD FROM GSTS"
    for reply in ({"column": "none"}, {"column": "GSTS.GST_ID"}, {"column": "BKNG.c5"}):  # none, or not a choice
        assert respell_missing(generator_ctx(guests, ScriptedChatModel(replies=[reply])), "s", QUESTION, WRONG,
                               ERROR) is None
    silent = ScriptedChatModel(replies=[])
    assert respell_missing(generator_ctx(guests, silent), "s", QUESTION, WRONG, "no such table: X") is None
    assert silent.prompts == []


def test_the_cascade_keeps_the_candidate_reading_the_picked_column(guests: Settings) -> None:
    def script(messages: list[BaseMessage]) -> Any:
        user = str(messages[-1].content)
        if "This query failed" in user:
            return {"column": "GSTS.c20"}
        return WRONG if "SQL query only" in user else {"sql": WRONG}

    model = ScriptedChatModel(script=script)
    ctx = generator_ctx(guests, model)
    schema = ToolResult(ok=True, kind="schema", text="CREATE TABLE GSTS (...);", value={"tables": ["GSTS"]})
    tool = GenerateSQLTool()
    res = tool.run(tool.build_args(ToolCall(QUESTION, "#E2", tool.name, "", {"#E1": schema}), ctx), ctx)
    first = res.value["candidates"][0]
    assert first["sql"] == "SELECT GST_FST_NM, c20 FROM GSTS"
    assert first["rewrites"][-1]["step"] == "missing_column_choice"
    assert "GST_LST_NM read as GSTS.c20" in first["rewrites"][-1]["note"]
    # off: the candidates keep the failing name
    off = guests.model_copy(update={"generation": guests.generation.model_copy(update={"missing_column_choice": False})})
    ctx = generator_ctx(off, ScriptedChatModel(script=script))
    res = tool.run(tool.build_args(ToolCall(QUESTION, "#E2", tool.name, "", {"#E1": schema}), ctx), ctx)
    assert all(c["sql"] == WRONG for c in res.value["candidates"])


def test_several_missing_names_are_picked_one_after_another(guests: Settings) -> None:
    two = "SELECT GST_LST_NM, GST_BRTH_DT FROM GSTS"
    model = ScriptedChatModel(replies=[{"column": "GSTS.c20"}, {"column": "GSTS.c21"}])
    found = respell_until_runs(generator_ctx(guests, model), "s", QUESTION, two, "no such column: GST_LST_NM")
    assert found == ("SELECT c20, c21 FROM GSTS",
                     {"written": "GST_LST_NM, GST_BRTH_DT", "table": "GSTS, GSTS", "picked": "c20, c21"})
    assert "a column GST_BRTH_DT" in str(model.prompts[1][-1].content)  # the second call names the second error
    # a round with nothing to pick gives up: the query never ran
    stuck = ScriptedChatModel(replies=[{"column": "GSTS.c20"}, {"column": "none"}])
    assert respell_until_runs(generator_ctx(guests, stuck), "s", QUESTION, two, "no such column: GST_LST_NM") is None
    assert MAX_ROUNDS >= 2
