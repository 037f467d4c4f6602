"""Plan validation, exact-id reference resolution, the standard plan, and plan types derived from the tools."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent.plan import (
    Plan,
    PlanDraft,
    PlanError,
    PlanStep,
    complete_plan,
    default_plan,
    draft_model,
    resolve_refs,
    validate_plan,
)
from tools.registry import ToolRegistry, default_registry

TOOLS = default_registry()


def _plan(*steps: tuple[str, str, str]) -> Plan:
    return Plan(steps=[PlanStep(id=i, tool=t, input=x) for i, t, x in steps])


def _draft(*steps: tuple[str, str]) -> Plan:
    model = draft_model(tuple(TOOLS.planned_names()))
    return model.model_validate({"steps": [{"tool": t, "input": i} for t, i in steps]}).to_plan(lambda n: n)


def test_default_plan_is_valid_with_and_without_examples() -> None:
    for use_examples in (True, False):
        plan = default_plan("How many customers?", TOOLS, use_examples=use_examples)
        validate_plan(plan, TOOLS)
        assert [s.tool for s in plan.steps[-3:]] == ["execute_sql", "judge_sql", "verify_sql"]
        assert [s.id for s in plan.steps] == [f"#E{i}" for i in range(1, len(plan.steps) + 1)]
    charted = default_plan("Plot customers per country", TOOLS)
    assert charted.steps[-1].tool == "build_chart"


def test_resolve_refs_matches_whole_ids_only() -> None:
    values = {f"#E{i}": f"<{i}>" for i in range(1, 12)}
    assert resolve_refs("#E1 and #E10 and #E11", values.__getitem__) == "<1> and <10> and <11>"
    assert resolve_refs("#E1#E2", values.__getitem__) == "<1><2>"
    assert resolve_refs("no refs", values.__getitem__) == "no refs"


def test_resolve_refs_unknown_id_raises_keyerror() -> None:
    with pytest.raises(KeyError):
        resolve_refs("#E10", {"#E1": "x"}.__getitem__)


def test_step_references_do_not_confuse_e1_and_e10() -> None:
    step = PlanStep(id="#E11", tool="generate_sql", input="q #E10 #E1")
    assert step.references() == ["#E10", "#E1"]


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ((("#E1", "retrieve_schema", "q"), ("#E3", "generate_sql", "#E1")), "expected #E2"),
        ((("#E1", "retrieve_schema", "q"), ("#E2", "generate_sql", "#E5")), "not an earlier step"),
        ((("#E1", "generate_sql", "#E1"),), "not an earlier step"),
        ((("#E1", "retrieve_examples", "q"), ("#E2", "generate_sql", "#E1")), "retrieve_schema"),
        ((("#E1", "retrieve_schema", "q"), ("#E2", "execute_sql", "#E1")), "generate_sql"),
        ((("#E1", "retrieve_schema", "q"), ("#E2", "generate_sql", "#E1")), "never executes"),
        ((("#E1", "drop_database", "q"),), "not a tool"),
    ],
)
def test_invalid_plans_are_rejected(steps: tuple[tuple[str, str, str], ...], message: str) -> None:
    with pytest.raises(PlanError, match=message):
        validate_plan(_plan(*steps), TOOLS)


def test_disabled_tool_is_rejected() -> None:
    plan = _plan(("#E1", "retrieve_schema", "q"), ("#E2", "table_insights", "#E1"), ("#E3", "generate_sql", "#E1"),
                 ("#E4", "execute_sql", "#E3"))
    validate_plan(plan, TOOLS)
    with pytest.raises(PlanError, match="disabled"):
        validate_plan(plan, TOOLS, allowed=[n for n in TOOLS.names if n != "table_insights"])


def test_bad_step_shapes_fail_schema_validation() -> None:
    with pytest.raises(ValidationError):
        PlanStep(id="#E1", tool="DROP TABLE x", input="x")
    with pytest.raises(ValidationError):
        PlanStep(id="E1", tool="retrieve_schema", input="x")
    with pytest.raises(ValidationError):
        Plan(steps=[])


def test_completion_appends_judge_verifier_and_requested_chart() -> None:
    plan = _draft(("retrieve_schema", "x"), ("generate_sql", "#E1"), ("execute_sql", "#E2"),
                  ("build_chart", "#E3"))
    done, changed = complete_plan(plan, TOOLS)
    assert changed
    assert [(s.id, s.tool, s.input) for s in done.steps[2:]] == [
        ("#E3", "execute_sql", "#E2"), ("#E4", "judge_sql", "#E3"), ("#E5", "verify_sql", "#E4"),
        ("#E6", "build_chart", "#E5")]
    validate_plan(done, TOOLS)
    plain, _ = complete_plan(_draft(("retrieve_schema", "x"), ("generate_sql", "#E1"), ("execute_sql", "#E2")),
                             TOOLS)
    assert plain.steps[-1].tool == "verify_sql"
    charted, _ = complete_plan(plain, TOOLS, wanted=["build_chart"])
    assert charted.steps[-1].tool == "build_chart" and charted.steps[-1].input == "#E5"
    again, changed_again = complete_plan(done, TOOLS)
    assert not changed_again and again == done  # idempotent


def test_completion_leaves_plans_without_execution_to_validation() -> None:
    plan = _draft(("retrieve_schema", "x"), ("generate_sql", "#E1"))
    same, changed = complete_plan(plan, TOOLS)
    assert same == plan and not changed
    with pytest.raises(PlanError, match="never executes"):
        validate_plan(same, TOOLS)


def test_draft_steps_are_numbered_by_position_and_quality_tools_are_not_draftable() -> None:
    plan = _draft(("retrieve_schema", "a"), ("generate_sql", "#E1"), ("execute_sql", "#E2"))
    assert [s.id for s in plan.steps] == ["#E1", "#E2", "#E3"]
    model = draft_model(tuple(TOOLS.planned_names()))
    assert issubclass(model, PlanDraft) and model is draft_model(tuple(TOOLS.planned_names()))
    with pytest.raises(ValidationError):
        model.model_validate({"steps": [{"tool": "judge_sql", "input": "#E1"}]})
    enum = model.model_json_schema()["$defs"]["DraftStep"]["properties"]["tool"]["enum"]
    assert enum == ["retrieve_schema", "retrieve_examples", "search_values", "lookup_knowledge", "check_question", "table_insights", "generate_sql",
                    "execute_sql", "build_chart"]


def test_registry_derives_the_planner_view_from_tool_declarations() -> None:
    from core.settings import Settings

    assert TOOLS.quality_names() == ["judge_sql", "verify_sql"]
    assert TOOLS.final_names() == ["build_chart"]
    assert "table_insights" not in TOOLS.enabled_names(Settings(use_insights=False))
    assert "table_insights" in TOOLS.enabled_names(Settings(use_insights=True))
    assert TOOLS.wanted_names("plot sales by year") == ["build_chart"] and TOOLS.wanted_names("sales") == []
    with pytest.raises(ValueError, match="twice"):
        ToolRegistry([*(TOOLS.get(n) for n in TOOLS.names), TOOLS.get("judge_sql")])
