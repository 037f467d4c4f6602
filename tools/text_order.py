"""Numbers and dates stored as text, ordered or compared alphabetically by the answer's SQL: a note for the analyst.

A column loaded from a spreadsheet or a CSV often keeps its numbers or dates as text: ``days_held`` = '9', '10',
'250'; ``start_date`` = '8/21/2015', '12/1/2014'. SQLite then compares and sorts them as text ('9' after '10',
``MAX`` = '9'; '8/21/2015' after '12/1/2014'; ``days_held > 100`` compares strings), PostgreSQL sorts them as text,
and the answer looks right while it is not the order the analyst meant. :func:`text_order_notes` finds, in the
executed SQL, the columns under ``ORDER BY``, ``MIN``/``MAX`` and ``<``, ``<=``, ``>``, ``>=``, ``BETWEEN`` (not
inside a ``CAST`` or a function) whose stored values are all

- numbers written as text of more than one length (:func:`numbers_as_text`; equal-length codes such as '01'..'99'
  sort the same either way), or
- dates written day or month first or with the month's name ('8/21/2015', '06.10.1976', '18 February 1992',
  'May 26, 1986'; :func:`dates_as_text`; ISO 'YYYY-MM-DD' sorts correctly as text),

and says so in one line per column. It changes no SQL: the benchmark gold queries order such columns as stored,
and a rewrite would be measured as a loss there while the note costs nothing.

Model-free; one ``SELECT DISTINCT ... `` of at most :data:`VALUES_READ` rows per column read, cached per database
URL and column.
"""

from __future__ import annotations

import re
import threading
from typing import Literal

import sqlglot
from sqlglot import exp

from database.connection import Database
from database.schema_reader import quote_identifier
from tools.number_ranges import owner_table, schema_columns

__all__ = ["dates_as_text", "numbers_as_text", "ordered_columns", "stored_as_text", "text_order_notes"]

VALUES_READ = 200
"""Distinct stored values read per column to decide."""

_NUMBER = re.compile(r"^\s*[-+]?\d+(?:\.\d+)?\s*$")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = re.compile(r"^\s*(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{1,2} " + _MONTH + r",? \d{4}|" + _MONTH
                   + r" \d{1,2},? \d{4})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?\s*$", re.I)
Kind = Literal["numbers", "dates"]
"""What a column stores as text whose alphabetical order is not the values' own."""

_LOCK = threading.Lock()
_SEEN: dict[tuple[str, str, str], Kind | None] = {}
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


def numbers_as_text(values: list[object]) -> bool:
    """True when ``values`` are all numbers written as text, of more than one length or sign."""
    if not values or not all(isinstance(v, str) and _NUMBER.match(v) for v in values):
        return False
    texts = [str(v).strip() for v in values]
    widths = {len(v.lstrip("+-").split(".")[0]) for v in texts}
    return len(widths) > 1 or len({v.startswith("-") for v in texts}) > 1


def dates_as_text(values: list[object]) -> bool:
    """True when ``values`` are all dates written day or month first, or with the month's name (not ISO)."""
    return bool(values) and all(isinstance(v, str) and _DATE.match(v) for v in values) and len(set(values)) > 1


def stored_as_text(db: Database, table: str, column: str) -> Kind | None:
    """``"numbers"`` or ``"dates"`` when ``table.column`` stores them as text whose order is not theirs, else None.

    Reads up to :data:`VALUES_READ` distinct non-NULL values through the guarded path (cached). Columns the driver
    returns as numbers or dates, empty columns and failing queries give None.
    """
    key = (db.url, table.lower(), column.lower())
    with _LOCK:
        if key in _SEEN:
            return _SEEN[key]
    col, tab = quote_identifier(column, db.dialect), quote_identifier(table, db.dialect)
    res = db.run_query(f"SELECT DISTINCT {col} FROM {tab} WHERE {col} IS NOT NULL", row_cap=VALUES_READ)
    values = [row[0] for row in res.rows] if res.ok else []
    found: Kind | None = "numbers" if numbers_as_text(values) else "dates" if dates_as_text(values) else None
    with _LOCK:
        _SEEN[key] = found
    return found


_NOTES: dict[Kind, str] = {
    "numbers": "stores numbers as text: it is ordered and compared alphabetically ('9' after '10'); CAST it to a "
               "number for the numeric order",
    "dates": "stores dates as text written like '{example}': it is ordered and compared alphabetically, not by "
             "date",
}


def text_order_notes(db: Database, sql: str) -> list[str]:
    """One line per column of ``sql`` ordered or compared as text while it stores numbers or dates ([] when none).

    E.g. ``"wrestler.Days_held stores numbers as text: it is ordered and compared alphabetically ('9' after
    '10'); CAST it to a number for the numeric order"``. Raises nothing.
    """
    try:
        notes = []
        for table, column in ordered_columns(sql, db.dialect, schema_columns(db)):
            kind = stored_as_text(db, table, column)
            if kind is not None:
                example = _example(db, table, column) if kind == "dates" else ""
                notes.append(f"{table}.{column} " + _NOTES[kind].format(example=example))
        return notes
    except Exception:  # noqa: BLE001 - a courtesy note; the answer stands without it
        return []


def _example(db: Database, table: str, column: str) -> str:
    """One stored value of the column (for the note), "" when it cannot be read."""
    col, tab = quote_identifier(column, db.dialect), quote_identifier(table, db.dialect)
    res = db.run_query(f"SELECT {col} FROM {tab} WHERE {col} IS NOT NULL", row_cap=1)
    return str(res.rows[0][0]).strip() if res.ok and res.rows else ""
