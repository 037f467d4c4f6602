"""Tool registry: the one list of tools, and everything derived from their declarations.

The registry looks tools up by name, validates their arguments and returns every failure as a
:class:`~tools.base.ToolResult`. The plan's tool enum, the plan rules, plan completion and the planner
prompt's tool list are all read from the tools' own declarations (:class:`~tools.base.Tool`) through it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from core.errors import NL2SQLError
from core.settings import Settings
from tools.answerability import CheckQuestionTool
from tools.base import Tool, ToolCall, ToolContext, ToolResult
from tools.charts import BuildChartTool
from tools.examples import RetrieveExamplesTool
from tools.execution import ExecuteSQLTool
from tools.generation import GenerateSQLTool
from tools.insights import TableInsightsTool
from tools.judge import JudgeSQLTool
from tools.knowledge import LookupKnowledgeTool
from tools.referential import SearchValuesTool
from tools.schema_retrieval import RetrieveSchemaTool
from tools.verifier import VerifySQLTool


class ToolRegistry:
    """Looks tools up by name and runs them safely (no exception escapes :meth:`run`)."""

    def __init__(self, tools: Iterable[Tool[Any]]) -> None:
        """Register ``tools`` in order (the order of the planner's tool list and of completion steps).

        Raises:
            ValueError: two tools share a name.
        """
        self._tools: dict[str, Tool[Any]] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"tool {tool.name!r} is registered twice")
            self._tools[tool.name] = tool

    @property
    def names(self) -> list[str]:
        """Registered tool names, in registration order."""
        return list(self._tools)

    def get(self, name: str) -> Tool[Any]:
        """The tool called ``name``.

        Raises:
            KeyError: listing the known tools.
        """
        if name not in self._tools:
            raise KeyError(f"unknown tool {name!r}; known: {', '.join(self._tools)}")
        return self._tools[name]

    def planned_names(self) -> list[str]:
        """Tools the planner may write (``planned``), in registration order: the plan draft's tool enum."""
        return [t.name for t in self._tools.values() if t.planned]

    def enabled_names(self, settings: Settings) -> list[str]:
        """Tools the planner is offered under ``settings``: planned and :meth:`~tools.base.Tool.enabled`."""
        return [t.name for t in self._tools.values() if t.planned and t.enabled(settings)]

    def flags(self, settings: Settings) -> dict[str, str]:
        """Compact-plan switches of the enabled optional tools, ``{flag: tool name}`` in registration order."""
        return {t.flag: t.name for t in self._tools.values()
                if t.planned and t.flag and t.enabled(settings)}

    def quality_names(self) -> list[str]:
        """Tools plan completion appends after the last execution (``planned=False``), in order."""
        return [t.name for t in self._tools.values() if not t.planned]

    def final_names(self) -> list[str]:
        """Presentation tools plan completion puts last, on the final result (``final=True``)."""
        return [t.name for t in self._tools.values() if t.final]

    def wanted_names(self, question: str) -> list[str]:
        """Final tools that ``question`` asks for by itself (e.g. "plot ..." wants ``build_chart``)."""
        return [t.name for t in self._tools.values() if t.final and t.wanted(question)]

    def describe(self, names: list[str] | None = None) -> str:
        """One line per tool (``- name: description``), for the planner prompt; only ``names`` when given."""
        return "\n".join(f"- {t.name}: {t.description}" for t in self._tools.values()
                         if names is None or t.name in names)

    def purpose(self, name: str) -> str:
        """Short purpose of tool ``name`` (its description without the input hint), for step descriptions."""
        tool = self._tools.get(name)
        return tool.description.split(" (input:")[0] if tool else name

    def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Validate the arguments of ``call`` and run its tool; failures come back as ``ok=False`` results."""
        started = time.perf_counter()
        try:
            tool = self.get(call.tool)
            args = tool.build_args(call, ctx)
            result = tool.run(args, ctx)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            result = ToolResult.failure(f"invalid input for {call.tool}: {where} {first.get('msg')}")
        except (KeyError, ValueError, NL2SQLError) as exc:  # LLMError, IndexCorrupted, ...
            result = ToolResult.failure(str(exc).strip("'\""))
        except Exception as exc:  # a tool bug must not kill the run; the trace keeps the message
            result = ToolResult.failure(f"{call.tool} crashed: {type(exc).__name__}: {exc}")
        result.latency_s = round(time.perf_counter() - started, 4)
        return result


def default_registry() -> ToolRegistry:
    """The worker tools a plan may call, one line each; the order is the planner's tool list order."""
    return ToolRegistry([
        RetrieveSchemaTool(),
        RetrieveExamplesTool(),
        SearchValuesTool(),
        LookupKnowledgeTool(),
        CheckQuestionTool(),
        TableInsightsTool(),
        GenerateSQLTool(),
        ExecuteSQLTool(),
        JudgeSQLTool(),
        VerifySQLTool(),
        BuildChartTool(),
    ])
