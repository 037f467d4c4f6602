"""Schema retrieval tool: the tables (DDL, comments, sample rows) relevant to a question, within a token budget.

Two-stage Table Schema Retriever: stage 1 ranks tables by hybrid search (dense + BM25, reciprocal rank fusion;
:mod:`retrieval.retrievers`), stage 2 attaches their chunks from ``schemas_index`` plus the *bridge* tables
needed to join them along foreign keys (:mod:`database.joins`). A bridge is budgeted together with the ranked
table that needs it, so it is never dropped in favour of a lower-ranked table. Chosen tables are emitted in a
canonical (alphabetical) order so that, for a given database, the schema prompt is a stable prefix the LLM
server's prompt cache reuses; a database whose whole schema fits the budget is shown whole (perfect recall, and
the same prefix every time). A larger one opens with a fixed *core block* (:func:`core_tables`: its most
connected tables, the same for every question) before the question's own tables, so the prompt cache still
serves the core block across questions and roles. Join paths between the best-ranked tables vary per question, so
they are not part of the schema text: they are returned as ``value["join_paths"]`` and the generator puts them
in the user message (inside the system prompt they cut the cached prefix before the rules: ~500 tokens re-read
per question on the demo database). The approved knowledge views (:mod:`knowledge.views`) close the schema text:
one line each, the same for every question.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Literal

from pydantic import BaseModel, Field

from database.joins import JoinGraph, bridge_tables, join_paths
from knowledge.views import render_views
from retrieval.hybrid import TableCatalog
from retrieval.retrievers import TableHit, rank_tables
from tools.base import Tool, ToolCall, ToolContext, ToolResult
from tools.example_glossary import opaque_glossary, render_glossary
from tools.knowledge import approved_views

CHARS_PER_TOKEN = 3.5
"""Rough characters per token of DDL-like text (Qwen/OpenAI tokenizers), for budgeting only."""

JOIN_PATH_TABLES = 3
"""Join paths are drawn between at most this many best-ranked chosen tables (plus the bridges they need)..."""

JOIN_SCORE_RATIO = 0.6
"""...whose fused score is at least this fraction of the best one. With RRF (k=60) a table ranked first by both
rankings scores ~0.033 and one found by a single ranking at most ~0.016, so single-table questions (one clear
winner) get no join hints."""


def estimate_tokens(text: str) -> int:
    """Approximate token count of ``text`` (no tokenizer call; ~3.5 characters per token)."""
    return int(len(text) / CHARS_PER_TOKEN) + 1


def core_tables(catalog: TableCatalog, budget: int) -> list[str]:
    """The database's core block: its most connected tables whose schema documents fit ``budget`` tokens.

    Tables are taken by descending number of distinct FK neighbours (ties: name, case-insensitive); tables
    without any foreign key are never core. The result depends only on the indexed schema, so it is the same
    for every question. Returned in canonical order (by name, case-insensitive); [] when ``budget`` <= 0.
    """
    if budget <= 0:
        return []
    degree = {n: len({e.other for e in catalog.graph.adj.get(n, [])}) for n in catalog.names}
    used, core = 0, []
    for name in sorted((n for n in catalog.names if degree[n] > 0), key=lambda n: (-degree[n], n.lower())):
        cost = estimate_tokens(catalog.schema_doc(name))
        if used + cost <= budget:
            core.append(name)
            used += cost
    return sorted(core, key=str.lower)


def select_within_budget(
    ranked: list[TableHit],
    k: int,
    budget: int,
    *,
    graph: JoinGraph | None = None,
    lookup: Callable[[str], TableHit] | None = None,
    core: list[str] | None = None,
) -> list[TableHit]:
    """Tables to show, in canonical order (by name, case-insensitive), the core block first.

    All of ``ranked`` when they fit ``budget`` tokens (plus, budget permitting, bridges of the top ``k`` that a
    truncated ranking lacks); else the ``core`` tables (``lookup`` turns each name into a hit; they are shown
    first, in canonical order, and do not count towards ``k``), then, best first, each ranked table together
    with the bridge tables that join it to those already chosen (``graph`` and ``lookup``, which turns a name
    into a ``bridge=True`` hit), skipping what does not fit, at most ``k`` ranked tables (bridges do not
    count) and always at least one. A table whose bridges do not fit is taken alone when it fits.
    """
    costs = {h.name: estimate_tokens(h.schema_document) for h in ranked}
    used = sum(costs.values())
    if used <= budget:  # everything ranked fits; add bridges of the top k missing from a truncated ranking
        chosen_all = {h.name: h for h in ranked}
        if graph is not None and lookup is not None:
            for name in bridge_tables([h.name for h in ranked[:k]], graph):
                bridge = lookup(name)
                if name not in chosen_all and used + estimate_tokens(bridge.schema_document) <= budget:
                    chosen_all[name] = bridge
                    used += estimate_tokens(bridge.schema_document)
        return sorted(chosen_all.values(), key=lambda h: h.name.lower())
    by_name = {h.name: h for h in ranked}
    fixed = {n: by_name.get(n) or lookup(n) for n in core or [] if lookup is not None}
    chosen: dict[str, TableHit] = {}
    terminals: list[str] = []
    used = sum(estimate_tokens(h.schema_document) for h in fixed.values())
    for hit in ranked:
        if hit.name in fixed:
            continue
        if len(terminals) >= k:
            break
        if hit.name in chosen:  # came in earlier as a bridge: now it counts as a ranked table
            chosen[hit.name] = hit
            terminals.append(hit.name)
            continue
        extra: list[TableHit] = []
        if graph is not None and lookup is not None and terminals:
            extra = [lookup(b) for b in bridge_tables([*terminals, hit.name], graph)
                     if b not in chosen and b not in fixed]
        for candidate in (extra, []):
            cost = costs[hit.name] + sum(estimate_tokens(b.schema_document) for b in candidate)
            if not terminals or used + cost <= budget:
                chosen.update({b.name: b for b in candidate} | {hit.name: hit})
                terminals.append(hit.name)
                used += cost
                break
            if not candidate:
                break
    return _canonical(fixed.values()) + _canonical(chosen.values())


def _canonical(hits: Iterable[TableHit]) -> list[TableHit]:
    """``hits`` by table name, case-insensitive."""
    return sorted(hits, key=lambda h: h.name.lower())


class RetrieveSchemaArgs(BaseModel):
    """Search query (keywords), the table cap, the token budget and when to return join paths.

    ``join_paths``: ``always``; ``partial`` - only when some table of the database is left out (a schema shown
    whole already states every foreign key in its DDL, and listing paths again invites joins the question does
    not need); ``never``.
    """

    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(8, ge=1, le=50)
    budget: int = Field(2400, ge=100)
    core_fraction: float = Field(0.5, ge=0.0, le=1.0)
    join_paths: Literal["always", "partial", "never"] = "always"


class RetrieveSchemaTool(Tool[RetrieveSchemaArgs]):
    """Returns ``kind="schema"``: the schema context as ``text`` and the retrieval details as ``value``.

    ``text`` is the schema context for SQL generation (question-independent when the schema fits); ``value`` has
    ``tables`` (chosen, canonical order), ``bridges`` (subset added to join), ``join_paths`` (``"A.x = B.y"``
    lines), ``ranking`` (name, fused score), ``tokens`` (estimate) and ``snapshot`` (index snapshot id, for
    the trace).
    """

    name = "retrieve_schema"
    result_kind = "schema"
    description = "find the tables and columns relevant to a search query (input: keywords)"
    Args = RetrieveSchemaArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> RetrieveSchemaArgs:
        """Query = the question plus the planner's keywords (when they differ from the question)."""
        keywords = call.input.strip()
        query = call.question if keywords in ("", call.question) else f"{call.question} {keywords}"
        cfg = ctx.settings.retrieval
        return RetrieveSchemaArgs(query=query, k=cfg.top_k_tables, budget=cfg.schema_token_budget,
                                  core_fraction=cfg.core_block_fraction, join_paths=cfg.join_paths)

    def run(self, args: RetrieveSchemaArgs, ctx: ToolContext) -> ToolResult:
        """Rank tables, keep what fits the budget (with bridges), join their schema chunks.

        Fails when there is no index.
        """
        started = time.perf_counter()
        catalog = ctx.catalog()
        ranked = rank_tables(ctx.store, catalog, args.query, max(3 * args.k, 30)) if catalog else []
        if catalog is None or not ranked:
            return ToolResult.failure(
                f"no schema index for database '{ctx.db.key}': run `nl2sql index` first",
                time.perf_counter() - started,
            )

        def lookup(name: str) -> TableHit:
            return TableHit(name, 0.0, catalog.schema_doc(name), bridge=True)

        core = core_tables(catalog, int(args.core_fraction * args.budget))
        chosen = select_within_budget(ranked, args.k, args.budget, graph=catalog.graph, lookup=lookup, core=core)
        shown = {h.name for h in chosen}
        floor = JOIN_SCORE_RATIO * ranked[0].score
        best = [h.name for h in ranked if h.name in shown and h.score >= floor][:JOIN_PATH_TABLES]
        whole = shown >= set(catalog.names)
        wanted = args.join_paths == "always" or (args.join_paths == "partial" and not whole)
        paths = join_paths(best, catalog.graph) if wanted else []
        paths = [p for p in paths if all(t in shown for t in _tables_of(p))]
        text = "\n\n".join(h.schema_document for h in chosen)  # question-independent: the cached prefix
        approved = approved_views(ctx.settings)
        views = render_views(approved, ctx.db.dialect) if approved else ""
        text = f"{text}\n\n{views}" if views else text
        glossary = (render_glossary(opaque_glossary(ctx.db, ctx.store, ctx.settings.knowledge.use_drafts),
                                    [h.name for h in chosen]) if ctx.settings.retrieval.example_glossary else "")
        text = f"{text}\n\n{glossary}" if glossary else text
        return ToolResult(
            ok=True,
            kind="schema",
            text=text,
            value={
                "tables": [h.name for h in chosen],
                "bridges": [h.name for h in chosen if h.bridge and h.name not in core],
                "core": [h.name for h in chosen if h.name in core],
                "join_paths": paths,
                "ranking": [[h.name, round(h.score, 4)] for h in ranked[: 2 * args.k]],
                "tokens": estimate_tokens(text),
                "views": bool(views),
                "snapshot": catalog.snapshot,
            },
        )


def _tables_of(path: str) -> set[str]:
    """Table names on the left of each ``T.col`` in a join-path line."""
    return {tok.rsplit(".", 1)[0] for tok in path.replace("(", " ").replace(")", " ").split() if "." in tok}
