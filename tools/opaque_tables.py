"""Which table does this question word mean, when the schema names it ``t_05``? Opaque tables as link choices.

A warehouse table called ``t_05`` says nothing about what its rows are; its columns (``FAC_ID, LNM, FNM, RNK``)
do, to a reader who looks. A question about "instructors" over such a schema has no readable name for its
subject, so the opaque-column link (:mod:`tools.opaque_columns`) receives the word and, offered only columns,
gives it some column - often of another table (the linking table that also carries ``FAC_ID``) - and the
candidates then read the wrong rows.

Under ``generation.link_opaque_tables`` the link call also offers the undocumented opaque tables of the prompt by
name (their columns are listed among the readable choices, or shown with the opaque ones), and a word the model
gives a table becomes a :class:`TableLink`: shown to the hint-taking candidates as "'instructors': the rows of
table t_05". Question-conditioned schema linking at table level (RESDSQL's and CodeS's table classifiers, DIN-SQL's
schema-linking step) restricted to the tables whose names carry no words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from database.schema_types import TableInfo
from knowledge.abbreviations import is_opaque_name

__all__ = ["MAX_TABLES", "OPAQUE_SECTION", "TABLES_SECTION", "USER_TABLES", "TableLink", "opaque_tables", "render_table_links", "table_choices"]

MAX_TABLES = 8
"""Opaque tables offered as choices (the prompt's tables in listing order)."""

TABLES_SECTION = """Tables with names that say nothing (a word can name what the rows of one of them are; their \
columns are listed above): {tables}
"""
"""The link prompt's section of opaque tables; the reply gives such a word the table's bare name."""

USER_TABLES = """Question: {question}

Which column or table holds each of these words of the question: {terms}? Columns with readable names:
{readable}
{opaque}{tables}
For each word, give the column that holds it: first the table the word belongs to in the question, then the \
column of that table whose name or stored values fit the word. Give a table alone when the word names what its \
rows are. "none" when nothing fits."""
"""The link prompt under ``generation.link_opaque_tables`` (with readable choices): opaque tables are choices too."""

OPAQUE_SECTION = "Columns with names that say nothing; their stored values tell what they hold:\n{columns}\n"

TABLE_HEADER = "Tables with names that say nothing, matched to words of the question (read them for those words):\n"


@dataclass(frozen=True)
class TableLink:
    """A question word and the opaque table (``t_05``) the model chose for it: the word names that table's rows."""

    term: str
    table: str

    def as_dict(self) -> dict[str, Any]:
        """``{"term", "table", "column": None}`` for traces and evaluation records (no column: the table itself)."""
        return {"term": self.term, "table": self.table, "column": None}


def opaque_tables(tables: list[TableInfo]) -> list[TableInfo]:
    """The undocumented tables of ``tables`` whose name is opaque (``t_05``; :func:`is_opaque_name`), in order.

    At most :data:`MAX_TABLES`; a table with a human, approved or used draft description is not opaque to the model.
    """
    return [t for t in tables if is_opaque_name(t.name) and not (t.comment or "").strip()][:MAX_TABLES]


def table_choices(tables: list[TableInfo]) -> tuple[list[str], str]:
    """The opaque tables of ``tables`` as link choices: their names and the prompt section ('' when none)."""
    names = [t.name for t in opaque_tables(tables)]
    return names, TABLES_SECTION.format(tables=", ".join(names)) if names else ""


def render_table_links(links: list[TableLink]) -> str:
    """The candidates' prompt section for ``links`` ('' when none): one line per table with its words."""
    words: dict[str, list[str]] = {}
    for link in links:
        words.setdefault(link.table, []).append(link.term)
    if not words:
        return ""
    return TABLE_HEADER + "\n".join(f"- {', '.join(repr(w) for w in ws)}: the rows of table {table}"
                                    for table, ws in words.items()) + "\n\n"
