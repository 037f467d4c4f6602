"""What an executed query did with the columns whose names say nothing: read them by guess, or left them unread.

On a schema with undocumented opaque columns (``c14``; :func:`tools.question_terms.opaque_columns`) an answer can
go wrong two ways that a reader of the SQL cannot see:

- it reads such a column (:func:`guessed_columns`): what the column holds was guessed from its stored values;
- it reads none of them although the question asks for something no readable name of the tables it reads
  accounts for (:func:`unread_terms`): "the name of the most expensive product" answered from ``PROD.PROD_DSC``
  (a description) while the products' names sit in ``PROD.c2``. Every candidate tends to make the same choice, so
  the vote agrees and nothing else doubts it.

Both are model-free, from the SQL's syntax tree, the schema and the question; the confidence (agent.confidence)
keeps either kind of answer below "verified", and the chat names the columns so the analyst can check them or
describe them once. On four recorded runs of the abbreviated wide copies (replayed 2026-12-05, 409 answers),
answers with unread terms were right 61 times in 120 (13 in 24 on the run of new questions), against 122 in
142 for answers with neither signal.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from database.connection import Database
from tools.opaque_columns import documented_tables
from tools.question_terms import opaque_columns, unnamed_terms

__all__ = ["MAX_SHOWN", "UnreadTerms", "guessed_columns", "unread_terms"]

MAX_SHOWN = 6
"""Unread opaque columns listed with :class:`UnreadTerms` (in schema order)."""


def _tables(sql: str, dialect: str) -> tuple[exp.Expr, dict[str, str]]:
    """The parsed query and its table aliases (or names), folded, each to the table's folded name.

    Raises sqlglot.errors.SqlglotError for SQL that does not parse.
    """
    tree = sqlglot.parse_one(sql, read=dialect)
    return tree, {(node.alias_or_name or "").lower(): node.name.lower() for node in tree.find_all(exp.Table)}


def guessed_columns(db: Database, use_drafts: bool, sql: str) -> list[str]:
    """``TABLE.column`` of each undocumented opaque column ``sql`` reads, in the order the query names them.

    Opaque and undocumented as in :func:`tools.question_terms.opaque_columns` (documentation: the database's
    comments, the metadata file and approved descriptions, drafts too under ``use_drafts``). What such a column
    holds was guessed from its stored values, by the model or by a link (tools.opaque_columns), so an answer
    reading one should say so (agent.confidence). A column is matched to the query's tables: its qualifier (alias
    or name) when it has one, else every table of the query with a column of that name. [] for SQL that does
    not parse, and when the schema cannot be read.
    """
    try:
        tree, aliases = _tables(sql, db.dialect)
        tables = documented_tables(db, use_drafts)
    except Exception:  # noqa: BLE001 - no finding is the safe answer for a courtesy signal
        return []
    unnamed = {(t.name.lower(), name.lower()): f"{t.name}.{name}" for t, name in opaque_columns(tables)}
    if not unnamed:
        return []
    found: list[str] = []
    for col in tree.find_all(exp.Column):
        owners = [aliases.get(col.table.lower(), col.table.lower())] if col.table else list(set(aliases.values()))
        for owner in owners:
            ref = unnamed.get((owner, col.name.lower()))
            if ref and ref not in found:
                found.append(ref)
    return found


@dataclass(frozen=True)
class UnreadTerms:
    """Question words the answer may have missed, and the unread opaque columns that could hold them."""

    terms: tuple[str, ...]
    """Runs of question words no readable name of the tables read accounts for (``("name",)``)."""
    columns: tuple[str, ...]
    """``TABLE.column`` of the undocumented opaque columns of those tables (at most :data:`MAX_SHOWN`)."""


def unread_terms(db: Database, use_drafts: bool, question: str, sql: str) -> UnreadTerms | None:
    """The question's unnamed words when the tables ``sql`` reads have undocumented opaque columns it reads none of.

    A word is unnamed as in :func:`tools.question_terms.unnamed_terms` over the tables the query reads (spelling
    and abbreviations only, no embedding synonyms: model-free). None when the query reads an undocumented opaque
    column (that is :func:`guessed_columns`), when its tables have none, when every content word of the
    question is accounted for, for SQL that does not parse and when the schema cannot be read.
    """
    try:
        tree, aliases = _tables(sql, db.dialect)
        every = documented_tables(db, use_drafts)
    except Exception:  # noqa: BLE001 - no finding is the safe answer for a courtesy signal
        return None
    read = set(aliases.values())
    tables = [t for t in every if t.name.lower() in read]
    unread = opaque_columns(tables)
    if not unread or guessed_columns(db, use_drafts, sql):
        return None
    terms = unnamed_terms(question, tables)
    if not terms:
        return None
    return UnreadTerms(tuple(terms), tuple(f"{t.name}.{name}" for t, name in unread[:MAX_SHOWN]))
