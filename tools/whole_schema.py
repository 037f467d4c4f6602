"""The whole schema as DDL with sample rows: the single-shot prompt's schema, and a candidate that reads it.

``whole_schema`` candidates (:mod:`prompts.generator`) see every table as a ``CREATE TABLE`` statement followed by
three of its rows, the representation of Rajkumar et al. 2022 ("Evaluating the Text-to-SQL Capabilities of
Large Language Models") that the single-shot baseline uses, instead of the agent's linked listing with its
join, value and insight hints. A second schema representation makes the candidates' errors less correlated,
which is what a vote over execution results needs (MCS-SQL, Lee et al. 2024, varies the schema given to each
prompt for the same reason). The listing is stable per database, so the server's prompt cache keeps it after
the first question.
"""

from __future__ import annotations

import threading

from core.settings import Settings
from database.connection import Database
from database.schema_reader import format_sample_rows, read_schema, table_ddl
from prompts import baseline as prompt

SAMPLE_ROWS = 3
"""Stored rows shown after each table's DDL."""

CHARS_PER_TOKEN = 3.5
"""Characters per prompt token used to estimate the listing's size (code-like text on Qwen's tokenizer)."""

_LISTINGS: dict[str, str] = {}
_LOCK = threading.Lock()


def whole_schema_listing(db: Database) -> str:
    """Every table of ``db`` as DDL plus ``SAMPLE_ROWS`` rows in a comment, blank-line separated (cached per key).

    Reads the stored schema and rows only (no enrichment file), so the text depends on the database alone.
    Raises what :func:`database.schema_reader.read_schema` raises when the database cannot be read.
    """
    with _LOCK:
        if db.key not in _LISTINGS:
            blocks = []
            for table in read_schema(db, sample_rows=SAMPLE_ROWS, use_enriched=False):
                rows = format_sample_rows(table, SAMPLE_ROWS)
                blocks.append(table_ddl(table, db.dialect) + (f"\n/* {SAMPLE_ROWS} rows:\n{rows}\n*/" if rows else ""))
            _LISTINGS[db.key] = "\n\n".join(blocks)
        return _LISTINGS[db.key]


def whole_schema_system(db: Database, max_tokens: int) -> str | None:
    """The single-shot system prompt over the whole schema, or None when it would exceed ``max_tokens`` (estimated).

    A warehouse with hundreds of tables does not fit a small model's context; the agent's linked listing is the
    only schema such a database gets. None also when the schema cannot be read (the other candidates go on).
    """
    try:
        listing = whole_schema_listing(db)
    except Exception:  # noqa: BLE001 - an unreadable schema only drops this candidate
        return None
    if not listing or len(listing) / CHARS_PER_TOKEN > max_tokens:
        return None
    return prompt.SYSTEM.format(dialect=db.dialect, schema=listing)


def planned_whole_schema(settings: Settings, db: Database) -> str | None:
    """The whole-schema system prompt when the candidate list has a ``whole_schema`` candidate and it fits.

    Fits: :func:`whole_schema_system` under ``generation.consistency.whole_schema_max_tokens``. None otherwise;
    the generator and the warm-up both ask here.
    """
    if not any(spec.strategy == "whole_schema" for spec in settings.candidate_specs()):
        return None
    return whole_schema_system(db, settings.generation.consistency.whole_schema_max_tokens)
