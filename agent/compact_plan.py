"""The compact plan: the planner switches optional steps on or off in about 20 output tokens.

The full ReWOO plan (:class:`agent.plan.PlanDraft`) costs the planner ~130 output tokens, ~8 s on the local
2-core model, although its only real decisions are which optional tools to use. Here the planner writes one 0/1
switch per optional tool, e.g. ``{"i":0}`` (no table insights), and :func:`expand` turns it into the same
typed :class:`~agent.plan.Plan` that is validated and run as before. When no optional tool is enabled (the
default: table insights are off) there is nothing to decide and no planner call is made.

Schema retrieval, few-shot examples and value search always run, and a chart is added when the question asks
for one (:meth:`tools.base.Tool.wanted`): left to the 1.5B planner, examples were switched off for questions
they solve (3 of 20 Spider questions lost) and charts were switched on for 7 of 12 Spider questions that asked
for none (two extra LLM calls, ~4 s each, and unwanted charts). The
switches and their order come from the tools' declarations (:attr:`tools.base.Tool.flag`), so a new optional
tool appears in the compact plan without edits here.
"""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import BaseModel, ConfigDict, create_model

from agent.plan import Plan, PlanStep, complete_plan
from tools.registry import ToolRegistry

INPUT_QUESTION_CHARS = 300
"""Longer questions are not copied into step inputs (a step input holds at most 400 characters); every tool
reads the question from its call anyway."""


class CompactPlan(BaseModel):
    """The planner's compact output: ``{flag: 0 or 1}`` for each optional tool (see :func:`compact_model`)."""

    model_config = ConfigDict(extra="forbid")

    def switched_on(self) -> set[str]:
        """The flags set to 1."""
        return {name for name, value in self.model_dump().items() if value == 1}


@functools.cache
def compact_model(flags: tuple[str, ...]) -> type[CompactPlan]:
    """A :class:`CompactPlan` with one required ``Literal[0, 1]`` field per flag, in the order given.

    ``flags`` comes from :meth:`tools.registry.ToolRegistry.flags`; the class is built once per tuple.
    """
    fields = {flag: (Literal[0, 1], ...) for flag in flags}
    model: type[CompactPlan] = create_model(  # type: ignore[call-overload]
        "CompactPlan", __base__=CompactPlan, __doc__=CompactPlan.__doc__, **fields)
    return model


def expand(compact: CompactPlan, tools: ToolRegistry, flags: dict[str, str], question: str, *,
           wanted: list[str] | None = None) -> Plan:
    """The full plan a compact plan stands for, completed (judge, verifier, chart).

    Planned tools run in registration order: those without a flag always, flagged ones when switched on
    (``flags`` maps flag -> tool name); a final tool (the chart) only when switched on or ``wanted``. Inputs follow the tools' declarations: a tool that returns rows (the
    execution) takes the step before it; another tool with ``requires`` (generation, insights) takes the
    question and every earlier step; the rest take the question. A switched-on final tool (the chart) is
    added by :func:`agent.plan.complete_plan`, like ``wanted`` ones.
    """
    on = {flags[f] for f in compact.switched_on() if f in flags}
    short = question if len(question) <= INPUT_QUESTION_CHARS else ""  # tools read the question itself too
    steps: list[PlanStep] = []
    finals: list[str] = list(wanted or [])
    for name in tools.planned_names():
        tool = tools.get(name)
        if tool.flag is not None and name not in on:
            continue
        if tool.final:  # switched on; without a switch only when wanted (below)
            if tool.flag is not None:
                finals.append(name)
            continue
        step_id = f"#E{len(steps) + 1}"
        if tool.result_kind == "rows":
            text = steps[-1].id if steps else short
        elif tool.requires:
            text = f"{short} | {' '.join(s.id for s in steps)}"
        else:
            text = short
        steps.append(PlanStep(id=step_id, tool=name, input=text, description=tools.purpose(name)))
    return complete_plan(Plan(steps=steps), tools, wanted=finals)[0]
