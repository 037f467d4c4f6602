"""Few-shot example retrieval tool: validated question-SQL pairs similar to the question."""

from __future__ import annotations

from typing import Any

import sqlglot
import sqlglot.expressions as exp
from pydantic import BaseModel, Field

from prompts.generator import EXAMPLE
from retrieval.retrievers import retrieve_examples
from tools.base import Tool, ToolCall, ToolContext, ToolResult


class RetrieveExamplesArgs(BaseModel):
    """Search query and the number of examples (0 disables the step)."""

    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(3, ge=0, le=20)


class RetrieveExamplesTool(Tool[RetrieveExamplesArgs]):
    """Returns ``kind="examples"`` with ``value.examples = [{"question", "sql", "score", "source"}]``, best first.

    ``source`` is where the example came from ("file", "feedback" for an approved thumbs-up, or a merge).
    """

    name = "retrieve_examples"
    result_kind = "examples"
    description = "find solved question/SQL examples similar to a query (input: the question)"
    Args = RetrieveExamplesArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> RetrieveExamplesArgs:
        """Query = the question (examples are matched on whole questions); k from settings."""
        k = ctx.settings.retrieval.top_k_examples if ctx.settings.retrieval.use_examples else 0
        return RetrieveExamplesArgs(query=call.question or call.input, k=k)

    def run(self, args: RetrieveExamplesArgs, ctx: ToolContext) -> ToolResult:
        """Query ``examples_index``; no examples is a valid (empty) result."""
        hits = retrieve_examples(ctx.store, ctx.db.key, args.query, args.k) if args.k else []
        examples = [{"question": h.question, "sql": h.sql, "score": round(h.score, 4), "source": h.source}
                    for h in hits]
        text = render_examples(examples)
        return ToolResult(ok=True, kind="examples", text=text, value={"examples": examples})


OFF_TOPIC_RATIO = 0.5
"""A table is off-topic for a question when its fused retrieval score is below this share of the best one."""
MAX_OFF_TOPIC_TABLES = 1
"""An example whose SQL reads more off-topic tables than this is left out of the prompt."""


def example_tables(sql: str, dialect: str) -> set[str]:
    """Lower-cased names of the tables ``sql`` reads, CTE names left out (empty when it does not parse)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return set()
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    return {t.name.lower() for t in tree.find_all(exp.Table) if t.name and t.name.lower() not in ctes}


def on_topic(examples: list[dict[str, Any]], ranking: list[list[Any]], dialect: str) -> list[dict[str, Any]]:
    """The examples whose SQL reads at most :data:`MAX_OFF_TOPIC_TABLES` tables off-topic for the question.

    Off-topic: below :data:`OFF_TOPIC_RATIO` of the best table's score in the question's schema linking, or
    not ranked at all. A small model copies the structure of a similar-sounding example wholesale ("sector breakdown of an index"
    for "stocks per sector"); an example built on tables the question does not need is worse than none.
    ``ranking`` is retrieve_schema's ``[[table, score], ...]``; without one every example is kept.
    """
    scores = {str(name).lower(): float(score) for name, score in ranking if isinstance(score, (int, float))}
    if not scores:
        return examples
    floor = OFF_TOPIC_RATIO * max(scores.values())
    kept = []
    for ex in examples:
        off = [t for t in example_tables(str(ex["sql"]), dialect) if scores.get(t, 0.0) < floor]
        if len(off) <= MAX_OFF_TOPIC_TABLES:
            kept.append(ex)
    return kept


def render_examples(examples: list[dict[str, Any]]) -> str:
    """The examples as prompt text (one ``EXAMPLE`` block each)."""
    return "\n".join(EXAMPLE.format(question=e["question"], sql=e["sql"]) for e in examples)
