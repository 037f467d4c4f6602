"""LLM-proposed knowledge records: metric and rule drafts from the schema, profiles and examples, for review.

Like the enrichment flow (:mod:`retrieval.enrichment`), the model only drafts: each proposal is checked (its SQL
parses in the database's dialect, its tables exist, its id is new) and stored as ``status: pending``,
``provenance: llm`` in the knowledge file. Nothing reaches a prompt before a reviewer approves it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import sqlglot
from pydantic import BaseModel, Field, ValidationError

from core.llm import LLMProvider, UsageLog, chat, invoke_structured
from database.connection import Database
from database.guard import sqlglot_dialect
from database.schema_reader import read_schema
from knowledge.records import KnowledgeBase, KnowledgeRecord
from prompts import knowledge_proposal as prompt
from retrieval.documents import schema_document

PROPOSAL_MAX_TOKENS = 900
"""Completion cap of the proposal call (about eight short records as JSON)."""


class ProposedRecord(BaseModel):
    """One drafted record as the model writes it."""

    type: Literal["metric", "rule"]
    name: str = Field(max_length=120)
    synonyms: list[str] = Field(default_factory=list, max_length=8)
    definition: str = Field(max_length=400)
    sql: str = Field(max_length=600)
    tables: list[str] = Field(default_factory=list, max_length=6)


class Proposals(BaseModel):
    """Structured output of the proposal call."""

    records: list[ProposedRecord] = Field(default_factory=list, max_length=12)


@dataclass
class ProposalReport:
    """What :func:`propose_knowledge` did: records ``added`` (pending) and ``rejected`` drafts with reasons."""

    added: list[KnowledgeRecord] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60] or "record"


def check(draft: ProposedRecord, kb: KnowledgeBase, tables: set[str], dialect: str) -> KnowledgeRecord | str:
    """The pending record for ``draft``, or why it is rejected (duplicate, unknown table, SQL that does not parse)."""
    record_id = f"llm_{draft.type}_{_slug(draft.name)}"
    if kb.get(record_id) is not None or draft.name.lower() in {r.name.lower() for r in kb.records}:
        return "already defined"
    unknown = [t for t in draft.tables if t.lower() not in tables]
    if unknown:
        return f"unknown table(s) {', '.join(unknown)}"
    try:
        sqlglot.parse_one(draft.sql, read=dialect)
    except sqlglot.errors.SqlglotError as exc:
        return f"SQL does not parse: {str(exc).splitlines()[0]}"
    try:
        return KnowledgeRecord(id=record_id, type=draft.type, name=draft.name, synonyms=draft.synonyms,
                               definition=draft.definition, sql=draft.sql, tables=draft.tables,
                               provenance="llm", status="pending")
    except ValidationError as exc:
        return str(exc.errors()[0]["msg"])


def propose_knowledge(db: Database, llms: LLMProvider, kb: KnowledgeBase, *, examples: list[dict[str, str]],
                      usage: UsageLog, limit: int = 8, enriched_path: Path | None = None
                      ) -> tuple[KnowledgeBase, ProposalReport]:
    """Ask the generator for up to ``limit`` metric/rule drafts; return the knowledge base with the valid ones.

    One LLM call (role ``generator``) over the compact schema with profiles and up to eight examples. The schema
    is documented with the enrichment file at ``enriched_path`` (default: the SQLite sidecar), drafts included:
    drafting from drafts is fine, since what comes out is pending too.

    Raises:
        core.llm.LLMError: the endpoint failed or the reply was not valid JSON after retries.
    """
    tables = read_schema(db, sample_rows=0, profile=True, enriched_path=enriched_path, use_drafts=True)
    dialect = sqlglot_dialect(db.dialect)
    schema = "\n\n".join(schema_document(t, db.dialect, sample_rows=0) for t in tables)
    shots = "".join(f"Q: {e['question']}\nSQL: {e['sql']}\n" for e in examples[:8])
    known = ", ".join(r.name for r in kb.records) or "nothing yet"
    messages = chat(prompt.SYSTEM.format(dialect=db.dialect, limit=limit, known=known[:1500]),
                    prompt.USER.format(schema=schema, examples=f"Example queries:\n{shots}\n" if shots else ""))
    reply = invoke_structured(llms, "generator", messages, Proposals, usage, max_tokens=PROPOSAL_MAX_TOKENS,
                              label="knowledge proposal")
    report = ProposalReport()
    names = {t.name.lower() for t in tables}
    for draft in reply.records[:limit]:
        verdict = check(draft, kb, names, dialect)
        if isinstance(verdict, str):
            report.rejected.append((draft.name, verdict))
        else:
            kb = kb.upsert(verdict)
            report.added.append(verdict)
    return kb, report
