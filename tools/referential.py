"""Referential search tool: names, tickers, codes and other values of the question -> exact database values.

Wraps :func:`retrieval.values.search_values` (rapidfuzz + embeddings over ``values_index``; the small
``filter`` model only for ambiguous mentions). Its text, one line per match, tells SQL generation which exact
literal to use in which column and which row key it denotes.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from retrieval.store import VALUES_INDEX
from retrieval.value_plausibility import schema_words
from retrieval.values import search_values
from tools.base import Tool, ToolCall, ToolContext, ToolResult

NO_MATCH_TEXT = "No database values matched the question."
NO_INDEX_TEXT = "No value index for this database (run `nl2sql index`); values not resolved."


class SearchValuesArgs(BaseModel):
    """Text to search for mentions (the question, possibly followed by the planner's input) and a cap."""

    text: str = Field(min_length=1, max_length=2000)
    limit: int = Field(5, ge=1, le=20)


class SearchValuesTool(Tool[SearchValuesArgs]):
    """Returns ``kind="values"``: ``text`` has one line per match, ``value`` the matches.

    A ``text`` line reads e.g. ``"Apple" -> EQ_MSTR.CO_NM = 'Apple Inc.' (EQ_ID 1001; TICKER 'AAPL')``;
    ``value`` is ``{"matches": [ValueMatch.to_dict(), ...], "indexed": bool}``. No match is a successful empty
    result.
    """

    name = "search_values"
    result_kind = "values"
    description = ("resolve names, tickers, codes and other values mentioned in the question to exact "
                   "database values (input: the question)")
    Args = SearchValuesArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> SearchValuesArgs:
        """The question, plus the step input on its own line when it is a different short text."""
        extra = call.input.strip()
        text = call.question.strip()
        if extra and extra != text and len(extra) <= 300:
            text = f"{text}\n{extra}"
        return SearchValuesArgs(text=text)

    def run(self, args: SearchValuesArgs, ctx: ToolContext) -> ToolResult:
        """Search ``values_index`` of the context's database; LLM failures already fall back inside."""
        if ctx.store.count(VALUES_INDEX, {"db": ctx.db.key}) == 0:
            return ToolResult(ok=True, kind="values", text=NO_INDEX_TEXT,
                              value={"matches": [], "indexed": False})
        catalog = ctx.catalog()
        names = [*catalog.names, *(c for cols in catalog.columns.values() for c in cols)] if catalog else []
        matches = search_values(args.text, ctx.db.key, ctx.store, limit=args.limit, llms=ctx.llms,
                                usage=ctx.usage, schema=schema_words(names))
        text = "\n".join(m.describe() for m in matches) if matches else NO_MATCH_TEXT
        return ToolResult(ok=True, kind="values", text=text,
                          value={"matches": [m.to_dict() for m in matches], "indexed": True})
