"""Plan validation, exact-id reference resolution and the standard plan."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent.plan import Plan, PlanError, PlanStep, default_plan, resolve_refs, validate_plan


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
