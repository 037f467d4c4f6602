"""Prompts of metadata enrichment: a table's summary and its columns' descriptions, with their context.

A column whose name says nothing (``c14``) can only be read from its context, so :func:`columns_prompt` shows the
described columns' profiles and values, the table's sample rows (the described columns beside their
neighbours), the tables linked to it by declared foreign keys, and the plain-words reading of every abbreviated
name (:func:`knowledge.abbreviations.expand_name`: ``CUST_NM (customer name)``). :func:`echoes` tells a reply
that only repeats that context (the values, the profile line) from a description.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from core.llm import chat
from database.results import format_cell
from database.schema_reader import format_sample_rows
from database.schema_types import ColumnInfo, TableInfo
from knowledge.abbreviations import expand_name
from prompts import column_description, table_summary
from retrieval.documents import clip_words, profile_hint

SAMPLE_ROWS = 5
"""Sample rows read per table (masked); a table summary shows all of them."""
PROMPT_ROWS = 3
"""Sample rows shown in a column-description prompt (the described columns beside their neighbours)."""
ROW_COLUMNS = 12
"""At most this many columns in those rows, so a wide table's batch stays within the model's context."""
LINKED_COLUMNS = 8
"""Column names shown for each table linked to the described one by a foreign key."""

ECHO_WORDS = frozenset({"and", "the", "with", "value", "values", "range", "distinct", "sample", "sampled",
                        "possibly", "probably", "null", "nulls", "all", "like", "such", "from", "for", "text", "profile"})
"""Words that do not count as saying something new in :func:`echoes`."""

_WORD = re.compile(r"[^\W\d_]{3,}")


def _facts(table: TableInfo, col: ColumnInfo) -> str:
    """Profile hint, numeric range and foreign-key target of ``col`` ("; "-separated, may be "")."""
    parts = [profile_hint(col, 5)]
    prof = col.profile
    if prof is not None and prof.kind == "number" and prof.min is not None and not prof.masked:
        parts.append(f"range {format_cell(prof.min)}..{format_cell(prof.max)}")
    parts += [f"-> {fk.ref_table}.{ref}" for fk in table.foreign_keys
              for own, ref in zip(fk.columns, fk.ref_columns, strict=False) if own == col.name]
    return "; ".join(p for p in parts if p)


def column_lines(table: TableInfo, names: list[str]) -> str:
    """One line per column of ``names``: ``- name type | profile; range; -> FK target | three sample values``."""
    lines = []
    for name in names:
        col = table.column(name)
        assert col is not None
        values = list(dict.fromkeys(format_cell(r.get(col.name), 30) for r in table.sample_rows))[:3]
        parts = [f"- {col.name} {col.type or '(no type)'}", _facts(table, col), ", ".join(values)]
        lines.append(" | ".join(p for p in parts if p))
    return "\n".join(lines)


def summary_prompt(table: TableInfo, dialect: str) -> list[Any]:
    """Chat messages asking for an 80-150 word summary of ``table`` (columns, keys, sample rows)."""
    cols = "\n".join(
        f"- {c.name} {c.type}" + (f" -- {c.comment}" if c.comment else "")
        + (f" | {facts}" if (facts := profile_hint(c, 5)) else "")
        for c in table.columns
    )
    keys = f"Primary key: {', '.join(table.primary_key)}\n" if table.primary_key else ""
    keys += "".join(f"Foreign key: {', '.join(fk.columns)} -> {fk.ref_table}({', '.join(fk.ref_columns)})\n"
                    for fk in table.foreign_keys)
    rows = format_sample_rows(table, SAMPLE_ROWS) or "(no rows)"
    return chat(table_summary.SYSTEM.format(dialect=dialect),
                table_summary.USER.format(table=table.name, columns=cols, keys=keys, rows=rows))


def _reading(name: str) -> str:
    """``name`` followed by its plain-words reading when it has one: ``"CUST_NM (customer name)"``."""
    words = expand_name(name)
    return f"{name} ({words})" if words else name


def _links(table: TableInfo, tables: list[TableInfo]) -> str:
    """The tables joined to ``table`` by declared foreign keys, each with its first columns, one per line.

    Outgoing keys read ``c3 -> PPL.ID``, incoming ones ``<- RSRV.c5``; each linked table is shown once with up
    to :data:`LINKED_COLUMNS` of its column names (and readings), so an opaque key column's meaning can be read
    from what it points at. "(none declared)" when there is none.
    """
    by_name = {t.name.lower(): t for t in tables}
    joins: dict[str, list[str]] = {}
    for fk in table.foreign_keys:
        joins.setdefault(fk.ref_table.lower(), []).append(
            f"{', '.join(fk.columns)} -> {fk.ref_table}.{', '.join(fk.ref_columns)}")
    for other in tables:
        for fk in other.foreign_keys:
            if fk.ref_table.lower() == table.name.lower() and other is not table:
                joins.setdefault(other.name.lower(), []).append(f"<- {other.name}.{', '.join(fk.columns)}")
    lines = []
    for key, how in joins.items():
        linked = by_name.get(key)
        cols = ", ".join(_reading(c.name) for c in linked.columns[:LINKED_COLUMNS]) if linked else ""
        name = _reading(linked.name) if linked else key
        lines.append(f"- {name}: {'; '.join(how)}" + (f" (columns: {cols})" if cols else ""))
    return "\n" + "\n".join(lines) if lines else "(none declared)"


def _rows(table: TableInfo, names: list[str]) -> str:
    """:data:`PROMPT_ROWS` sample rows of ``table`` restricted to ``names`` and their neighbours.

    At most :data:`ROW_COLUMNS` columns: the described ones plus the table's other columns in order (keys and
    readable names give the context). "(no rows)" for an empty table.
    """
    if not table.sample_rows:
        return "(no rows)"
    wanted = {n.lower() for n in names}
    others = [c.name for c in table.columns if c.name.lower() not in wanted]
    keep = {n.lower() for n in names} | {n.lower() for n in others[: max(0, ROW_COLUMNS - len(names))]}
    view = dataclasses.replace(table, sample_rows=[{k: v for k, v in row.items() if k.lower() in keep}
                                                   for row in table.sample_rows])
    return format_sample_rows(view, PROMPT_ROWS) or "(no rows)"


def columns_prompt(table: TableInfo, names: list[str], dialect: str,
                    tables: list[TableInfo] | None = None) -> list[Any]:
    """Chat messages asking for descriptions of the columns ``names`` of ``table`` as one JSON list.

    ``tables`` (the whole schema; default just ``table``) gives the foreign-key neighbours.
    """
    user = column_description.USER.format(
        table=_reading(table.name), about=clip_words(table.comment or "(undocumented)", 60),
        links=_links(table, tables or [table]), rows=_rows(table, names),
        all_columns=", ".join(_reading(c.name) for c in table.columns), columns=column_lines(table, names))
    return chat(column_description.SYSTEM.format(dialect=dialect), user)


def echoes(text: str, table: TableInfo, name: str) -> bool:
    """True when ``text`` says no word beyond column ``name``'s own prompt line.

    The prompt line is the name, type, profile and sample values (:func:`column_lines`); a small model sometimes
    answers with that line itself ("Mark Fayne, Ty Conklin", "VARCHAR(255) | all null"), which describes
    nothing. Words of :data:`ECHO_WORDS` do not count.
    """
    seen = {w.lower() for w in _WORD.findall(column_lines(table, [name]))} | ECHO_WORDS
    return not {w.lower() for w in _WORD.findall(text)} - seen
