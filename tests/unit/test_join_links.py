"""Joins on links no foreign key states: which equalities are links, which keys count as stated, the outcome's note."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent.confidence import assess, confidence_features, load_model, reasons
from agent.outcome import Outcome
from database.connection import Database
from database.schema_types import ColumnInfo, ForeignKey, TableInfo
from tools import opaque_columns
from tools.join_links import JoinLink, join_links, stated_links, unstated_joins

COLUMNS = {"ppl": {"ppl_id", "nm"}, "gymnst": {"gymnst_id", "c3", "pts"}, "cst": {"cst_id", "nm"}}


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Database:
    """``GYMNST.GYMNST_ID`` declares a key onto ``PPL``; ``CST`` shares a name column with ``PPL`` and no key."""
    monkeypatch.setattr(opaque_columns, "_TABLES", {})
    path = tmp_path / "g.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE PPL (PPL_ID INTEGER PRIMARY KEY, NM TEXT);"
            "CREATE TABLE GYMNST (GYMNST_ID INTEGER PRIMARY KEY REFERENCES PPL(PPL_ID), c3 TEXT, PTS REAL);"
            "CREATE TABLE CST (CST_ID INTEGER PRIMARY KEY, NM TEXT);"
            "INSERT INTO PPL VALUES (1, 'Ann'), (2, 'Bo'); INSERT INTO GYMNST VALUES (1, 'Ann', 9.5);"
            "INSERT INTO CST VALUES (7, 'Ann');")
    conn.close()
    return Database(f"sqlite:///{path}")


@pytest.mark.parametrize(("sql", "links"), [
    ("SELECT T1.NM FROM PPL AS T1 JOIN GYMNST AS T2 ON T1.PPL_ID = T2.GYMNST_ID",
     [JoinLink(("PPL", "PPL_ID"), ("GYMNST", "GYMNST_ID"))]),
    ("SELECT NM FROM PPL, GYMNST WHERE PPL_ID = GYMNST_ID AND PTS > 9",  # unqualified, placed by their table
     [JoinLink(("PPL", "PPL_ID"), ("GYMNST", "GYMNST_ID"))]),
    ("SELECT p.NM FROM PPL p JOIN CST c ON p.NM = c.NM",  # same name on both sides: still a link
     [JoinLink(("PPL", "NM"), ("CST", "NM"))]),
    ("SELECT NM FROM PPL WHERE PPL_ID IN (SELECT GYMNST_ID FROM GYMNST, CST WHERE GYMNST.c3 = CST.NM)",
     [JoinLink(("GYMNST", "c3"), ("CST", "NM"))]),  # the subquery's own link, once
    ("SELECT NM FROM PPL, CST WHERE NM = 'Ann'", []),  # ambiguous column, a literal: no link
    ("SELECT a.NM FROM PPL a JOIN PPL b ON a.PPL_ID = b.PPL_ID", []),  # a self-join links no two tables
    ("SELECT FROM WHERE", []),  # does not parse
])
def test_join_links_are_equalities_between_two_tables_columns(sql: str, links: list[JoinLink]) -> None:
    assert join_links(sql, "sqlite", COLUMNS) == links


def test_only_declared_metadata_and_reviewed_keys_are_stated() -> None:
    cols = [ColumnInfo("A_ID", "INTEGER"), ColumnInfo("B_ID", "INTEGER")]
    table = TableInfo("A", cols, foreign_keys=[ForeignKey(["B_ID"], "B", ["B_ID"], origin=o) for o in
                                               ("declared", "metadata", "reviewed", "inferred", "examples")])
    table.foreign_keys[1].ref_table = "C"
    table.foreign_keys[2].ref_table = "D"
    table.foreign_keys[3].ref_table = "E"
    table.foreign_keys[4].ref_table = "F"
    assert stated_links([table]) == {frozenset({("a", "b_id"), (t, "b_id")}) for t in ("b", "c", "d")}


def test_an_answer_joining_on_a_link_no_key_states_says_so(db: Database) -> None:
    assert unstated_joins(db, "SELECT NM FROM PPL JOIN GYMNST ON PPL.PPL_ID = GYMNST.GYMNST_ID") is None
    found = unstated_joins(db, "SELECT g.PTS FROM GYMNST g JOIN PPL p ON p.PPL_ID = g.GYMNST_ID "
                               "JOIN CST c ON c.NM = p.NM")
    assert found is not None and found.states_keys and found.lines() == ["CST.NM = PPL.NM"]
    assert unstated_joins(db, "SELECT NM FROM PPL") is None and unstated_joins(db, "not sql") is None


def test_a_reviewed_join_is_stated(db: Database) -> None:
    sql = "SELECT CST.NM FROM CST JOIN PPL ON CST.NM = PPL.NM"
    assert unstated_joins(db, sql) is not None
    path = db.sqlite_path
    assert path is not None
    path.with_name("g.enriched.yaml").write_text(
        "version: 1\ntables:\n  CST:\n    references:\n      NM: {target: PPL.NM, status: approved}\n", encoding="utf-8")
    assert unstated_joins(db, sql) is None
    path.with_name("g.enriched.yaml").write_text(
        "version: 1\ntables:\n  CST:\n    references:\n      NM: {target: PPL.NM, status: pending}\n", encoding="utf-8")
    assert unstated_joins(db, sql) is not None  # a draft is not stated, even under use_drafts


def test_a_database_that_states_no_key_gets_the_note_but_no_feature(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opaque_columns, "_TABLES", {})
    path = tmp_path / "bare.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE A (ID INT, B_ID INT); CREATE TABLE B (ID INT);")
    conn.close()
    found = unstated_joins(Database(f"sqlite:///{path}"), "SELECT * FROM A JOIN B ON A.B_ID = B.ID")
    assert found is not None and not found.states_keys and found.lines() == ["A.B_ID = B.ID"]
    out = Outcome(answer="x", status="ok", sql="SELECT 1", unstated_joins=found.lines(), keys_stated=False)
    assert confidence_features(out)["unstated_joins"] == 0.0


def test_the_count_is_a_feature_and_a_reason_of_the_confidence() -> None:
    base = {"answer": "Ann.", "status": "ok", "sql": "SELECT NM FROM PPL JOIN CST ON PPL.NM = CST.NM",
            "rows": [["Ann"]], "agreement": 1.0,
            "candidates": [{"strategy": "direct", "status": "ok", "sql": "S", "row_count": 1}] * 3}
    stated = assess(Outcome(**base))
    assumed = assess(Outcome(**base, unstated_joins=["PPL.NM = CST.NM"], keys_stated=True))
    assert stated is not None and assumed is not None
    assert assumed.features["unstated_joins"] == 1.0 and stated.features["unstated_joins"] == 0.0
    assert "the SQL joins on 1 link no foreign key of the database states: the link was assumed" in assumed.reasons
    assert not any("no foreign key" in r for r in reasons(stated.features))
    model = load_model()
    weighed = model.model_copy(update={"coefficients": [-1.0 if n == "unstated_joins" else c for n, c in
                                                        zip(model.features, model.coefficients, strict=True)]})
    demoted = assess(Outcome(**base, unstated_joins=["PPL.NM = CST.NM"], keys_stated=True), weighed)
    assert demoted is not None and demoted.score < assumed.score  # a refit's weight reaches the score


VOTE_SCHEMA = """CREATE TABLE PPL (PPL_ID INTEGER PRIMARY KEY, NM TEXT);
CREATE TABLE GYMNST (GYMNST_ID INTEGER PRIMARY KEY REFERENCES PPL(PPL_ID), c3 TEXT, PTS REAL);
INSERT INTO PPL VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy');
INSERT INTO GYMNST VALUES (1, 'Bo', 9.5), (2, 'Ann', 8.0);"""
STATED_SQL = "SELECT p.NM FROM PPL p JOIN GYMNST g ON p.PPL_ID = g.GYMNST_ID WHERE g.PTS > 9"
ASSUMED_SQL = "SELECT p.NM FROM PPL p JOIN GYMNST g ON p.NM = g.c3 WHERE g.PTS > 9"


def _vote(tmp_path: Path, sqls: list[str], **switches: bool) -> dict[str, object]:
    from tests.support.scripted_model import ScriptedChatModel
    from tests.support.sqlite_case import generator_ctx, sqlite_settings
    from tools.execution import ExecuteSQLArgs, ExecuteSQLTool

    tmp_path.mkdir(parents=True, exist_ok=True)
    settings = sqlite_settings(tmp_path, VOTE_SCHEMA, "gym")
    settings = settings.model_copy(update={"generation": settings.generation.model_copy(update=switches)})
    cands = [{"index": i, "strategy": "direct", "sql": sql} for i, sql in enumerate(sqls, 1)]
    res = ExecuteSQLTool().run(ExecuteSQLArgs(candidates=cands), generator_ctx(settings, ScriptedChatModel(replies=["x"])))
    assert res.ok
    return res.value


def test_without_a_majority_a_candidate_joining_on_a_stated_key_wins_the_vote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opaque_columns, "_TABLES", {})
    value = _vote(tmp_path, [ASSUMED_SQL, STATED_SQL])  # a tie: the earliest would win
    assert value["selected"] == 2 and value["assumed_left_out"] == [1]
    off = _vote(tmp_path / "off", [ASSUMED_SQL, STATED_SQL], stated_joins_vote=False)
    assert off["selected"] == 1 and off["assumed_left_out"] == []


def test_a_majority_or_no_stated_rival_keeps_the_plain_vote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opaque_columns, "_TABLES", {})
    majority = _vote(tmp_path, [ASSUMED_SQL, ASSUMED_SQL + " ORDER BY 1", STATED_SQL])
    assert majority["selected"] in (1, 2) and majority["assumed_left_out"] == []
    alone = _vote(tmp_path / "alone", [ASSUMED_SQL, "SELECT NM FROM PPL WHERE NM = 'Zed'"])  # the rival is empty
    assert alone["selected"] == 1 and alone["assumed_left_out"] == []
