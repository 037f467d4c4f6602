"""Tool registry: name -> tool; validates arguments and returns every failure as a :class:`ToolResult`."""

from __future__ import annotations

import time
from collections.abc import Iterable

from pydantic import ValidationError

from agent.llm import LLMError
from tools.base import Tool, ToolCall, ToolContext, ToolResult


class ToolRegistry:
    """Looks tools up by name and runs them safely (no exception escapes :meth:`run`)."""

    def __init__(self, tools: Iterable[Tool]):
        self._tools: dict[str, Tool] = {t.name: t for t in tools}

    @property
    def names(self) -> list[str]:
        """Registered tool names, in registration order."""
        return list(self._tools)

    def get(self, name: str) -> Tool:
        """The tool called ``name``; raises KeyError listing the known tools."""
        if name not in self._tools:
            raise KeyError(f"unknown tool {name!r}; known: {', '.join(self._tools)}")
        return self._tools[name]

    def describe(self, names: list[str] | None = None) -> str:
        """One line per tool (``name: description``), for the planner prompt; only ``names`` when given."""
        return "\n".join(f"- {t.name}: {t.description}" for t in self._tools.values()
                         if names is None or t.name in names)

    def purpose(self, name: str) -> str:
        """Short purpose of tool ``name`` (its description without the input hint), for plan step descriptions."""
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
        except (KeyError, ValueError, LLMError) as exc:
            result = ToolResult.failure(str(exc).strip("'\""))
        except Exception as exc:  # a tool bug must not kill the run; the trace keeps the message
            result = ToolResult.failure(f"{call.tool} crashed: {type(exc).__name__}: {exc}")
        result.latency_s = round(time.perf_counter() - started, 4)
        return result
