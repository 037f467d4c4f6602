"""Opaque tables as link choices (tools.opaque_tables under ``generation.link_opaque_tables``): the link call offers
a table named like ``t_05``, a word the model gives it becomes a table link, and the hint-taking candidates read it
(scripted fake LLMs, a real SQLite file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.settings import Settings
from database.schema_types import ColumnInfo, TableInfo
from tests.support.scripted_model import ScriptedChatModel
from tests.support.sqlite_case import generator_ctx, sqlite_settings
from tools.opaque_columns import ColumnLink, OpaqueColumn, TableLink, link_opaque_columns, render_links
from tools.opaque_tables import TABLE_HEADER, opaque_tables
from tools.question_terms import reads_opaque_column

FACULTY = """CREATE TABLE t_05 (FAC_ID INTEGER PRIMARY KEY, LNM TEXT, RNK TEXT);
CREATE TABLE CRS (CRS_ID TEXT PRIMARY KEY, TTL TEXT, FAC_ID INTEGER REFERENCES t_05 (FAC_ID));
INSERT INTO t_05 VALUES (1, 'Smith', 'Professor'), (2, 'Jones', 'Instructor');
INSERT INTO CRS VALUES ('C1', 'Databases', 1), ('C2', 'Compilers', 2);"""
QUESTION = "How many instructors teach courses?"


@pytest.fixture()
def faculty(tmp_path: Path) -> Settings:
    settings = sqlite_settings(tmp_path, FACULTY, "faculty")
    return settings.model_copy(
        update={"generation": settings.generation.model_copy(update={"link_opaque_tables": True})})


def test_undocumented_opaque_tables_are_choices() -> None:
    tables = [TableInfo("t_05", [ColumnInfo("FAC_ID", "INTEGER")]), TableInfo("CRS", [ColumnInfo("CRS_ID", "TEXT")]),
              TableInfo("t_07", [ColumnInfo("ID", "INTEGER")], comment="Each row is a classroom.")]
    assert [t.name for t in opaque_tables(tables)] == ["t_05"]  # CRS is readable, t_07 documented


def test_a_word_linked_to_an_opaque_table_becomes_a_table_link(faculty: Settings) -> None:
    # no opaque column in the schema: without the setting no call is made at all
    off = faculty.model_copy(
        update={"generation": faculty.generation.model_copy(update={"link_opaque_tables": False})})
    silent = ScriptedChatModel(replies=[])
    assert link_opaque_columns(generator_ctx(off, silent), "s", QUESTION, []) == []
    assert silent.prompts == []
    model = ScriptedChatModel(replies=[{"instructors": "t_05"}])
    links = link_opaque_columns(generator_ctx(faculty, model), "s", QUESTION, [])
    assert links == [TableLink("instructors", "t_05")]
    user = str(model.prompts[0][-1].content)
    assert "- t_05: FAC_ID, LNM, RNK\n" in user and "names that say nothing" in user and ": t_05\n" in user
    assert links[0].as_dict() == {"term": "instructors", "table": "t_05", "column": None}
    # a readable column of the table is no link; a table outside the choices is rejected
    for reply in ({"instructors": "t_05.LNM"}, {"instructors": "CRS"}):
        assert link_opaque_columns(generator_ctx(faculty, ScriptedChatModel(replies=[reply])), "s", QUESTION, []) == []


def test_table_links_are_shown_after_column_links() -> None:
    shown = render_links([TableLink("instructors", "t_05"), TableLink("teachers", "t_05")])
    assert shown == TABLE_HEADER + "- 'instructors', 'teachers': the rows of table t_05\n\n"
    both = render_links([ColumnLink("age", OpaqueColumn("HEAD", "c10", "REAL", ("67",))),
                         TableLink("instructors", "t_05")])
    assert both.index("HEAD.c10") < both.index(TABLE_HEADER) and both.endswith("table t_05\n\n")
    assert render_links([]) == ""


def test_a_query_reading_an_opaque_table_counts_as_a_guess_only_when_asked() -> None:
    sql = "SELECT COUNT(*) FROM t_05 JOIN CRS ON CRS.FAC_ID = t_05.FAC_ID"
    assert not reads_opaque_column(sql, "sqlite") and reads_opaque_column(sql, "sqlite", tables=True)
