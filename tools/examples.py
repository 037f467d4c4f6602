"""Few-shot example retrieval tool: validated question-SQL pairs similar to the question."""

from __future__ import annotations

from pydantic import BaseModel, Field

from prompts.generator import EXAMPLE
from retrieval.retrievers import retrieve_examples
from tools.base import Tool, ToolCall, ToolContext, ToolResult


class RetrieveExamplesArgs(BaseModel):
    """Search query and the number of examples (0 disables the step)."""

    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(3, ge=0, le=20)


class RetrieveExamplesTool(Tool[RetrieveExamplesArgs]):
    """Returns ``kind="examples"`` with ``value.examples = [{"question", "sql", "score"}]``."""

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
        examples = [{"question": h.question, "sql": h.sql, "score": round(h.score, 4)} for h in hits]
        text = "\n".join(EXAMPLE.format(question=e["question"], sql=e["sql"]) for e in examples)
        return ToolResult(ok=True, kind="examples", text=text, value={"examples": examples})
