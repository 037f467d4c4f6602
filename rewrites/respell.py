"""Table and column names spelled out by the model, pointed at the abbreviated name they stand for.

On a schema with warehouse-style names (``FRST_NM``, ``GST_LST_NM``, ``CSTMR_ID``) the small model often writes
the name the column would have in words - ``FIRST_NAME``, ``FIRST_NM``, ``CustomerId`` - and the database
answers "no such column". Every candidate then fails the same way and the repair call (~10 s on 2 cores) tends to
write the same name back. The error is certain and, when exactly one column of the query's tables spells the
written name in short, so is the fix: it is made without a model call, before the dry run.

A written name and a column name are *spelled alike* when they are the same once case and separators go
(``FirstName`` / ``first_name``), or when they have as many name parts and each pair is equal or one part
abbreviates the other by the rule lexical table search uses (:func:`retrieval.term_expansion.abbreviates`:
the start of the word then some of its consonants in order; ``FRST`` / ``FIRST``, ``CSTMR`` / ``CUSTOMER``).
Two-letter parts (``NM``, ``CD``, ``ID``) follow the same rule but count only beside a part of three letters or
more that matched: ``NM`` alone fits too many words.

Tables (:func:`respell_tables`) follow the same rule: ``FROM ARTISTS`` where the database has ``ARTSTS``. A
written table name that starts another table's name part by part (``DRVR`` beside ``DRVR_STNDNG``, ``CNTY``
beside ``CNTY_PBLC_SFTY``) may mean that table and is left alone.

Left alone: a name that some table of the database has (a wrong qualifier or a missing join is the business of
:mod:`rewrites.qualify` and :mod:`rewrites.missing_join`), an output alias, a quoted name, a name two columns of
the query's tables could stand for, and any query with a source that is not a plain table. Idea: execution-guided
correction without a model call (DIN-SQL's self-correction, Pourreza & Rafiei 2023), here for the schema-linking
errors of abbreviated schemas.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

from retrieval.term_expansion import VOWELS, abbreviates
from rewrites.qualify import table_refs
from rewrites.quote_names import needs_quotes

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[\s_\-]+")


def name_parts(name: str) -> list[str]:
    """Lower-cased parts of an identifier: ``"GST_LST_NM"`` -> ``["gst", "lst", "nm"]``."""
    return [p for p in _SEPARATORS.split(_CAMEL.sub(" ", name).lower()) if p]


def _short_part(part: str, word: str) -> bool:
    """A two-letter ``part`` starting ``word`` whose second letter is a later consonant of it (``nm`` / ``name``)."""
    return (len(part) == 2 and len(word) > 2 and part[0] == word[0] and part[1] not in VOWELS
            and part[1] in word[1:])


def spelled_alike(written: str, actual: str) -> bool:
    """Is the identifier ``written`` the column name ``actual`` spelled another way (see the module docstring)?

    Case-insensitive. ``spelled_alike("FIRST_NAME", "FRST_NM")`` and ``spelled_alike("CustomerId",
    "CSTMR_ID")`` are True; ``spelled_alike("LAST_NAME", "c20")`` and ``spelled_alike("NAME", "CSTMR_NM")`` are
    False.
    """
    w, a = name_parts(written), name_parts(actual)
    if not w or not a:
        return False
    if "".join(w) == "".join(a):
        return True
    if len(w) != len(a):
        return False
    long_match = False
    for x, y in zip(w, a, strict=True):
        if x == y:
            long_match = long_match or len(x) >= 3
        elif abbreviates(x, y) or abbreviates(y, x):
            long_match = True
        elif not (_short_part(x, y) or _short_part(y, x)):
            return False
    return long_match


def respell_columns(sql: str, dialect: str, columns: Mapping[str, Sequence[str]]) -> str:
    """``sql`` with each column name no table has replaced by the one column of its SELECT's tables spelled alike.

    Args:
        sql: one read-only statement (already guarded).
        dialect: sqlglot dialect name.
        columns: lower-cased table name -> the table's column names as declared (their case is kept in the
            rewrite; outside SQLite a name not all lower case is quoted, as the engine would fold it).

    Returns:
        The rewritten SQL in ``dialect``, or ``sql`` unchanged (nothing to respell, an ambiguous or unknown
        spelling, unparsable SQL). Never raises.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return sql
    known = {c.lower() for cols in columns.values() for c in cols}
    aliases = {a.alias.lower() for a in tree.find_all(exp.Alias) if a.alias}
    changed = False
    for select in list(tree.find_all(exp.Select)):
        refs = table_refs(select)
        if not refs or any(t not in columns for t in refs.values()):
            continue
        for column in list(select.find_all(exp.Column)):
            if (column.find_ancestor(exp.Select) is not select or not isinstance(column.this, exp.Identifier)
                    or column.this.quoted):
                continue
            name, qualifier = column.name, column.table.lower()
            defining = column.find_ancestor(exp.Alias)  # SUM(Total_Revenue) AS Total_Revenue: the column, not the alias
            alias = name.lower() in aliases and not (defining is not None and defining.alias.lower() == name.lower())
            if name.lower() in known or alias or (qualifier and qualifier not in refs):
                continue
            scope = [qualifier] if qualifier else list(refs)
            found = {(ref, col) for ref in scope for col in columns[refs[ref]] if spelled_alike(name, col)}
            if qualifier and not found:
                continue
            if len({col.lower() for _, col in found}) != 1 or len({refs[r] for r, _ in found}) != 1:
                continue
            actual = next(iter(found))[1]
            column.set("this", exp.to_identifier(actual, quoted=(dialect != "sqlite" and actual != actual.lower())
                                                 or needs_quotes(actual)))
            changed = True
    return tree.sql(dialect=dialect) if changed else sql



def _table_spelling(written: str, tables: Sequence[str]) -> str | None:
    """The one table of ``tables`` spelled like ``written``, or None.

    None also when another table's name starts with ``written``'s name parts: the model may mean that table
    (``DRVR`` beside ``DRVRS`` and ``DRVR_STNDNG``).
    """
    alike = [t for t in tables if spelled_alike(written, t)]
    if len(alike) != 1:
        return None
    parts = name_parts(written)
    if any(name_parts(t)[:len(parts)] == parts for t in tables if t != alike[0]):
        return None
    return alike[0]


def respell_tables(sql: str, dialect: str, tables: Sequence[str]) -> str:
    """``sql`` with each table name the database lacks replaced by the one table spelled alike.

    ``SELECT ARTISTS.NM FROM ARTISTS`` over a database with ``ARTSTS`` becomes ``SELECT ARTSTS.NM FROM ARTSTS``
    (columns qualified with the old name follow it). The spelling rule is :func:`spelled_alike`'s; see the
    module docstring for what is left alone. Names a CTE of the query defines are not tables to respell.

    Args:
        sql: one read-only statement (already guarded).
        dialect: sqlglot dialect name.
        tables: the database's table names as declared (their case is kept; outside SQLite a name not all
            lower case is quoted).

    Returns:
        The rewritten SQL, or ``sql`` unchanged (nothing to respell, ambiguous, unparsable). Never raises.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return sql
    known = {t.lower() for t in tables}
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    renamed: dict[str, str] = {}
    changed = False
    for table in list(tree.find_all(exp.Table)):
        name = table.name
        if not name or name.lower() in known | ctes or not isinstance(table.this, exp.Identifier):
            continue
        actual = _table_spelling(name, tables)
        if actual is None:
            continue
        quoted = dialect != "sqlite" and actual != actual.lower()
        table.set("this", exp.to_identifier(actual, quoted=quoted))
        changed = True
        if not table.alias:
            renamed[name.lower()] = actual
    for column in tree.find_all(exp.Column):
        new = renamed.get(column.table.lower()) if column.table else None
        if new is not None:
            column.set("table", exp.to_identifier(new, quoted=dialect != "sqlite" and new != new.lower()))
    return tree.sql(dialect=dialect) if changed else sql
