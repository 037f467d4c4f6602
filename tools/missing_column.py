"""A column the query names but its table does not have, on a schema with opaque columns: which one was meant?

Over a warehouse table like ``GSTS(GST_ID, GNDR_CD, GST_FST_NM, c20, DT_OF_BRTH)`` a small model asked for "the
first and last names of the guests" writes ``GST_LST_NM``: the name the last-name column would have, by analogy
with ``GST_FST_NM``. The database answers "no such column". Respelling (:mod:`rewrites.respell`) cannot help - no
readable column spells that name - and the repair, shown the table's columns, tends to write the same name again,
so every candidate fails the same way and the question ends in an error. The column it means is one whose name
says nothing (``c20``, holding 'Smith', 'Jones'); only its stored values tell.

:func:`respell_missing` turns the failure into a multiple-choice question the model is good at: given the
question, the failing query and the written name with its reading (``GST_LST_NM`` "guest last name"), which of
the opaque, undocumented columns of the table it was written for - shown with a few stored values - holds what
the name was meant to read, or none. The pick replaces the written name (:func:`substitute_missing`); the caller
keeps the new query when it runs. One short constrained call, made only after such a failure and only on a
schema with opaque columns. Execution-guided correction (DIN-SQL's self-correction, Pourreza & Rafiei 2023;
the execution feedback of CHESS's and MAC-SQL's refiners) narrowed to the one decision the error names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import sqlglot
from pydantic import BaseModel, Field, create_model
from sqlglot import exp

from core.llm import chat, invoke_structured
from database.schema_types import TableInfo
from knowledge.abbreviations import EXPANSIONS, expand_name, split_words
from tools.base import ToolContext
from tools.opaque_columns import OpaqueColumn, documented_tables, stored_samples
from tools.question_terms import is_key_column, opaque_columns

__all__ = ["MAX_ROUNDS", "MissingColumn", "find_missing", "respell_missing", "respell_until_runs",
           "substitute_missing"]

MAX_OPTIONS = 10
"""Opaque columns offered (the owning tables' first ones, in column order)."""
MAX_TOKENS = 40
"""Cap on the reply's tokens: one short JSON object."""
NONE = "none"
MAX_ROUNDS = 3
"""Missing names fixed one after another in one query (``mean_temp`` then ``mean_hmdty``): one call each."""

_ERRORS = (re.compile(r"no such column: (?:(?P<q>[\w$]+)\.)?(?P<c>[\w$]+)", re.I),  # SQLite
           re.compile(r"column \"?(?:(?P<q>[\w$]+)\.)?(?P<c>[\w$]+)\"? does not exist", re.I),  # PostgreSQL
           re.compile(r"unknown column '(?:(?P<q>[\w$]+)\.)?(?P<c>[\w$]+)'", re.I))  # MySQL


@dataclass(frozen=True)
class MissingColumn:
    """A column name the query writes that none of its ``owners`` has, and their opaque columns it may mean."""

    written: str
    qualifier: str | None
    """The table or alias written before the name, None when unqualified."""
    owners: tuple[TableInfo, ...]
    """The table the qualifier names, or (unqualified) every table of the query with opaque columns."""
    options: tuple[tuple[str, str], ...]
    """``(table, column)`` of each opaque, undocumented column of the owners the query does not read yet."""
    readable: tuple[tuple[str, str], ...] = ()
    """``(table, column)`` of the owners' other columns the query does not read, keys aside: choices too
    (``cust_lsn_nm`` for ``CUST_LST_NM``, which no spelling rule matches)."""


def find_missing(sql: str, error: str, tables: list[TableInfo], dialect: str) -> MissingColumn | None:
    """The missing column ``error`` names in ``sql``, when an opaque column of its table could be the one meant.

    ``tables`` is the documented schema (:func:`tools.opaque_columns.documented_tables`). None when the error
    names no column, the query does not parse, the qualifier is no table of the query, some table of the
    database has the name (a wrong qualifier or a missing join: the business of :mod:`rewrites.qualify` and
    :mod:`rewrites.missing_join`), or no owner has an opaque undocumented column the query does not read.
    """
    found = next((m for m in (p.search(error or "") for p in _ERRORS) if m), None)
    if found is None:
        return None
    written, qualifier = found.group("c"), found.group("q")
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return None
    by_name = {t.name.lower(): t for t in tables}
    aliases: dict[str, TableInfo] = {}
    for node in tree.find_all(exp.Table):
        table = by_name.get(node.name.lower())
        if table is not None:
            aliases[node.alias_or_name.lower()] = table
            aliases.setdefault(node.name.lower(), table)
    used = list({id(t): t for t in aliases.values()}.values())
    if any(t.column(written) is not None for t in tables):
        return None
    if qualifier is not None:
        owner = aliases.get(qualifier.lower())
        owners = [owner] if owner is not None else []
    else:
        owners = [t for t in used if opaque_columns([t])]
    read = {c.name.lower() for c in tree.find_all(exp.Column)}
    options = [(t.name, name) for t, name in opaque_columns(owners) if name.lower() not in read][:MAX_OPTIONS]
    if not options:
        return None
    dark = {(t.name, name) for t, name in opaque_columns(owners)}
    readable = [(t.name, c.name) for t in owners for c in t.columns
                if c.name.lower() not in read and (t.name, c.name) not in dark and not is_key_column(t, c.name)]
    return MissingColumn(written, qualifier, tuple(owners), tuple(options), tuple(readable))


def substitute_missing(sql: str, dialect: str, missing: MissingColumn, column: str) -> str:
    """``sql`` with every reference to the written name (with its qualifier, or unqualified) reading ``column``.

    Raises ``sqlglot.errors.SqlglotError`` when ``sql`` does not parse.
    """
    tree = sqlglot.parse_one(sql, read=dialect)
    for col in tree.find_all(exp.Column):
        same_owner = (col.table.lower() == missing.qualifier.lower()) if missing.qualifier else not col.table
        if col.name.lower() == missing.written.lower() and same_owner:
            col.set("this", exp.to_identifier(column))
    return tree.sql(dialect=dialect)


USER = """Question: {question}

This query failed: no table it reads has a column {written}{reading}.
{sql}

These columns have names that say nothing; their stored values tell what they hold:
{columns}
{readable}
Which of these columns holds what {written} was meant to read in this question? "none" when no column fits."""
READABLE = "Other columns of the same tables, which the query does not read: {columns}\n"


def _reading(name: str) -> str:
    """`` ("guest last name")`` - the written name in words, when its parts have known expansions; '' otherwise."""
    parts = split_words(name)
    reading = expand_name(name) or " ".join(EXPANSIONS.get(p, p) for p in parts)
    return f' ("{reading}")' if reading.split() != parts else ""


def respell_missing(ctx: ToolContext, system: str, question: str, sql: str,
                    error: str) -> tuple[str, dict[str, Any]] | None:
    """``sql`` reading the opaque column the model picks for the missing one ``error`` names, and its record.

    Returns ``(new sql, {"written", "table", "picked"})`` or None: no such failure (:func:`find_missing`), the
    model said none, the call failed, or the query could not be rewritten. ``system`` is the generator's system
    prompt (its cached prefix holds the schema). One constrained call with the label ``missing column``; the
    caller runs the new query and keeps it only when it runs.
    """
    try:
        tables = documented_tables(ctx.db, ctx.settings.knowledge.use_drafts)
    except Exception:  # noqa: BLE001 - an unreadable schema only skips the choice
        return None
    missing = find_missing(sql, error, tables, ctx.db.dialect)
    if missing is None:
        return None
    options = [OpaqueColumn(t, c, next(x.type for o in missing.owners if o.name == t for x in o.columns
                                       if x.name == c), *stored_samples(ctx.db, t, c)) for t, c in missing.options]
    others = [f"{t}.{c}" for t, c in missing.readable]
    refs = [*(o.ref for o in options), *others]
    allowed: Any = Literal[tuple([*refs, NONE])]
    schema: type[BaseModel] = create_model("MissingColumnChoice", column=(allowed, Field(description="the column")))
    user = USER.format(question=question, written=missing.written, reading=_reading(missing.written), sql=sql,
                       columns="\n".join(f"- {o.describe()}" for o in options),
                       readable=READABLE.format(columns=", ".join(others)) if others else "")
    try:
        reply = invoke_structured(ctx.llms, "generator", chat(system, user), schema, ctx.usage,
                                  temperature=0.0, max_tokens=MAX_TOKENS, label="missing column")
    except Exception:  # noqa: BLE001 - the repair follows as before
        return None
    picked = str(reply.model_dump()["column"])
    if picked not in refs:
        return None
    table, column = picked.split(".", 1)
    try:
        new_sql = substitute_missing(sql, ctx.db.dialect, missing, column)
    except sqlglot.errors.SqlglotError:
        return None
    return (new_sql, {"written": missing.written, "table": table, "picked": column}) if new_sql != sql else None


def respell_until_runs(ctx: ToolContext, system: str, question: str, sql: str,
                       error: str) -> tuple[str, dict[str, Any]] | None:
    """:func:`respell_missing` repeated while the rewritten query fails with the next missing name.

    SQLite names one missing column per error, and a query written with spelled-out names often has several
    (``mean_temp``, ``mean_hmdty``). At most :data:`MAX_ROUNDS` picks (one call each). Returns the query once it
    runs (read-only, through ``ctx.db``) with a record ``{"written", "table", "picked"}`` whose fields join the
    picks with ", ", or None when a round finds nothing to pick or the query still fails after the last one.
    """
    picks: list[dict[str, Any]] = []
    for _ in range(MAX_ROUNDS):
        found = respell_missing(ctx, system, question, sql, error)
        if found is None:
            return None
        sql, record = found
        picks.append(record)
        res = ctx.db.run_query(sql)
        if res.ok:
            return sql, {k: ", ".join(str(p[k]) for p in picks) for k in ("written", "table", "picked")}
        error = res.error or ""
    return None
