"""SQL generation tool (first version: one candidate from schema + few-shot examples + dialect rules)."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from agent.llm import chat, invoke_structured
from prompts import generator as prompt
from retrieval.guard import guard_sql
from retrieval.values import ValueMatch
from tools.base import Tool, ToolCall, ToolContext, ToolResult

_FENCE = re.compile(r"^```(?:sql)?\s*|\s*```$", re.IGNORECASE)


class SQLAnswer(BaseModel):
    """Structured output of the generator: one SQL statement (length-capped, so it cannot ramble)."""

    sql: str = Field(description="One read-only SQL query.", min_length=1, max_length=1500)


class GenerateSQLArgs(BaseModel):
    """The question, the schema context (from retrieve_schema), and optional few-shot examples, resolved
    values (from search_values) and table insights, each already rendered as prompt text."""

    question: str = Field(min_length=1, max_length=2000)
    schema_context: str = Field(min_length=1)
    examples: str = ""
    values: str = ""
    insights: str = ""


MIN_VALUE_SCORE = 90.0
"""Resolved values weaker than this (0-100) are not shown to the generator: a wrong hint misleads more than
no hint."""


def render_values(results: list[ToolResult]) -> str:
    """Prompt lines for the confident value matches of ``search_values`` results ('' when none)."""
    lines = []
    for result in results:
        for match in result.value.get("matches", []):
            if float(match.get("score", 0)) >= MIN_VALUE_SCORE:
                lines.append(f"- {ValueMatch(**match).describe()}")
    return prompt.VALUES_HEADER + "\n".join(lines) + "\n\n" if lines else ""


def clean_sql(text: str) -> str:
    """Strip code fences, surrounding whitespace and trailing semicolons from model-written SQL."""
    return _FENCE.sub("", text.strip()).strip().rstrip(";").strip()


class GenerateSQLTool(Tool[GenerateSQLArgs]):
    """Returns ``kind="sql"`` with ``value = {"sql"}``; the SQL has passed the read-only guard."""

    name = "generate_sql"
    description = "write one SQL query for the question (input: question plus the schema and examples ids)"
    Args = GenerateSQLArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> GenerateSQLArgs:
        """Schema context from referenced ``schema`` results, examples from ``examples`` results."""
        schemas = call.referenced("schema")
        if not schemas:
            raise ValueError("generate_sql needs the result of a successful retrieve_schema step")
        examples = "\n".join(r.text for r in call.referenced("examples") if r.text)
        insights = "\n".join(r.text for r in call.referenced("insights") if r.text)
        return GenerateSQLArgs(
            question=call.question,
            schema_context="\n\n".join(r.text for r in schemas),
            examples=f"{prompt.EXAMPLES_HEADER}{examples}\n\n" if examples else "",
            values=render_values(call.referenced("values")),
            insights=f"{prompt.INSIGHTS_HEADER}{insights}\n\n" if insights else "",
        )

    def run(self, args: GenerateSQLArgs, ctx: ToolContext) -> ToolResult:
        """One generator call; the SQL is cleaned and checked by the guard in the database's dialect."""
        dialect = ctx.db.dialect
        system = prompt.SYSTEM.format(
            dialect=dialect,
            dialect_rules=prompt.DIALECT_RULES.get(dialect, f"{dialect} dialect."),
            schema=args.schema_context,
        )
        user = prompt.USER.format(examples=args.examples, values=args.values, insights=args.insights,
                                  question=args.question)
        answer = invoke_structured(ctx.llms, "generator", chat(system, user), SQLAnswer, ctx.usage)
        sql = clean_sql(answer.sql)
        verdict = guard_sql(sql, dialect)
        if not verdict.ok:
            return ToolResult(ok=False, kind="error", text=f"ERROR: {verdict.error}", error=verdict.error,
                              value={"sql": sql})
        return ToolResult(ok=True, kind="sql", text=verdict.sql, value={"sql": verdict.sql})
