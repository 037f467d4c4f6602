"""Plan validation, exact-id reference resolution and the standard plan."""

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
    resolve_refs,
    validate_plan,
)


def _plan(*steps: tuple[str, str, str]) -> Plan:
    return Plan(steps=[PlanStep(id=i, tool=t, input=x) for i, t, x in steps])  # type: ignore[arg-type]


def test_default_plan_is_valid_with_and_without_examples() -> None:
    for use_examples in (True, False):
        plan = default_plan("How many customers?", use_examples=use_examples)
        validate_plan(plan)
        assert [s.tool for s in plan.steps[-3:]] == ["execute_sql", "judge_sql", "verify_sql"]
        assert [s.id for s in plan.steps] == [f"#E{i}" for i in range(1, len(plan.steps) + 1)]


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
    ],
)
def test_invalid_plans_are_rejected(steps: tuple[tuple[str, str, str], ...], message: str) -> None:
    with pytest.raises(PlanError, match=message):
        validate_plan(_plan(*steps))


def test_unknown_tool_and_bad_id_fail_schema_validation() -> None:
    with pytest.raises(ValidationError):
        PlanStep(id="#E1", tool="drop_database", input="x")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        PlanStep(id="E1", tool="retrieve_schema", input="x")
    with pytest.raises(ValidationError):
        Plan(steps=[])


def _draft(*steps: tuple[str, str]) -> Plan:
    return PlanDraft.model_validate({"steps": [{"tool": t, "input": i} for t, i in steps]}).to_plan(lambda n: n)


def test_completion_appends_judge_verifier_and_requested_chart() -> None:
    plan = _draft(("retrieve_schema", "x"), ("generate_sql", "#E1"), ("execute_sql", "#E2"),
                  ("build_chart", "#E3"))
    done, changed = complete_plan(plan)
    assert changed
    assert [(s.id, s.tool, s.input) for s in done.steps[2:]] == [
        ("#E3", "execute_sql", "#E2"), ("#E4", "judge_sql", "#E3"), ("#E5", "verify_sql", "#E4"),
        ("#E6", "build_chart", "#E5")]
    validate_plan(done)
    plain, _ = complete_plan(_draft(("retrieve_schema", "x"), ("generate_sql", "#E1"), ("execute_sql", "#E2")))
    assert plain.steps[-1].tool == "verify_sql"
    charted, _ = complete_plan(plain, chart=True)
    assert charted.steps[-1].tool == "build_chart" and charted.steps[-1].input == "#E5"
    again, changed_again = complete_plan(done)
    assert not changed_again and again == done  # idempotent


def test_completion_leaves_plans_without_execution_to_validation() -> None:
    plan = _draft(("retrieve_schema", "x"), ("generate_sql", "#E1"))
    same, changed = complete_plan(plan)
    assert same == plan and not changed
    with pytest.raises(PlanError, match="never executes"):
        validate_plan(same)


def test_draft_steps_are_numbered_by_position_and_quality_tools_are_not_draftable() -> None:
    plan = _draft(("retrieve_schema", "a"), ("generate_sql", "#E1"), ("execute_sql", "#E2"))
    assert [s.id for s in plan.steps] == ["#E1", "#E2", "#E3"]
    with pytest.raises(ValidationError):
        PlanDraft.model_validate({"steps": [{"tool": "judge_sql", "input": "#E1"}]})
