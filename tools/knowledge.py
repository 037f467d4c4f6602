"""Knowledge lookup tool: the approved business definitions (metrics, terms, rules...) a question uses."""

from __future__ import annotations

import threading
from pathlib import Path

from pydantic import BaseModel, Field

from core.settings import Settings
from database.transpile import transpile_sql
from knowledge.files import KnowledgeFileError, load_knowledge
from knowledge.lookup import KnowledgeMatcher, definitions_block, select_records
from knowledge.periods import periods_block
from knowledge.records import KnowledgeBase, KnowledgeRecord
from tools.base import Tool, ToolCall, ToolContext, ToolResult
from tools.code_filters import CodeBinding, code_bindings
from tools.rate_direction import RateSpec, rate_specs

_MATCHERS: dict[Path, tuple[KnowledgeBase, KnowledgeMatcher]] = {}
_LOCK = threading.Lock()


def matcher_for(path: Path, kb: KnowledgeBase) -> KnowledgeMatcher:
    """The matcher of ``kb``'s approved records, rebuilt only when the file at ``path`` was reloaded."""
    with _LOCK:
        cached = _MATCHERS.get(path)
        if cached is None or cached[0] is not kb:
            cached = (kb, KnowledgeMatcher([r for r in kb.approved() if r.type != "presentation"]))
            _MATCHERS[path] = cached
        return cached[1]


def _knowledge_base(settings: Settings, enabled: bool = True) -> tuple[Path, KnowledgeBase] | None:
    """The configured knowledge file and its base (None: off, not configured or invalid).

    None when ``retrieval.use_knowledge`` or ``enabled`` is off; answering then goes on without the file.
    """
    path = settings.resolved_knowledge_path()
    if not (settings.retrieval.use_knowledge and enabled) or path is None:
        return None
    try:
        return path, load_knowledge(path)
    except KnowledgeFileError:
        return None


def approved_views(settings: Settings) -> list[KnowledgeRecord]:
    """The approved view records of the configured database's knowledge file ([] when off, missing or invalid).

    Views are part of the schema the model reads (:mod:`knowledge.views`), so they follow
    ``retrieval.use_knowledge`` like the definitions do.
    """
    found = _knowledge_base(settings)
    return found[1].views() if found else []


def approved_presentations(settings: Settings) -> list[KnowledgeRecord]:
    """The approved presentation records of the configured knowledge file ([] when off, missing or invalid).

    They shape every answer's columns (:mod:`tools.answer_shape`) and follow ``retrieval.use_knowledge`` and
    ``generation.answer_conventions``.
    """
    found = _knowledge_base(settings, settings.generation.answer_conventions)
    return found[1].presentations() if found else []


def approved_codes(settings: Settings) -> tuple[list[CodeBinding], KnowledgeMatcher] | None:
    """The codes the approved records bind and the matcher of those records (None when off, missing or invalid).

    Follows ``retrieval.use_knowledge`` and ``generation.drop_unnamed_codes`` (:mod:`tools.code_filters`).
    """
    found = _knowledge_base(settings, settings.generation.drop_unnamed_codes)
    if found is None:
        return None
    bindings = code_bindings(found[1].approved())
    return (bindings, matcher_for(*found)) if bindings else None


def approved_rates(settings: Settings) -> list[RateSpec]:
    """The rate declarations of the approved records ([] when off, missing or invalid; :mod:`tools.rate_direction`).

    Follows ``retrieval.use_knowledge`` and ``generation.fix_rate_direction``.
    """
    found = _knowledge_base(settings, settings.generation.fix_rate_direction)
    return rate_specs(found[1].approved()) if found else []


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
            kb = load_knowledge(path)
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
