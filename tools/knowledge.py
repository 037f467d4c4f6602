"""Knowledge lookup tool: the approved business definitions (metrics, terms, rules...) a question uses."""

from __future__ import annotations

import threading
from pathlib import Path

from pydantic import BaseModel, Field

from core.settings import Settings
from database.transpile import transpile_sql
from knowledge.files import KnowledgeFileError, agent_knowledge
from knowledge.lookup import KnowledgeMatcher, definitions_block, select_records
from knowledge.periods import periods_block
from knowledge.records import KnowledgeBase, KnowledgeRecord
from rewrites.answer_shape import conventions_of
from rewrites.code_filters import code_bindings
from rewrites.inputs import Knowledge
from rewrites.rate_direction import rate_specs
from tools.base import Tool, ToolCall, ToolContext, ToolResult

_MATCHERS: dict[Path, tuple[KnowledgeBase, KnowledgeMatcher]] = {}
_REWRITES: dict[Path, tuple[KnowledgeBase, Knowledge]] = {}
_LOCK = threading.Lock()


def matcher_for(path: Path, kb: KnowledgeBase) -> KnowledgeMatcher:
    """The matcher of ``kb``'s approved records, rebuilt only when the file at ``path`` was reloaded."""
    with _LOCK:
        cached = _MATCHERS.get(path)
        if cached is None or cached[0] is not kb:
            cached = (kb, KnowledgeMatcher([r for r in kb.approved() if r.type != "presentation"]))
            _MATCHERS[path] = cached
        return cached[1]


def _knowledge_base(settings: Settings) -> tuple[Path, KnowledgeBase] | None:
    """The configured knowledge file and its base as the agent reads it (None: off, not configured or invalid).

    None when ``retrieval.use_knowledge`` is off; answering then goes on without the file. With
    ``knowledge.use_drafts`` pending records count as approved (:func:`knowledge.files.agent_knowledge`).
    """
    path = settings.resolved_knowledge_path()
    if not settings.retrieval.use_knowledge or path is None:
        return None
    try:
        return path, agent_knowledge(path, settings.knowledge.use_drafts)
    except KnowledgeFileError:
        return None


def approved_views(settings: Settings) -> list[KnowledgeRecord]:
    """The approved view records of the configured database's knowledge file ([] when off, missing or invalid).

    Views are part of the schema the model reads (:mod:`knowledge.views`), so they follow
    ``retrieval.use_knowledge`` like the definitions do.
    """
    found = _knowledge_base(settings)
    return found[1].views() if found else []


def rewrite_knowledge(settings: Settings) -> Knowledge | None:
    """The approved records of the configured knowledge file in the forms the SQL rewrites use.

    Code bindings and their matcher (:mod:`rewrites.code_filters`), rate declarations
    (:mod:`rewrites.rate_direction`) and answer conventions (:mod:`rewrites.answer_shape`); the rewrite switches
    themselves are read by :func:`rewrites.pipeline.run_phase` only. Built again only when the file was reloaded.
    None when ``retrieval.use_knowledge`` is off or the file is missing or invalid.
    """
    found = _knowledge_base(settings)
    if found is None:
        return None
    path, kb = found
    with _LOCK:
        cached = _REWRITES.get(path)
        if cached is not None and cached[0] is kb:
            return cached[1]
    approved = kb.approved()
    bindings = code_bindings(approved)
    made = Knowledge(codes=bindings, matcher=matcher_for(path, kb) if bindings else None, rates=rate_specs(approved),
                     conventions=conventions_of(kb.presentations()))
    with _LOCK:
        _REWRITES[path] = (kb, made)
    return made


class LookupKnowledgeArgs(BaseModel):
    """The question whose business words are looked up."""

    question: str = Field(min_length=1, max_length=2000)


class LookupKnowledgeTool(Tool[LookupKnowledgeArgs]):
    """Returns ``kind="knowledge"``: definitions and resolved time expressions as ``text`` ('' if none).

    The time expressions come from :mod:`knowledge.periods` (``retrieval.period_hints``).

    ``value`` has ``records`` (the shown records as dicts), ``matches`` (``[record id, phrase, exact]``) and
    ``file``.

    A missing knowledge file is an empty result; an invalid one too, with the problem in ``value["error"]``
    (answering goes on without definitions rather than failing).
    """

    name = "lookup_knowledge"
    result_kind = "knowledge"
    description = "find the business definitions (metrics, terms, rules) the question uses (input: the question)"
    Args = LookupKnowledgeArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> LookupKnowledgeArgs:
        """The question itself (definitions are matched on its words)."""
        return LookupKnowledgeArgs(question=call.question or call.input)

    def run(self, args: LookupKnowledgeArgs, ctx: ToolContext) -> ToolResult:
        """Match, select within the per-type budgets, render."""
        path = ctx.settings.resolved_knowledge_path()
        if not ctx.settings.retrieval.use_knowledge or path is None:
            return ToolResult(ok=True, kind="knowledge", text="", value={"records": [], "matches": []})
        try:
            kb = agent_knowledge(path, ctx.settings.knowledge.use_drafts)
        except KnowledgeFileError as exc:
            return ToolResult(ok=True, kind="knowledge", text="",
                              value={"records": [], "matches": [], "file": str(path), "error": str(exc)})
        matches = matcher_for(path, kb).match(args.question)
        records = select_records(kb.approved(), matches)
        if kb.dialect and kb.dialect != ctx.db.dialect:  # written for another engine: shown in this one's SQL
            records = [r.model_copy(update={"sql": transpile_sql(r.sql, kb.dialect, ctx.db.dialect)})
                       if r.sql and r.type != "view" else r for r in records]
        periods = periods_block(args.question) if ctx.settings.retrieval.period_hints else ""
        return ToolResult(
            ok=True, kind="knowledge", text=definitions_block(records) + periods,
            value={"records": [r.model_dump(exclude_defaults=True) for r in records],
                   "matches": [[m.record_id, m.phrase, m.exact] for m in matches], "file": str(path)},
        )
