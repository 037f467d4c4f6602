"""Schema retrieval tool: the tables (DDL, comments, sample rows) relevant to a question.

First version of the two-stage Table Schema Retriever: stage 1 ranks tables on ``description_index``,
stage 2 attaches their chunks from ``schemas_index``.
"""

from __future__ import annotations

import time

from pydantic import BaseModel, Field

from retrieval.retrievers import retrieve_tables
from tools.base import Tool, ToolCall, ToolContext, ToolResult


class RetrieveSchemaArgs(BaseModel):
    """Search query (keywords) and how many tables to keep."""

    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(8, ge=1, le=50)


class RetrieveSchemaTool(Tool[RetrieveSchemaArgs]):
    """Returns ``kind="schema"``: ``text`` is the schema context for SQL generation, ``value.tables`` the names."""

    name = "retrieve_schema"
    description = "find the tables and columns relevant to a search query (input: keywords)"
    Args = RetrieveSchemaArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> RetrieveSchemaArgs:
        """Query = the step input (falls back to the question when the input is only references)."""
        query = call.input.strip() or call.question
        return RetrieveSchemaArgs(query=f"{call.question} {query}" if query != call.question else query,
                                  k=ctx.settings.retrieval.top_k_tables)

    def run(self, args: RetrieveSchemaArgs, ctx: ToolContext) -> ToolResult:
        """Rank tables and join their schema chunks; fails when the database has no index."""
        started = time.perf_counter()
        hits = retrieve_tables(ctx.store, ctx.db.key, args.query, args.k)
        if not hits:
            return ToolResult.failure(
                f"no schema index for database '{ctx.db.key}': run `nl2sql index` first",
                time.perf_counter() - started,
            )
        text = "\n\n".join(h.schema_document for h in hits)
        return ToolResult(
            ok=True,
            kind="schema",
            text=text,
            value={"tables": [h.name for h in hits], "scores": [round(h.score, 4) for h in hits]},
        )
