"""The typed ReWOO plan: steps ``#E1..#En``, validation, exact-id reference resolution, and the standard plan.

ReWOO ("Reasoning WithOut Observation", Xu et al. 2023) has the planner write the whole tool program up
front; workers then run it without further LLM reasoning between steps. Unlike the LangGraph ReWOO tutorial,
the plan here is a Pydantic model (no regex over free text) and references are resolved by exact step id, so
``#E1`` never matches inside ``#E10``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Sequence
from typing import Literal

from pydantic import BaseModel, Field, create_model

from tools.registry import ToolRegistry

MAX_DRAFT_STEPS = 8
MAX_STEPS = MAX_DRAFT_STEPS + 3
REF_PATTERN = re.compile(r"#E(\d+)(?!\d)")
"""A reference to an earlier step's evidence: ``#E`` followed by the full step number."""


class PlanStep(BaseModel):
    """One plan step: evidence id, the tool it calls and its input (which may reference earlier ids)."""

    id: str = Field(
        description="Evidence id of this step: #E1, #E2, ... in order.", pattern=r"^#E[1-9][0-9]?$"
    )
    tool: str = Field(description="Tool to call.", pattern=r"^[a-z][a-z_]*$", max_length=40)
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


class DraftStep(BaseModel):
    """A step as the planner LLM writes it: no id (step k is ``#Ek``) and no description.

    This keeps its output short (each output token costs ~45-65 ms on the local 2-core model).
    """

    tool: str
    input: str = Field(description="Tool input; may reference earlier steps like #E1.", max_length=200)


class PlanDraft(BaseModel):
    """The planner's structured output; :meth:`to_plan` adds each step's description from its tool."""

    steps: list[DraftStep] = Field(min_length=1, max_length=MAX_DRAFT_STEPS)

    def to_plan(self, describe: Callable[[str], str]) -> Plan:
        """The full :class:`Plan`; ``describe(tool_name)`` gives the step description."""
        return Plan(steps=[PlanStep(id=f"#E{k}", tool=s.tool, input=s.input, description=describe(s.tool))
                           for k, s in enumerate(self.steps, start=1)])


@functools.cache
def draft_model(tool_names: tuple[str, ...]) -> type[PlanDraft]:
    """The planner's output type for these tools: a :class:`PlanDraft` limited to ``tool_names``.

    Its step ``tool`` is an enum of ``tool_names`` (the JSON schema constrains the local model's decoding to
    them).

    ``tool_names`` comes from :meth:`tools.registry.ToolRegistry.planned_names`; the classes are built once
    per tuple and keep the names ``DraftStep``/``PlanDraft``.

    Raises:
        ValueError: ``tool_names`` is empty.
    """
    if not tool_names:
        raise ValueError("a plan draft needs at least one tool")
    step = create_model(
        "DraftStep", __base__=DraftStep, __doc__=DraftStep.__doc__,
        tool=(Literal[tool_names], ...),  # type: ignore[arg-type]
    )
    return create_model(
        "PlanDraft", __base__=PlanDraft, __doc__=PlanDraft.__doc__,
        steps=(list[step], Field(min_length=1, max_length=MAX_DRAFT_STEPS)),
    )


class PlanError(ValueError):
    """A plan that cannot be executed; the message says which rule it breaks."""


def validate_plan(plan: Plan, tools: ToolRegistry, allowed: Collection[str] | None = None) -> None:
    """Check that ``plan`` is executable with the registered ``tools``.

    Rules: ids are ``#E1..#En`` in order; every tool is registered (and in ``allowed`` when given: tools can
    be disabled by settings); references point only to earlier steps; a step of a tool that declares
    ``requires`` references a step of one of those tools (e.g. ``generate_sql`` a ``retrieve_schema`` step,
    ``execute_sql`` a ``generate_sql`` step); the plan runs at least one planned tool that returns ``rows``
    (it executes SQL).

    Raises:
        PlanError: naming the first rule broken.
    """
    tools_by_id: dict[str, str] = {}
    for index, step in enumerate(plan.steps, start=1):
        if step.id != f"#E{index}":
            raise PlanError(f"step {index} has id {step.id}; expected #E{index}")
        if step.tool not in tools.names:
            raise PlanError(f"{step.id} uses {step.tool}, which is not a tool; known: {', '.join(tools.names)}")
        if allowed is not None and step.tool not in allowed:
            raise PlanError(f"{step.id} uses {step.tool}, which is disabled")
        refs = step.references()
        unknown = [r for r in refs if r not in tools_by_id]
        if unknown:
            raise PlanError(f"{step.id} references {', '.join(unknown)}, which is not an earlier step")
        requires = tools.get(step.tool).requires
        if requires and not {tools_by_id[r] for r in refs} & set(requires):
            raise PlanError(f"{step.id} ({step.tool}) does not reference a {' or '.join(requires)} step")
        tools_by_id[step.id] = step.tool
    if not any(_executes(tools, name) for name in tools_by_id.values()):
        raise PlanError("the plan never executes SQL")


def _executes(tools: ToolRegistry, name: str) -> bool:
    """True for a planned tool whose result is query rows (``execute_sql``)."""
    tool = tools.get(name)
    return tool.planned and tool.result_kind == "rows"


def complete_plan(plan: Plan, tools: ToolRegistry, *, wanted: Sequence[str] = ()) -> tuple[Plan, bool]:
    """Append the quality steps after the plan's last execution, then the final (presentation) steps.

    The quality tools (``planned=False``: the judge, then the verifier) each take the previous step; final
    tools (the chart) come last, on the verified result, when the plan had such a step or ``wanted`` names
    them. Steps the planner wrote after the last execution (only quality or final steps are useful there;
    nothing can reference them) are replaced. Returns ``(plan, changed)``; a plan that never executes SQL
    comes back unchanged (:func:`validate_plan` rejects it).
    """
    steps = list(plan.steps)
    executions = [i for i, s in enumerate(steps) if s.tool in tools.names and _executes(tools, s.tool)]
    if not executions:
        return plan, False
    used = {s.tool for s in steps}
    finals = [n for n in tools.final_names() if n in used or n in wanted]
    core = steps[: executions[-1] + 1]
    n = len(core)
    for offset, name in enumerate([*tools.quality_names(), *finals]):
        core.append(PlanStep(id=f"#E{n + offset + 1}", tool=name, input=f"#E{n + offset}",
                             description=tools.purpose(name)))
    new = Plan(steps=core)
    return new, [s.model_dump() for s in new.steps] != [s.model_dump() for s in steps]


def resolve_refs(text: str, lookup: Callable[[str], str]) -> str:
    """Replace every ``#E<n>`` in ``text`` by ``lookup("#E<n>")``, matching whole ids only.

    ``lookup`` receives the exact id (``"#E10"`` is never read as ``"#E1"`` followed by ``0``); a KeyError
    from it propagates to the caller.
    """
    return REF_PATTERN.sub(lambda m: lookup(f"#E{m.group(1)}"), text)


def default_plan(question: str, tools: ToolRegistry, *, use_examples: bool = True) -> Plan:
    """The standard plan used when the planner's plan is missing or invalid.

    Schema retrieval, example retrieval (when enabled), value search, knowledge lookup, the answerability
    check, SQL generation and execution, then the
    quality and final steps of :func:`complete_plan` (a chart when the question asks for one).
    """
    question = question if len(question) <= 300 else ""  # step inputs hold 400 characters; tools read the question
    steps = [PlanStep(id="#E1", tool="retrieve_schema", input=question, description="relevant tables")]
    if use_examples:
        steps.append(PlanStep(id="#E2", tool="retrieve_examples", input=question, description="similar SQL"))
    steps.append(PlanStep(id=f"#E{len(steps) + 1}", tool="search_values", input=question, description="values"))
    if "lookup_knowledge" in tools.names:
        steps.append(PlanStep(id=f"#E{len(steps) + 1}", tool="lookup_knowledge", input=question,
                              description="definitions"))
    if "check_question" in tools.names:
        context = " ".join(s.id for s in steps)
        steps.append(PlanStep(id=f"#E{len(steps) + 1}", tool="check_question", input=f"{question} | {context}",
                              description="answer, ask back or refuse"))
    context = " ".join(s.id for s in steps)
    n = len(steps)
    steps.append(
        PlanStep(
            id=f"#E{n + 1}", tool="generate_sql", input=f"{question} | {context}", description="write SQL"
        )
    )
    steps.append(PlanStep(id=f"#E{n + 2}", tool="execute_sql", input=f"#E{n + 1}", description="run it"))
    return complete_plan(Plan(steps=steps), tools, wanted=tools.wanted_names(question))[0]
