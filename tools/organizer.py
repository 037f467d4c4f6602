"""Organizer (solver) tool: the final answer from selected tool outputs only, never altering data."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent.llm import LLMError, chat, invoke_structured
from prompts import organizer as prompt
from tools.base import ToolContext

PREVIEW_ROWS = 15
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


def _preview(columns: list[str], rows: list[list[Any]]) -> str:
    lines = [" | ".join(str(v) for v in r) for r in rows[:PREVIEW_ROWS]]
    return "\n".join(lines) if lines else "(no rows)"


def organize(question: str, sql: str, columns: list[str], rows: list[list[Any]], truncated: bool,
             ctx: ToolContext) -> Answer:
    """Phrase the answer to ``question`` from one executed query's result.

    The LLM (organizer role) writes one or two sentences from a preview of at most 15 rows; if its text
    contains a number that is not in the result, the question or the SQL, or the call fails, a deterministic
    sentence is used instead, so data is never altered. Rows and columns pass through untouched.
    """
    if not rows:
        return Answer(status="empty", text="The query ran but returned no rows.", sql=sql, columns=columns)
    preview = _preview(columns, rows)
    user = prompt.USER.format(
        question=question, sql=sql, n_rows=len(rows), truncated=", truncated" if truncated else "",
        columns=", ".join(columns), preview=preview,
    )
    try:
        text = invoke_structured(ctx.llms, "organizer", chat(prompt.SYSTEM, user), AnswerText, ctx.usage).text
    except LLMError:
        text = _fallback_text(columns, rows, truncated)
    cells = [str(v) for r in rows for v in r]
    cells += [f"{v:.{d}f}" for r in rows for v in r if isinstance(v, float) for d in range(5)]
    if not numbers_grounded(text, [*cells, question, sql]):
        text = _fallback_text(columns, rows, truncated)
    return Answer(status="ok", text=text.strip(), sql=sql, columns=columns, rows=rows, truncated=truncated)
