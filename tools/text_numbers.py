"""Numbers stored as text, ordered or compared alphabetically by the answer's SQL: a note for the analyst.

A column loaded from a spreadsheet or a CSV often keeps its numbers as text (``days_held`` = '9', '10', '250').
SQLite then compares and sorts them as text ('9' after '10', ``MAX`` = '9'; ``days_held > 100`` compares
strings), PostgreSQL sorts them as text, and the answer looks right while it is not the numeric order the
analyst meant. :func:`text_number_notes` finds, in the executed SQL, the columns under ``ORDER BY``, ``MIN``/``MAX``
and ``<``, ``<=``, ``>``, ``>=``, ``BETWEEN`` (not inside a ``CAST``) whose stored values are all numbers written
as text of more than one length (so the text order differs from the numeric one), and says so in one line per
column. It changes no SQL: the benchmark gold queries order such columns as stored, and a rewrite would be
measured as a loss there while the note costs nothing.

Model-free; one ``SELECT DISTINCT ... LIMIT`` per column read, cached per database URL and column.
"""

from __future__ import annotations

import re
import threading

import sqlglot
from sqlglot import exp

from database.connection import Database
from database.schema_reader import quote_identifier
from tools.number_ranges import owner_table, schema_columns

__all__ = ["numbers_as_text", "ordered_columns", "text_number_notes"]

VALUES_READ = 200
"""Distinct stored values read per column to decide."""

_NUMBER = re.compile(r"^\s*[-+]?\d+(?:\.\d+)?\s*$")
_LOCK = threading.Lock()
_SEEN: dict[tuple[str, str, str], bool] = {}
_ORDERING = (exp.GT, exp.GTE, exp.LT, exp.LTE)


def ordered_columns(sql: str, dialect: str, columns: dict[str, set[str]]) -> list[tuple[str, str]]:
    """``(table, column)`` of the columns ``sql`` orders, takes the MIN/MAX of, or compares with ``<``/``>``.

    Tables are resolved as :func:`tools.number_ranges.owner_table` does; columns inside a ``CAST`` (or any other
    expression) are not bare columns and are left out, and so is SQL that does not parse.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except Exception:  # noqa: BLE001 - unparsable SQL has nothing to check
        return []
    bare: list[exp.Expression] = []
    for node in tree.find_all(exp.Ordered, exp.Min, exp.Max, exp.Between, *_ORDERING):
        if isinstance(node, (exp.Ordered, exp.Min, exp.Max, exp.Between)):
            bare.append(node.this)
        else:
            bare += [node.this, node.expression]
    found: list[tuple[str, str]] = []
    for col in bare:
        if isinstance(col, exp.Column):
            table = owner_table(col, columns)
            if table is not None and (table, col.name) not in found:
                found.append((table, col.name))
    return found


def numbers_as_text(db: Database, table: str, column: str) -> bool:
    """True when ``table.column`` stores only numbers written as text, of more than one length.

    Reads up to :data:`VALUES_READ` distinct non-NULL values through the guarded path (cached). Columns the driver
    returns as numbers, equal-length codes ('01'..'99', whose text order is the numeric one), empty columns and
    failing queries give False.
    """
    key = (db.url, table.lower(), column.lower())
    with _LOCK:
        if key in _SEEN:
            return _SEEN[key]
    col, tab = quote_identifier(column, db.dialect), quote_identifier(table, db.dialect)
    res = db.run_query(f"SELECT DISTINCT {col} FROM {tab} WHERE {col} IS NOT NULL", row_cap=VALUES_READ)
    values = [row[0] for row in res.rows] if res.ok else []
    texts = all(isinstance(v, str) and _NUMBER.match(v) for v in values)
    widths = {len(v.strip().lstrip("+-").split(".")[0]) for v in values} if texts else set()
    signs = {v.strip().startswith("-") for v in values} if texts else set()
    found = bool(values) and texts and (len(widths) > 1 or len(signs) > 1)
    with _LOCK:
        _SEEN[key] = found
    return found


def text_number_notes(db: Database, sql: str) -> list[str]:
    """One line per column of ``sql`` ordered or compared as text while it stores numbers ([] when none).

    E.g. ``"wrestler.Days_held stores numbers as text: it is ordered and compared alphabetically ('9' after
    '10'); CAST it to a number for the numeric order"``. Raises nothing.
    """
    try:
        columns = schema_columns(db)
        return [f"{table}.{column} stores numbers as text: it is ordered and compared alphabetically ('9' after "
                "'10'); CAST it to a number for the numeric order"
                for table, column in ordered_columns(sql, db.dialect, columns) if numbers_as_text(db, table, column)]
    except Exception:  # noqa: BLE001 - a courtesy note; the answer stands without it
        return []
