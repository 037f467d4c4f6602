"""The whole schema as DDL with sample rows: the single-shot prompt's schema, and a candidate that reads it.

``whole_schema`` candidates (:mod:`prompts.generator`) see every table as a ``CREATE TABLE`` statement followed by
three of its rows, the representation of Rajkumar et al. 2022 ("Evaluating the Text-to-SQL Capabilities of
Large Language Models") that the single-shot baseline uses, instead of the agent's linked listing with its
join, value and insight hints. A second schema representation makes the candidates' errors less correlated,
which is what a vote over execution results needs (MCS-SQL, Lee et al. 2024, varies the schema given to each
prompt for the same reason). The listing is stable per database, so the server's prompt cache keeps it after
the first question.

The listing is the database's own text (its comments and the human metadata file) plus, when an enrichment file
is given, the column descriptions it may use (approved or edited; drafts only with ``knowledge.use_drafts``):
on a warehouse whose columns are named ``c14`` they are the only words that say what a column holds. Table
summaries stay out (80-150 words each would double the listing).
"""

from __future__ import annotations

import threading
from pathlib import Path

from core.settings import Settings
from database.connection import Database
from database.descriptions import default_enriched_path, load_enriched, merge_enriched
from database.schema_reader import format_sample_rows, read_schema, table_ddl
from prompts import baseline as prompt
from retrieval.opaque_hints import hinted_tables

SAMPLE_ROWS = 3
"""Stored rows shown after each table's DDL."""

CHARS_PER_TOKEN = 3.5
"""Characters per prompt token used to estimate the listing's size (code-like text on Qwen's tokenizer)."""

_LISTINGS: dict[tuple[str, str, bool, int, bool], str] = {}
_LOCK = threading.Lock()


def whole_schema_listing(db: Database, *, enriched_path: Path | None = None, use_drafts: bool = False,
                         value_hints: bool = False, sensitive_patterns: tuple[str, ...] = ()) -> str:
    """Every table of ``db`` as DDL plus ``SAMPLE_ROWS`` rows in a comment, blank-line separated.

    Reads the stored schema and rows; with ``enriched_path`` (an existing enrichment file) a column without a
    comment gets its usable description there (:func:`database.descriptions.merge_enriched`, column
    descriptions only). With ``value_hints``, an opaque column still undocumented after that gets its stored
    values' range or most frequent values as comment (:func:`retrieval.opaque_hints.hinted_tables`; never for
    columns matching ``sensitive_patterns``). Cached per database URL, file and its modification time and
    the hint switch, so an approved review shows in the next question. Raises what
    :func:`database.schema_reader.read_schema` raises when the database cannot be read and ValueError for a
    malformed enrichment file.
    """
    stamp = enriched_path.stat().st_mtime_ns if enriched_path is not None and enriched_path.is_file() else 0
    key = (db.url, str(enriched_path) if stamp else "", use_drafts and bool(stamp), stamp, value_hints)
    with _LOCK:
        if key not in _LISTINGS:
            tables = read_schema(db, sample_rows=SAMPLE_ROWS, use_enriched=False)
            if stamp:
                assert enriched_path is not None
                merge_enriched(tables, load_enriched(enriched_path), use_drafts=use_drafts, table_descriptions=False)
            if value_hints:
                tables = hinted_tables(db, tables, sensitive_patterns)
            blocks = []
            for table in tables:
                rows = format_sample_rows(table, SAMPLE_ROWS)
                blocks.append(table_ddl(table, db.dialect) + (f"\n/* {SAMPLE_ROWS} rows:\n{rows}\n*/" if rows else ""))
            _LISTINGS[key] = "\n\n".join(blocks)
        return _LISTINGS[key]


def whole_schema_system(db: Database, max_tokens: int, *, enriched_path: Path | None = None,
                        use_drafts: bool = False, value_hints: bool = False,
                        sensitive_patterns: tuple[str, ...] = ()) -> str | None:
    """The single-shot system prompt over the whole schema, or None when it would exceed ``max_tokens`` (estimated).

    A warehouse with hundreds of tables does not fit a small model's context; the agent's linked listing is the
    only schema such a database gets. None also when the schema cannot be read (the other candidates go on).
    ``enriched_path``, ``use_drafts``, ``value_hints`` and ``sensitive_patterns``: see :func:`whole_schema_listing`.
    """
    try:
        listing = whole_schema_listing(db, enriched_path=enriched_path, use_drafts=use_drafts,
                                       value_hints=value_hints, sensitive_patterns=sensitive_patterns)
    except Exception:  # noqa: BLE001 - an unreadable schema only drops this candidate
        return None
    if not listing or len(listing) / CHARS_PER_TOKEN > max_tokens:
        return None
    return prompt.SYSTEM.format(dialect=db.dialect, schema=listing)


def planned_whole_schema(settings: Settings, db: Database) -> str | None:
    """The whole-schema system prompt when the candidate list has a ``whole_schema`` candidate and it fits.

    Fits: :func:`whole_schema_system` under ``generation.consistency.whole_schema_max_tokens``. None otherwise;
    the generator and the warm-up both ask here. The listing carries the database's enrichment file
    (:func:`database.descriptions.default_enriched_path`) under ``knowledge.use_drafts``, and the opaque
    columns' value hints under ``retrieval.opaque_value_hints``.
    """
    if not any(spec.strategy == "whole_schema" for spec in settings.candidate_specs()):
        return None
    return whole_schema_system(db, settings.generation.consistency.whole_schema_max_tokens,
                               enriched_path=default_enriched_path(db, settings.state_dir),
                               use_drafts=settings.knowledge.use_drafts,
                               value_hints=settings.retrieval.opaque_value_hints,
                               sensitive_patterns=tuple(settings.retrieval.sensitive_patterns))
