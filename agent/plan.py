"""The typed ReWOO plan: steps ``#E1..#En``, validation, exact-id reference resolution, and the standard plan.

ReWOO ("Reasoning WithOut Observation", Xu et al. 2023) has the planner write the whole tool program up
front; workers then run it without further LLM reasoning between steps. Unlike the LangGraph ReWOO tutorial,
the plan here is a Pydantic model (no regex over free text) and references are resolved by exact step id, so
``#E1`` never matches inside ``#E10``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Literal

from pydantic import BaseModel, Field

ToolName = Literal[
    "retrieve_schema", "retrieve_examples", "search_values", "table_insights", "generate_sql", "execute_sql",
    "judge_sql", "verify_sql", "build_chart",
]
"""Tools a plan step may call (the organizer runs in the solve node, after the plan)."""

TOOL_NAMES: tuple[str, ...] = ToolName.__args__  # type: ignore[attr-defined]
AUTO_TOOLS: tuple[str, ...] = ("judge_sql", "verify_sql")
"""Quality steps :func:`complete_plan` always appends after the last execution (the planner need not write
them, which keeps its output, ~45-65 ms per token on the local model, short)."""
MAX_DRAFT_STEPS = 8
MAX_STEPS = MAX_DRAFT_STEPS + 3
REF_PATTERN = re.compile(r"#E(\d+)(?!\d)")
"""A reference to an earlier step's evidence: ``#E`` followed by the full step number."""


class PlanStep(BaseModel):
    """One plan step: evidence id, the tool it calls and its input (which may reference earlier ids)."""

    id: str = Field(
        description="Evidence id of this step: #E1, #E2, ... in order.", pattern=r"^#E[1-9][0-9]?$"
    )
    tool: ToolName = Field(description="Tool to call.")
    input: str = Field(
        description="Tool input; may contain #E<n> references to earlier steps.", max_length=400
    )
    description: str = Field("", description="Why this step (a few words).", max_length=120)

    def references(self) -> list[str]:
        """Step ids referenced by ``input``, in order of appearance, e.g. ``["#E1", "#E2"]``."""
        return [f"#E{n}" for n in REF_PATTERN.findall(self.input)]


class Plan(BaseModel):
    """A whole plan as the planner emits it (structured output)."""

    steps: list[PlanStep] = Field(description="Steps in execution order.", min_length=1, max_length=MAX_STEPS)


DraftToolName = Literal[
    "retrieve_schema", "retrieve_examples", "search_values", "table_insights", "generate_sql", "execute_sql",
    "build_chart",
]
"""Tools the planner writes (the judge and verifier are appended by :func:`complete_plan`)."""


class DraftStep(BaseModel):
    """A step as the planner LLM writes it: no id (step k is ``#Ek``) and no description, to keep its output
    short (each output token costs ~45-65 ms on the local 2-core model)."""

    tool: DraftToolName
    input: str = Field(description="Tool input; may reference earlier steps like #E1.", max_length=200)


class PlanDraft(BaseModel):
    """The planner's structured output; :meth:`to_plan` adds each step's description from its tool."""

    steps: list[DraftStep] = Field(min_length=1, max_length=MAX_DRAFT_STEPS)

    def to_plan(self, describe: Callable[[str], str]) -> Plan:
        """The full :class:`Plan`; ``describe(tool_name)`` gives the step description."""
        return Plan(steps=[PlanStep(id=f"#E{k}", tool=s.tool, input=s.input, description=describe(s.tool))
                           for k, s in enumerate(self.steps, start=1)])


class PlanError(ValueError):
    """A plan that cannot be executed; the message says which rule it breaks."""


def validate_plan(plan: Plan, allowed: Collection[str] | None = None) -> None:
    """Check that ``plan`` is executable.

    Rules: ids are ``#E1..#En`` in order; references point only to earlier steps; every ``generate_sql``
    references a ``retrieve_schema`` step; every ``execute_sql`` references a ``generate_sql`` step; the plan
    generates and executes SQL at least once. ``table_insights`` also needs the schema. When ``allowed`` is
    given, every step's tool must be in it (tools can be disabled by settings).

    Raises:
        PlanError: naming the first rule broken.
    """
    tools_by_id: dict[str, str] = {}
    for index, step in enumerate(plan.steps, start=1):
        if step.id != f"#E{index}":
            raise PlanError(f"step {index} has id {step.id}; expected #E{index}")
        if allowed is not None and step.tool not in allowed:
            raise PlanError(f"{step.id} uses {step.tool}, which is disabled")
        refs = step.references()
        unknown = [r for r in refs if r not in tools_by_id]
        if unknown:
            raise PlanError(f"{step.id} references {', '.join(unknown)}, which is not an earlier step")
        ref_tools = {tools_by_id[r] for r in refs}
        if step.tool in ("generate_sql", "table_insights") and "retrieve_schema" not in ref_tools:
            raise PlanError(f"{step.id} ({step.tool}) does not reference a retrieve_schema step")
        if step.tool == "execute_sql" and "generate_sql" not in ref_tools:
            raise PlanError(f"{step.id} executes SQL without referencing a generate_sql step")
        if step.tool == "judge_sql" and "execute_sql" not in ref_tools:
            raise PlanError(f"{step.id} judges without referencing an execute_sql step")
        if step.tool == "verify_sql" and not ref_tools & {"judge_sql", "execute_sql"}:
            raise PlanError(f"{step.id} verifies without referencing a judge_sql or execute_sql step")
        if step.tool == "build_chart" and not ref_tools & {"execute_sql", "judge_sql", "verify_sql"}:
            raise PlanError(f"{step.id} charts without referencing a query result")
        tools_by_id[step.id] = step.tool
    if "execute_sql" not in tools_by_id.values():
        raise PlanError("the plan never executes SQL")


def complete_plan(plan: Plan, *, chart: bool = False) -> tuple[Plan, bool]:
    """Append the quality steps after the plan's last ``execute_sql``: ``judge_sql`` on it, ``verify_sql`` on
    the judge, and ``build_chart`` on the verified result when ``chart`` is true or the plan had a
    ``build_chart`` step. Steps the planner wrote after the last execution (only judge/verify/chart steps
    are useful there; nothing can reference them) are replaced. Returns ``(plan, changed)``; a plan without
    ``execute_sql`` comes back unchanged (:func:`validate_plan` rejects it).
    """
    steps = list(plan.steps)
    executions = [i for i, s in enumerate(steps) if s.tool == "execute_sql"]
    if not executions:
        return plan, False
    chart = chart or any(s.tool == "build_chart" for s in steps)
    core = steps[: executions[-1] + 1]
    n = len(core)
    tail = [("judge_sql", "pick the best candidate"), ("verify_sql", "repair if failed, empty or weak")]
    if chart:
        tail.append(("build_chart", "chart of the result"))
    for offset, (tool, why) in enumerate(tail):
        core.append(PlanStep(id=f"#E{n + offset + 1}", tool=tool, input=f"#E{n + offset}", description=why))
    new = Plan(steps=core)
    return new, [s.model_dump() for s in new.steps] != [s.model_dump() for s in steps]


def resolve_refs(text: str, lookup: Callable[[str], str]) -> str:
    """Replace every ``#E<n>`` in ``text`` by ``lookup("#E<n>")``, matching whole ids only.

    ``lookup`` receives the exact id (``"#E10"`` is never read as ``"#E1"`` followed by ``0``); a KeyError
    from it propagates to the caller.
    """
    return REF_PATTERN.sub(lambda m: lookup(f"#E{m.group(1)}"), text)


def default_plan(question: str, *, use_examples: bool = True, chart: bool = False) -> Plan:
    """The standard plan used when the planner's plan is missing or invalid.

    Schema retrieval, example retrieval (when enabled), value search, SQL generation and execution, then the
    judge and verifier (and a chart when ``chart``), see :func:`complete_plan`.
    """
    steps = [PlanStep(id="#E1", tool="retrieve_schema", input=question, description="relevant tables")]
    if use_examples:
        steps.append(PlanStep(id="#E2", tool="retrieve_examples", input=question, description="similar SQL"))
    steps.append(PlanStep(id=f"#E{len(steps) + 1}", tool="search_values", input=question, description="values"))
    context = " ".join(s.id for s in steps)
    n = len(steps)
    steps.append(
        PlanStep(
            id=f"#E{n + 1}", tool="generate_sql", input=f"{question} | {context}", description="write SQL"
        )
    )
    steps.append(PlanStep(id=f"#E{n + 2}", tool="execute_sql", input=f"#E{n + 1}", description="run it"))
    return complete_plan(Plan(steps=steps), chart=chart)[0]
