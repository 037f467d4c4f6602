"""Which column does this question word mean, when the schema names it ``c14``? Question-time linking of opaque columns.

A warehouse column called ``c10`` or ``t_03`` says nothing about what it holds; only its stored values do. A
small model given such a schema reaches for a column whose name it can read instead ("age" written as
``BORN_ST - BORN_ST`` next to a column ``c10`` holding 43..69). Schema linking by name cannot help, and a
description drafted once from the values alone is often wrong (the drafts read "a numeric value from 165 to 2173"
for an attendance). The question itself is the missing evidence: asked "which of these columns holds the
*age*?" with a few stored values of each, the model answers a multiple-choice question it is good at.

So before the candidates are written, :func:`link_opaque_columns`

1. finds the opaque columns of the tables in the prompt (:func:`knowledge.abbreviations.is_opaque_name`, and no
   human or approved description),
2. finds the question's words that no readable table or column name accounts for (:func:`unnamed_terms`: a
   word is accounted for when it is a word of the name, a form of one, or abbreviated by one, and every other
   word of that column's name is in the question too, so ``SPNSR_NM`` does not account for "name" in "names
   of players"),
3. asks the model once, with JSON-schema constrained output, which opaque column (or none) holds each word;
   the prompt opens with the generator's system prompt, so the server's prompt cache has the schema already.

The links are shown to the hint-taking candidates (direct, Query-Plan, Divide-and-Conquer) as a short section
before the join and value hints; the whole-schema and plain candidates stay without them, so a wrong link cannot
carry the vote alone: it has to agree with a candidate that never saw it. The idea is question-conditioned schema linking (e.g. RESDSQL's and CodeS's
schema-item classifiers, DIN-SQL's schema-linking step) restricted to the one place names fail: columns whose
names carry no words.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from core.llm import chat, invoke_structured
from database.connection import Database
from database.descriptions import default_enriched_path
from database.schema_reader import quote_identifier, read_schema
from database.schema_types import TableInfo
from knowledge.abbreviations import is_opaque_name
from retrieval.embeddings import get_embedding_function
from retrieval.term_similarity import similar_words
from tools.base import ToolContext
from tools.question_terms import MAX_TERMS, Synonyms, opaque_columns, readable_phrases, unnamed_terms

__all__ = ["HEADER", "MAX_TERMS", "ColumnLink", "OpaqueColumn", "documented_tables", "link_opaque_columns",
           "opaque_columns", "readable_choices", "render_links", "stored_samples", "unnamed_terms"]

MAX_COLUMNS = 12
"""Opaque columns offered as choices (the prompt's tables in listing order)."""
SAMPLE_VALUES = 5
"""Distinct stored values shown with each opaque column."""
MAX_TOKENS = 120
"""Cap on the reply's tokens: one short JSON object."""
MAX_READABLE = 60
"""Readable columns offered as choices under ``generation.link_readable_choices`` (the prompt's tables in order)."""
NONE = "none"
"""The choice for a word no offered column holds."""


@dataclass(frozen=True)
class OpaqueColumn:
    """A column whose name says nothing: ``table.column``, its SQL type and a few stored values."""

    table: str
    column: str
    type: str
    samples: tuple[str, ...]
    span: tuple[str, str] | None = None
    """Smallest and largest stored number, when the column holds numbers and more than the samples show."""

    @property
    def ref(self) -> str:
        """``TABLE.column`` as offered to the model and shown to the generator."""
        return f"{self.table}.{self.column}"

    def values(self) -> str:
        """``67, 43, 52 (from 43 to 69)`` - the samples (text quoted) and the numeric span when there is one."""
        shown = ", ".join(self.samples) if self.samples else "no stored values"
        return shown + (f" (from {self.span[0]} to {self.span[1]})" if self.span else "")

    def describe(self) -> str:
        """``HEAD.c10 (REAL): 67, 43, 52 (from 43 to 69)`` - the line the model reads."""
        return f"{self.ref} ({self.type or 'untyped'}): {self.values()}"


@dataclass(frozen=True)
class ColumnLink:
    """A question word and the opaque column the model chose for it."""

    term: str
    column: OpaqueColumn

    def as_dict(self) -> dict[str, Any]:
        """``{"term", "table", "column"}`` for traces and evaluation records."""
        return {"term": self.term, "table": self.column.table, "column": self.column.column}


_TABLES: dict[tuple[str, bool, int], list[TableInfo]] = {}
_SAMPLES: dict[tuple[str, str, str], tuple[tuple[str, ...], tuple[str, str] | None]] = {}
_LOCK = threading.Lock()


def documented_tables(db: Database, use_drafts: bool) -> list[TableInfo]:
    """The database's tables with their documentation (metadata and enrichment files), cached per file state.

    Under ``use_drafts`` a pending draft documents a column, except an opaque one (``c14``): the listings show
    its stored-value hint instead (:mod:`retrieval.opaque_hints`), so the checks built on this function treat it
    as undocumented too, until a reviewer approves or edits its description.
    """
    path = default_enriched_path(db)
    stamp = path.stat().st_mtime_ns if path is not None and path.is_file() else 0
    key = (db.url, use_drafts, stamp)  # the URL: two files may share a stem (db.key)
    with _LOCK:
        if key not in _TABLES:
            tables = read_schema(db, sample_rows=0, use_drafts=use_drafts)
            for column in (c for t in tables for c in t.columns if c.drafted and is_opaque_name(c.name)):
                column.comment, column.drafted = None, False
            _TABLES[key] = tables
        return _TABLES[key]


def stored_samples(db: Database, table: str, column: str) -> tuple[tuple[str, ...], tuple[str, str] | None]:
    """Up to :data:`SAMPLE_VALUES` distinct stored values of ``table.column`` (text quoted, long ones cut), and a span.

    The span (smallest, largest) is given when both are numbers and the column holds more distinct values than
    the samples show: the first few values of ``c10`` (``1, 2, 3``) say less about an age or a year than its
    range does. Cached per column; a failing query gives no values and no span.
    """
    key = (db.url, table, column)
    with _LOCK:
        if key in _SAMPLES:
            return _SAMPLES[key]
    col, tab = quote_identifier(column, db.dialect), quote_identifier(table, db.dialect)
    res = db.run_query(f"SELECT DISTINCT {col} FROM {tab} WHERE {col} IS NOT NULL LIMIT {SAMPLE_VALUES + 1}",
                       row_cap=SAMPLE_VALUES + 1)
    rows = [row[0] for row in res.rows] if res.ok else []
    span = None
    if len(rows) > SAMPLE_VALUES and all(_is_number(v) for v in rows):
        ends = db.run_query(f"SELECT MIN({col}), MAX({col}) FROM {tab}", row_cap=1)
        low, high = ends.rows[0] if ends.ok and ends.rows else (None, None)
        span = (_show(low), _show(high)) if _is_number(low) and _is_number(high) else None
    found = (tuple(_show(v) for v in rows[:SAMPLE_VALUES]), span)
    with _LOCK:
        _SAMPLES[key] = found
    return found


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _show(value: Any) -> str:
    text = str(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"'{text}'" if isinstance(value, str) else text


def _synonyms(ctx: ToolContext, tables: list[TableInfo]) -> Synonyms | None:
    """The question words close to a readable name of ``tables`` (``generation.link_synonym_similarity``).

    None when the setting is above 1; a broken or missing embedding model counts no word as a synonym.
    """
    threshold = ctx.settings.generation.link_synonym_similarity
    if threshold > 1:
        return None
    phrases = readable_phrases(tables)

    def close(words: Sequence[str]) -> set[str]:
        try:
            return similar_words(words, phrases, get_embedding_function(ctx.settings), threshold)
        except Exception:  # noqa: BLE001 - without the embedding model spelling alone decides
            return set()

    return close


def _choices(options: list[str], terms: list[str]) -> type[BaseModel]:
    """A Pydantic model with one field per term (aliased to the term), each one of ``options`` or :data:`NONE`."""
    allowed: Any = Literal[tuple([*options, NONE])]
    fields: dict[str, Any] = {f"t{i}": (allowed, Field(alias=term)) for i, term in enumerate(terms)}
    return create_model("ColumnChoices", **fields)


USER = """Question: {question}

No column with a readable name holds these words of the question: {terms}. Some columns have names that say \
nothing; their stored values tell what they hold:
{columns}

For each word, give the column that holds it: first the table the word belongs to in the question, then the \
column of that table whose stored values fit the word. "none" when no column's values can fit."""


USER_READABLE = """Question: {question}

Which column holds each of these words of the question: {terms}? Columns with readable names:
{readable}
Columns with names that say nothing; their stored values tell what they hold:
{columns}

For each word, give the column that holds it: first the table the word belongs to in the question, then the \
column of that table whose name or stored values fit the word. "none" when no column fits."""


def readable_choices(tables: list[TableInfo]) -> tuple[list[str], str]:
    """The readable columns of ``tables`` as link choices: their refs and their listing.

    Returns ``(["TABLE.column", ...], "- TABLE: a, b, c" lines)``, at most :data:`MAX_READABLE` columns in
    listing order; tables without a readable column get no line.
    """
    refs: list[str] = []
    lines: list[str] = []
    for table in tables:
        names = [c.name for c in table.columns if not is_opaque_name(c.name)][:MAX_READABLE - len(refs)]
        if names:
            refs += [f"{table.name}.{n}" for n in names]
            lines.append(f"- {table.name}: {', '.join(names)}")
    return refs, "\n".join(lines)


def link_opaque_columns(ctx: ToolContext, system: str, question: str, tables: list[str]) -> list[ColumnLink]:
    """The opaque column each unnamed question word refers to, as chosen by the generator model.

    ``system`` is the generator's system prompt (its cached prefix carries the schema); ``tables`` the names of
    the tables in the prompt (all tables when empty). Under ``generation.link_readable_choices`` the readable
    columns of those tables are choices too (:func:`readable_choices`); a word linked to one gets no link, since
    its column's name already shows. Returns [] without an LLM call when ``tables`` have no
    opaque column or the question has no unnamed word, and [] when the call fails (the candidates go on
    without links). Counted in ``ctx.usage`` with the label ``opaque links``.
    """
    if not ctx.settings.generation.link_opaque_columns:
        return []
    try:
        every = documented_tables(ctx.db, ctx.settings.knowledge.use_drafts)
    except Exception:  # noqa: BLE001 - an unreadable schema only drops the links
        return []
    wanted = {t.lower() for t in tables}
    shown = [t for t in every if not wanted or t.name.lower() in wanted]
    opaque = opaque_columns(shown)[:MAX_COLUMNS]
    if not opaque:
        return []
    terms = unnamed_terms(question, shown, _synonyms(ctx, shown))
    if not terms:
        return []
    offered = [OpaqueColumn(t.name, name, (t.column(name) or t.columns[0]).type, *stored_samples(ctx.db, t.name, name))
               for t, name in opaque]
    by_ref = {c.ref: c for c in offered}
    listed = "\n".join(f"- {c.describe()}" for c in offered)
    quoted = ", ".join(f'"{t}"' for t in terms)
    readable, lines = readable_choices(shown) if ctx.settings.generation.link_readable_choices else ([], "")
    schema = _choices([*by_ref, *readable], terms)  # disjoint: readable_choices leaves opaque names out
    user = (USER_READABLE.format(readable=lines, columns=listed, question=question, terms=quoted) if readable
            else USER.format(columns=listed, question=question, terms=quoted))
    try:
        reply = invoke_structured(ctx.llms, "generator", chat(system, user), schema, ctx.usage,
                                  temperature=0.0, max_tokens=MAX_TOKENS, label="opaque links")
    except Exception:  # noqa: BLE001 - no links is the safe answer
        return []
    chosen = reply.model_dump(by_alias=True)
    return [ColumnLink(term, by_ref[chosen[term]]) for term in terms if chosen.get(term) in by_ref]


HEADER = "Columns with names that say nothing, matched to words of the question (use them for those words):\n"


def render_links(links: list[ColumnLink]) -> str:
    """The prompt section for ``links`` ('' when none): one line per column with its words and stored values."""
    if not links:
        return ""
    words: dict[str, list[str]] = {}
    columns: dict[str, OpaqueColumn] = {}
    for link in links:
        words.setdefault(link.column.ref, []).append(link.term)
        columns[link.column.ref] = link.column
    lines = [f"- {', '.join(repr(w) for w in ws)}: {ref} (stored values: {columns[ref].values()})"
             for ref, ws in words.items()]
    return HEADER + "\n".join(lines) + "\n\n"
