"""Organizer (solver) tool: the final answer from selected tool outputs only, never altering data."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from core.llm import LLMError, chat, invoke_structured
from database.results import format_cell
from prompts import organizer as prompt
from tools.base import ToolContext

PREVIEW_ROWS = 15
SENTENCE_ROWS = 3
"""Results of 2 to this many rows (and at most 4 columns) get an LLM-written sentence; one row is phrased by a
template (:func:`template_text`) and larger results are shown as a table (or chart) with a deterministic
caption, which saves a call (~3-6 s on the local model)."""
_SHOW_SQL = re.compile(r"\b(sql|query|queries)\b", re.I)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
Status = Literal["ok", "empty", "error"]


class AnswerText(BaseModel):
    """Structured output of the organizer."""

    text: str = Field(min_length=1, max_length=600)


class Answer(BaseModel):
    """The solver's structured answer: text, table (columns, rows), SQL and status."""

    status: Status
    text: str
    sql: str | None = None
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list)
    truncated: bool = False
    chart: dict[str, Any] | None = Field(None, description="Chart spec (tools.charts.ChartSpec) when one was built.")
    show_sql: bool = Field(False, description="The user asked to see the SQL (it is always in the trace).")
    kind: Literal["answer", "clarify", "follow_up", "refuse"] = Field(
        "answer", description="answer, or a clarification, follow-up question or refusal instead of SQL.")
    readings: list[str] = Field(default_factory=list, description="clarify: the rephrased questions to pick from.")
    missing: str | None = Field(None, description="follow_up: the parameter to give; refuse: the missing data.")
    term_checks: list[dict[str, Any]] = Field(
        default_factory=list, description="Question words no documented column accounts for, each with the "
        "likeliest columns (tools.term_check.TermCheck dicts): the analyst may say which one means the word.")


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "").lstrip("-").rstrip("0").rstrip(".") or "0" for n in _NUMBER.findall(text)}


def numbers_grounded(text: str, sources: list[str]) -> bool:
    """True when every number in ``text`` appears in one of ``sources`` (result cells, question, SQL)."""
    allowed: set[str] = set()
    for s in sources:
        allowed |= _numbers(s)
    return _numbers(text) <= allowed


def _fallback_text(columns: list[str], rows: list[list[Any]], truncated: bool) -> str:
    if len(rows) == 1 and len(columns) == 1:
        return f"{columns[0]}: {rows[0][0]}"
    more = " (row cap reached; more rows exist)" if truncated else ""
    return f"The query returned {len(rows)} row(s){more}; see the table."


_FUNCTION = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$", re.S)
_FUNCTION_WORDS = {"count": "Count", "sum": "Total", "avg": "Average", "mean": "Average", "max": "Maximum",
                   "min": "Minimum", "total": "Total"}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def column_label(name: str) -> str:
    """A readable label for a result column.

    ``COUNT(*)`` -> "Count", ``count(DISTINCT T1.name)`` -> "Count of distinct name", ``avg(T1.price)`` ->
    "Average price", ``total_sales`` / ``TotalSales`` -> "Total sales"; other expressions are kept as written.
    """
    match = _FUNCTION.match(name)
    if match and match.group(1).lower() in _FUNCTION_WORDS:
        word = _FUNCTION_WORDS[match.group(1).lower()]
        arg = match.group(2).strip()
        distinct = re.match(r"distinct\s+", arg, flags=re.I)
        if distinct:
            return f"{word} of distinct {column_label(arg[distinct.end():]).lower()}"
        return word if arg in ("*", "1", "") else f"{word} {column_label(arg).lower()}"
    if re.fullmatch(r"[A-Za-z_][\w.]*", name):
        words = _CAMEL.sub(" ", name.split(".")[-1]).replace("_", " ").split()
        return " ".join(words).capitalize() if words else name
    return name


def template_text(columns: list[str], row: list[Any]) -> str:
    """The deterministic answer for a one-row result: ``"Count: 6"``, ``"Name: Ana; Total: 30.5"``.

    Values are shown as stored (floats to 10 significant digits), so nothing is rounded away.
    """
    return "; ".join(f"{column_label(c)}: {format_cell(v, 200)}" for c, v in zip(columns, row, strict=False))


def _preview(columns: list[str], rows: list[list[Any]]) -> str:
    lines = [" | ".join(str(v) for v in r) for r in rows[:PREVIEW_ROWS]]
    return "\n".join(lines) if lines else "(no rows)"


def organize(question: str, sql: str, columns: list[str], rows: list[list[Any]], truncated: bool,
             ctx: ToolContext, chart: dict[str, Any] | None = None) -> Answer:
    """Phrase the answer to ``question`` from one executed query's result (and its chart spec, if any).

    Only the outputs it needs reach the organizer: a one-row result is phrased by a template (no LLM call);
    for a small result (2-3 rows, at most 4 columns) the LLM (organizer role) writes one or two sentences from
    the rows; larger results and charts get a deterministic caption and are shown as table/chart. If the LLM's text contains a number that is not in the result,
    the question or the SQL, or the call fails, a deterministic sentence is used instead, so data is never
    altered. Rows and columns pass through untouched.
    """
    show_sql = bool(_SHOW_SQL.search(question))
    if not rows:
        return Answer(status="empty", text="The query ran but returned no rows: nothing in the data matches.",
                      sql=sql, columns=columns, show_sql=show_sql)
    if chart is not None or len(rows) > SENTENCE_ROWS or len(columns) > 4:
        text = _fallback_text(columns, rows, truncated)
        if chart is not None:
            text = f"{text.removesuffix('; see the table.')}; see the chart and the table."
        return Answer(status="ok", text=text, sql=sql, columns=columns, rows=rows, truncated=truncated,
                      chart=chart, show_sql=show_sql)
    if len(rows) == 1:
        return Answer(status="ok", text=template_text(columns, rows[0]), sql=sql, columns=columns, rows=rows,
                      truncated=truncated, show_sql=show_sql)
    preview = _preview(columns, rows)
    user = prompt.USER.format(
        question=question, sql=sql, n_rows=len(rows), truncated=", truncated" if truncated else "",
        columns=", ".join(columns), preview=preview,
    )
    try:
        text = invoke_structured(ctx.llms, "organizer", chat(prompt.SYSTEM, user), AnswerText, ctx.usage,
                                 label="answer").text
    except LLMError:
        text = _fallback_text(columns, rows, truncated)
    cells = [str(v) for r in rows for v in r]
    cells += [f"{v:.{d}f}" for r in rows for v in r if isinstance(v, float) for d in range(5)]
    if not numbers_grounded(text, [*cells, question, sql]):
        text = _fallback_text(columns, rows, truncated)
    return Answer(status="ok", text=text.strip(), sql=sql, columns=columns, rows=rows, truncated=truncated,
                  show_sql=show_sql)
