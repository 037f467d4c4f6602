"""Chart builder: the LLM fills a typed :class:`ChartSpec`, rendered with Plotly Express.

The spec is validated against the result's columns and rendered by :func:`figure_from_spec`. No generated
code is ever executed; an invalid or missing spec falls back to a deterministic choice
(:func:`heuristic_spec`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, Field, ValidationError

from core.llm import LLMError, chat, invoke_structured
from prompts import chart as prompt
from tools.base import Tool, ToolCall, ToolContext, ToolResult

ChartKind = Literal["line", "bar", "scatter", "area", "pie", "histogram"]
CHART_WORDS = re.compile(r"\b(chart|plot|graph|visuali[sz]e|histogram|pie|trend line|draw)\b", re.I)
_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?")


class ChartSpec(BaseModel):
    """A chart as data: kind, column roles and title (columns are names of the result's columns)."""

    kind: ChartKind
    x: str = Field(max_length=200)
    y: str | None = Field(None, max_length=200)
    color: str | None = Field(None, max_length=200)
    facet: str | None = Field(None, max_length=200)
    title: str = Field("", max_length=150)


def wants_chart(question: str) -> bool:
    """True when the question asks for a chart/plot/graph."""
    return bool(CHART_WORDS.search(question))


def frame_of(columns: list[str], rows: list[list[Any]]) -> pd.DataFrame:
    """The result as a DataFrame, numeric-looking text converted (SQLite may return numbers as text)."""
    frame = pd.DataFrame(rows, columns=columns)
    for col in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col]):
            converted = pd.to_numeric(frame[col], errors="coerce")
            if converted.notna().all() and len(frame):
                frame[col] = converted
    return frame


def validate_spec(spec: ChartSpec, frame: pd.DataFrame) -> str | None:
    """Why ``spec`` cannot be drawn from ``frame`` (None when it can)."""
    cols = [str(c) for c in frame.columns]
    for role in ("x", "y", "color", "facet"):
        name = getattr(spec, role)
        if name is not None and name not in cols:
            return f"{role}={name!r} is not a column of the result ({', '.join(cols)})"
    if spec.kind != "histogram":
        if spec.y is None:
            return f"a {spec.kind} chart needs a y column"
        if not pd.api.types.is_numeric_dtype(frame[spec.y]):
            return f"y={spec.y!r} is not numeric"
    return None


def heuristic_spec(frame: pd.DataFrame, title: str = "") -> ChartSpec | None:
    """A sensible chart without the LLM; None when nothing is plottable.

    The first non-numeric column is x (line when it holds dates, else bar) and the first numeric column y; a
    single numeric column gets a histogram.
    """
    numeric = [str(c) for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    other = [str(c) for c in frame.columns if str(c) not in numeric]
    if not numeric:
        return None
    if not other:
        if len(numeric) == 1:
            return ChartSpec(kind="histogram", x=numeric[0], title=title)
        return ChartSpec(kind="scatter", x=numeric[0], y=numeric[1], title=title)
    x = other[0]
    is_date = bool(len(frame)) and frame[x].astype(str).str.match(_DATE).all()
    return ChartSpec(kind="line" if is_date else "bar", x=x, y=numeric[0],
                     color=other[1] if len(other) > 1 else None, title=title)


def figure_from_spec(spec: ChartSpec, columns: list[str], rows: list[list[Any]]) -> Any:
    """Render ``spec`` with Plotly Express; returns a ``plotly.graph_objects.Figure``.

    Raises:
        ValueError: when the spec does not fit the data (see :func:`validate_spec`).
    """
    import plotly.express as px

    frame = frame_of(columns, rows)
    problem = validate_spec(spec, frame)
    if problem:
        raise ValueError(problem)
    common: dict[str, Any] = {"title": spec.title or None}
    if spec.kind == "pie":
        return px.pie(frame, names=spec.x, values=spec.y, **common)
    if spec.kind == "histogram":
        return px.histogram(frame, x=spec.x, color=spec.color, facet_col=spec.facet, **common)
    draw = {"line": px.line, "bar": px.bar, "scatter": px.scatter, "area": px.area}[spec.kind]
    return draw(frame, x=spec.x, y=spec.y, color=spec.color, facet_col=spec.facet, **common)


class BuildChartArgs(BaseModel):
    """The result to chart (columns and rows) and the question."""

    question: str
    columns: list[str] = Field(min_length=1)
    rows: list[list[Any]]


class BuildChartTool(Tool[BuildChartArgs]):
    """Returns ``kind="chart"`` with ``value = {"spec", "source"}`` (source: llm | heuristic).

    Fails when the result has no rows or nothing numeric to plot.
    """

    name = "build_chart"
    result_kind = "chart"
    requires = ("execute_sql", "judge_sql", "verify_sql")
    final = True
    description = "draw a chart of a query result when the user asks for one (input: the execute_sql step id)"
    Args = BuildChartArgs

    def wanted(self, question: str) -> bool:
        """True when the question asks for a chart, plot or graph (:func:`wants_chart`)."""
        return wants_chart(question)

    def build_args(self, call: ToolCall, ctx: ToolContext) -> BuildChartArgs:
        """Columns and rows of the referenced ``rows`` result."""
        rows = call.referenced("rows")
        if not rows:
            raise ValueError("build_chart needs a successful query result")
        value = rows[-1].value
        return BuildChartArgs(question=call.question, columns=value["columns"], rows=value["rows"])

    def run(self, args: BuildChartArgs, ctx: ToolContext) -> ToolResult:
        """One organizer-role call fills the spec; invalid specs fall back to :func:`heuristic_spec`."""
        if not args.rows:
            return ToolResult.failure("the query returned no rows to chart")
        if len(args.rows) < 2 and not wants_chart(args.question):  # the planner asked, the user did not
            return ToolResult.failure("a single row needs no chart")
        frame = frame_of(args.columns, args.rows)
        kinds = ", ".join(f"{c} ({'number' if pd.api.types.is_numeric_dtype(frame[c]) else 'text'})"
                          for c in frame.columns)
        preview = "\n".join(" | ".join(str(v) for v in r) for r in args.rows[:5])
        user = prompt.USER.format(question=args.question, columns=kinds, preview=preview)
        source, note = "llm", None
        try:
            spec: ChartSpec | None = invoke_structured(ctx.llms, "organizer", chat(prompt.SYSTEM, user), ChartSpec,
                                                       ctx.usage, label="chart spec")
            note = validate_spec(spec, frame) if spec else "no spec"
        except (LLMError, ValidationError) as exc:
            spec, note = None, str(exc)
        if spec is None or note:
            spec, source = heuristic_spec(frame, title=args.question[:150]), "heuristic"
        if spec is None:
            return ToolResult.failure("nothing numeric to chart in this result")
        value = {"spec": spec.model_dump(), "source": source, "rejected": note}
        return ToolResult(ok=True, kind="chart", text=f"{spec.kind} chart of {spec.y or spec.x} by {spec.x}",
                          value=value)
