"""Schema retrieval tool: the tables (DDL, comments, sample rows) relevant to a question, within a token budget.

First version of the two-stage Table Schema Retriever: stage 1 ranks tables on ``description_index``,
stage 2 attaches their chunks from ``schemas_index``. Chosen tables are emitted in a canonical (alphabetical)
order so that, for a given database, the schema prompt is a stable prefix the LLM server's prompt cache reuses;
a database whose whole schema fits the budget is shown whole (perfect recall, and the same prefix every time).
"""

from __future__ import annotations

import time

from pydantic import BaseModel, Field

from retrieval.retrievers import TableHit, retrieve_tables
from tools.base import Tool, ToolCall, ToolContext, ToolResult

CHARS_PER_TOKEN = 3.5
"""Rough characters per token of DDL-like text (Qwen/OpenAI tokenizers), for budgeting only."""


def estimate_tokens(text: str) -> int:
    """Approximate token count of ``text`` (no tokenizer call; ~3.5 characters per token)."""
    return int(len(text) / CHARS_PER_TOKEN) + 1


def select_within_budget(ranked: list[TableHit], k: int, budget: int) -> list[TableHit]:
    """All of ``ranked`` when they fit ``budget`` tokens; else the best-ranked ones that fit, at most ``k``
    (always at least one). Returned in canonical order (by table name, case-insensitive)."""
    if sum(estimate_tokens(h.schema_document) for h in ranked) <= budget:
        chosen = list(ranked)
    else:
        chosen, used = [], 0
        for hit in ranked:
            cost = estimate_tokens(hit.schema_document)
            if chosen and (used + cost > budget or len(chosen) >= k):
                continue
            chosen.append(hit)
            used += cost
    return sorted(chosen, key=lambda h: h.name.lower())


class RetrieveSchemaArgs(BaseModel):
    """Search query (keywords), the table cap and the token budget."""

    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(8, ge=1, le=50)
    budget: int = Field(2400, ge=100)


class RetrieveSchemaTool(Tool[RetrieveSchemaArgs]):
    """Returns ``kind="schema"``: ``text`` is the schema context for SQL generation; ``value`` has
    ``tables`` (chosen, canonical order), ``ranking`` (name, score) and ``tokens`` (estimate)."""

    name = "retrieve_schema"
    description = "find the tables and columns relevant to a search query (input: keywords)"
    Args = RetrieveSchemaArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> RetrieveSchemaArgs:
        """Query = the question plus the planner's keywords (when they differ from the question)."""
        query = call.input.strip()
        if not query or query == call.question:
            query = call.question
        else:
            query = f"{call.question} {query}"
        cfg = ctx.settings.retrieval
        return RetrieveSchemaArgs(query=query, k=cfg.top_k_tables, budget=cfg.schema_token_budget)

    def run(self, args: RetrieveSchemaArgs, ctx: ToolContext) -> ToolResult:
        """Rank tables, keep what fits the budget, join their schema chunks; fails when there is no index."""
        started = time.perf_counter()
        ranked = retrieve_tables(ctx.store, ctx.db.key, args.query, max(3 * args.k, 30))
        if not ranked:
            return ToolResult.failure(
                f"no schema index for database '{ctx.db.key}': run `nl2sql index` first",
                time.perf_counter() - started,
            )
        chosen = select_within_budget(ranked, args.k, args.budget)
        text = "\n\n".join(h.schema_document for h in chosen)
        return ToolResult(
            ok=True,
            kind="schema",
            text=text,
            value={
                "tables": [h.name for h in chosen],
                "ranking": [[h.name, round(h.score, 4)] for h in ranked[: 2 * args.k]],
                "tokens": estimate_tokens(text),
            },
        )
