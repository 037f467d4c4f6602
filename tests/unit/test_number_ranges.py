"""Numbers compared with a column whose stored values never reach them (tools.number_ranges) and the vote."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from agent.runner import answer_range_conflicts
from core.settings import Settings
from database.connection import Database
from tests.support.scripted_model import ScriptedChatModel
from tests.support.sqlite_case import generator_ctx, sqlite_settings
from tools.execution import ExecuteSQLArgs, ExecuteSQLTool, execute_candidates
from tools.number_ranges import (
    Comparison,
    comparisons,
    out_of_range_candidates,
    range_conflicts,
    schema_columns,
    stored_range,
)

PEOPLE = """CREATE TABLE PPL (PPL_ID INTEGER PRIMARY KEY, NM TEXT, WT REAL, c13 REAL, BORN TEXT);
CREATE TABLE CNDT (CNDT_ID INTEGER PRIMARY KEY, PPL_ID INTEGER, SPRT REAL);
INSERT INTO PPL VALUES (1, 'Ann', 82.0, 188.0, '1990'), (2, 'Bo', 90.0, 196.0, '1985'),
                       (3, 'Cy', 94.0, 201.0, '1979'), (4, 'Di', 85.0, 192.0, '2001');
INSERT INTO CNDT VALUES (1, 1, 0.25), (2, 3, 0.4);"""
WRONG = "SELECT NM FROM PPL WHERE WT < 195"
WRONG_AGAIN = "SELECT p.NM FROM PPL AS p WHERE p.WT < 195 ORDER BY p.NM"
RIGHT = "SELECT NM FROM PPL WHERE c13 < 195"


@pytest.fixture()
def people(tmp_path: Path) -> Settings:
    return sqlite_settings(tmp_path, PEOPLE, "people")


def _db(settings: Settings) -> Database:
    return Database.from_settings(settings)


def test_comparisons_resolve_each_column_to_its_table(people: Settings) -> None:
    columns = schema_columns(_db(people))
    sql = ("SELECT p.NM FROM PPL AS p JOIN CNDT AS c ON p.PPL_ID = c.PPL_ID "
           "WHERE c.SPRT BETWEEN 0.1 AND 0.3 AND WT >= -5 AND NM = 'Ann'")
    assert comparisons(sql, "sqlite", columns) == [
        Comparison("CNDT", "SPRT", 0.1), Comparison("CNDT", "SPRT", 0.3), Comparison("PPL", "WT", -5.0)]
    # a column both tables have, unqualified, cannot be placed; unparsable SQL has nothing to check
    assert comparisons("SELECT * FROM PPL JOIN CNDT USING (PPL_ID) WHERE PPL_ID = 9", "sqlite", columns) == []
    assert comparisons("SELECT FROM WHERE >", "sqlite", columns) == []


def test_stored_range_of_numbers_only(people: Settings) -> None:
    db = _db(people)
    assert stored_range(db, "PPL", "WT") == (82.0, 94.0)
    assert stored_range(db, "PPL", "NM") is None  # text compares as text: no range
    assert stored_range(db, "PPL", "NOPE") is None  # a failing query gives none


def test_a_number_outside_the_stored_values_is_a_conflict(people: Settings) -> None:
    db = _db(people)
    [conflict] = range_conflicts(db, WRONG)
    assert conflict.describe() == "195 compared with PPL.WT, whose stored values run from 82 to 94"
    assert conflict.as_dict() == {"table": "PPL", "column": "WT", "number": 195.0, "low": 82.0, "high": 94.0}
    assert range_conflicts(db, RIGHT) == []


def test_a_candidate_loses_its_vote_only_to_a_rival_whose_column_holds_the_number(people: Settings) -> None:
    db = _db(people)
    ctx = generator_ctx(people, ScriptedChatModel(replies=["unused"]))
    cands = [{"index": i, "strategy": "direct", "sql": sql} for i, sql in enumerate([WRONG, WRONG_AGAIN, RIGHT], 1)]
    outcomes, _ = execute_candidates(ctx, cands, False)
    assert out_of_range_candidates(db, outcomes) == {1, 2}
    # no rival that compares 195 with a column reaching it: nobody is left out
    alone, _ = execute_candidates(ctx, cands[:2] + [{"index": 3, "sql": "SELECT NM FROM PPL WHERE c13 > 10"}], False)
    assert out_of_range_candidates(db, alone) == set()
    # a rival that returns no rows does not count
    empty, _ = execute_candidates(ctx, cands[:2] + [{"index": 3, "sql": "SELECT NM FROM PPL WHERE c13 < 100"}],
                                  False)
    assert out_of_range_candidates(db, empty) == set()


def test_the_execution_step_selects_the_rival_and_the_switch_restores_the_majority(people: Settings) -> None:
    cands = [{"index": i, "strategy": "direct", "sql": sql} for i, sql in enumerate([WRONG, WRONG_AGAIN, RIGHT], 1)]
    ctx = generator_ctx(people, ScriptedChatModel(replies=["unused"]))
    res = ExecuteSQLTool().run(ExecuteSQLArgs(candidates=cands), ctx)
    assert res.ok and res.value["selected"] == 3 and res.value["range_left_out"] == [1, 2]
    assert sorted(r[0] for r in res.value["rows"]) == ["Ann", "Di"]
    off = people.model_copy(update={"generation": people.generation.model_copy(update={"range_check": False})})
    res = ExecuteSQLTool().run(ExecuteSQLArgs(candidates=cands), generator_ctx(off, ScriptedChatModel(replies=["x"])))
    assert res.value["selected"] == 1 and res.value["range_left_out"] == []


def test_the_answer_names_its_conflicts_unless_switched_off(people: Settings) -> None:
    deps = SimpleNamespace(db=_db(people), settings=people)
    assert answer_range_conflicts(deps, WRONG) == ["195 compared with PPL.WT, whose stored values run from 82 to 94"]
    assert answer_range_conflicts(deps, RIGHT) == [] and answer_range_conflicts(deps, None) == []
    off = people.model_copy(update={"generation": people.generation.model_copy(update={"range_check": False})})
    assert answer_range_conflicts(SimpleNamespace(db=_db(off), settings=off), WRONG) == []
