"""Running worker tools by hand (the developer panel's tool bench), outside any plan.

The same registry, validation and failure-as-value contract as plan steps; prerequisite tools run first with the
same question and their results are passed as references ``#E1..#Ek`` to the tool under test, so e.g.
``generate_sql`` can be tried on the schema that ``retrieve_schema`` returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tools.base import ToolCall, ToolContext, ToolResult
from tools.registry import ToolRegistry


@dataclass
class ManualRun:
    """Results of one manual run: its steps and the LLM calls made.

    ``steps`` are ``(step id, tool, result)`` in order (the tool under test last); ``usage`` has one dict per
    LLM call.
    """

    steps: list[tuple[str, str, ToolResult]] = field(default_factory=list)
    usage: list[dict[str, Any]] = field(default_factory=list)

    @property
    def result(self) -> ToolResult:
        """The result of the tool under test."""
        return self.steps[-1][2]


def run_tool(registry: ToolRegistry, ctx: ToolContext, tool: str, question: str, tool_input: str = "",
             prerequisites: list[str] | None = None) -> ManualRun:
    """Run ``tool`` on ``question`` and ``tool_input`` after ``prerequisites``.

    The prerequisites are tool names, run with an empty input, in order. The tools of ``registry`` run in
    context ``ctx`` (its ``usage`` log collects the LLM calls). Unknown tools and bad input come back as
    failed results (never raised), as in a plan.
    """
    usage = ctx.usage
    run = ManualRun()
    refs: dict[str, ToolResult] = {}
    for i, name in enumerate([*(prerequisites or []), tool], start=1):
        step_id = f"#E{i}"
        last = i == len(prerequisites or []) + 1
        call = ToolCall(question, step_id, name, tool_input if last else "", dict(refs) if last else {})
        result = registry.run(call, ctx)
        refs[step_id] = result
        run.steps.append((step_id, name, result))
    run.usage = [c.to_dict() for c in usage.calls]
    return run
