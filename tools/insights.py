"""Table insights tool: one generator call condensing the retrieved schema into how to answer the question.

The retrieved schema (and resolved values) is condensed into tables, key columns, joins, filters, a short
strategy and a precise restatement.

Its text is meant to feed SQL generation. Lists and strings are length-capped in the output schema (the local
server turns ``maxItems``/``maxLength`` into its grammar), so the call stays short; table names the model
invents are dropped against the schema result's table list.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from core.llm import chat, invoke_structured
from core.settings import Settings
from prompts import insights as prompt
from prompts.schema_prefix import schema_prefix
from tools.base import Tool, ToolCall, ToolContext, ToolResult

Name = Annotated[str, Field(max_length=64)]
Clause = Annotated[str, Field(max_length=120)]


class TableInsights(BaseModel):
    """Structured output of the insights call (all lists and strings capped)."""

    relevant_tables: list[Name] = Field(max_length=4, description="Tables needed.")
    key_columns: list[Name] = Field(max_length=8, description="Columns used, as TABLE.COLUMN.")
    join_paths: list[Clause] = Field(max_length=3, description="Join conditions, e.g. A.ID = B.A_ID.")
    filters: list[Clause] = Field(max_length=4, description="Conditions with exact values.")
    strategy: str = Field(max_length=160, description="One sentence: how to compute the answer.")
    clarified_question: str = Field(max_length=200, description="The question restated precisely.")


class TableInsightsArgs(BaseModel):
    """The question, the schema context, resolved values text and the schema result's table names."""

    question: str = Field(min_length=1, max_length=2000)
    schema_context: str = Field(min_length=1)
    values: str = ""
    known_tables: list[str] = Field(default_factory=list)


def render(insights: TableInsights) -> str:
    """Compact text of ``insights``: one labelled line per non-empty part ("Tables: A, B", "Joins: ...")."""
    parts = [
        ("Tables", ", ".join(insights.relevant_tables)),
        ("Key columns", ", ".join(insights.key_columns)),
        ("Joins", "; ".join(insights.join_paths)),
        ("Filters", "; ".join(insights.filters)),
        ("Strategy", insights.strategy.strip()),
        ("Restated question", insights.clarified_question.strip()),
    ]
    return "\n".join(f"{label}: {text}" for label, text in parts if text)


def ground(insights: TableInsights, known_tables: list[str]) -> tuple[TableInsights, list[str]]:
    """Keep only tables (and TABLE.COLUMN entries) of ``known_tables`` (case-insensitive, canonical spelling).

    Returns the grounded copy and the dropped table names; unchanged when ``known_tables`` is empty.
    """
    if not known_tables:
        return insights, []
    canon = {t.lower(): t for t in known_tables}
    tables = [canon[t.strip().lower()] for t in insights.relevant_tables if t.strip().lower() in canon]
    dropped = [t for t in insights.relevant_tables if t.strip().lower() not in canon]
    columns = [c for c in insights.key_columns if "." not in c or c.split(".", 1)[0].strip().lower() in canon]
    return insights.model_copy(update={"relevant_tables": tables, "key_columns": columns}), dropped


class TableInsightsTool(Tool[TableInsightsArgs]):
    """Returns ``kind="insights"``: ``text`` from :func:`render` and the insights as ``value``.

    ``value`` is the :class:`TableInsights` fields plus ``dropped_tables`` (names not in the schema).
    """

    name = "table_insights"
    flag = "i"
    result_kind = "insights"
    requires = ("retrieve_schema",)
    description = ("only for vague questions: summarize which tables, columns, joins and filters answer it "
                   "(input: the question plus the schema and values ids)")
    Args = TableInsightsArgs

    def enabled(self, settings: Settings) -> bool:
        """Offered only with ``use_insights`` (one extra LLM call, ~12 s on the local model)."""
        return settings.use_insights

    def build_args(self, call: ToolCall, ctx: ToolContext) -> TableInsightsArgs:
        """Schema text and table names from referenced ``schema`` results; values from ``values`` results."""
        schemas = call.referenced("schema")
        if not schemas:
            raise ValueError("table_insights needs the result of a successful retrieve_schema step")
        values = [r.text for r in call.referenced("values") if r.value.get("matches")]
        known: list[str] = []
        for result in schemas:
            known += [str(t) for t in result.value.get("tables", [])]
        return TableInsightsArgs(
            question=call.question,
            schema_context="\n\n".join(r.text for r in schemas),
            values=f"{prompt.VALUES_HEADER}{chr(10).join(values)}\n\n" if values else "",
            known_tables=known,
        )

    def run(self, args: TableInsightsArgs, ctx: ToolContext) -> ToolResult:
        """One ``generator`` call with :class:`TableInsights` as structured output.

        LLMError propagates to the registry, which returns it as a failed result.
        """
        system = prompt.SYSTEM.format(schema_prefix=schema_prefix(ctx.db.dialect, args.schema_context),
                                      dialect=ctx.db.dialect)
        user = prompt.USER.format(values=args.values, question=args.question)
        raw = invoke_structured(ctx.llms, "generator", chat(system, user), TableInsights, ctx.usage,
                                label="table insights")
        insights, dropped = ground(raw, args.known_tables)
        value: dict[str, Any] = {**insights.model_dump(), "dropped_tables": dropped}
        return ToolResult(ok=True, kind="insights", text=render(insights), value=value)
