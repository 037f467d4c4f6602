"""Filter literals put back in the database's own spelling when a candidate's result comes back empty.

A query that filters ``CO_NM = 'Nestlé S.A.'`` on a column that stores 'Nestle S.A.', ``state =
'North Carolina'`` for 'NorthCarolina' or ``name = 'apple inc.'`` for 'Apple Inc.' returns no rows, and the
cascade would spend another model call on a question it had right. :func:`fix_literals` compares each string
literal of an ``=`` / ``IN`` filter with the column's stored values after folding (accents dropped, case
folded, spaces and punctuation removed) and replaces it when exactly one stored value folds the same.
No model call; every probe is a guarded read-only ``SELECT DISTINCT``. Related: the value probes of RAISE
(Granado et al. 2025) show the spellings to a repair model; this does the unambiguous cases without one.
"""

from __future__ import annotations

import unicodedata

import sqlglot
from sqlglot import exp

from database.connection import Database
from database.guard import guard_sql

MAX_DISTINCT = 5000
"""At most this many distinct values are read per filtered column."""


def fold(text: str) -> str:
    """Accents dropped, case folded, only letters and digits kept: ``"Nestlé S.A."`` -> ``"nestlesa"``."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c)).casefold()


def _stored(db: Database, table: exp.Table, column: exp.Column,
            cache: dict[tuple[str, str], list[str]]) -> list[str]:
    """Distinct text values of ``table.column`` (at most :data:`MAX_DISTINCT`; [] when the probe fails).

    Identifiers keep the query's own spelling and quoting, so the probe reads what the query reads.
    """
    key = (table.sql(dialect=db.dialect), column.name)
    if key not in cache:
        bare = exp.Table(this=table.this.copy(), db=table.args["db"].copy() if table.args.get("db") else None)
        query = exp.select(exp.Column(this=column.this.copy())).distinct().from_(bare).limit(MAX_DISTINCT)
        res = db.run_query(query.sql(dialect=db.dialect), row_cap=MAX_DISTINCT)
        cache[key] = [r[0] for r in res.rows if isinstance(r[0], str)] if res.ok else []
    return cache[key]


def _filters(tree: exp.Expr) -> list[tuple[exp.Column, exp.Literal]]:
    """(column, string literal) pairs of ``column = 'x'`` (either side) and ``column IN ('x', ...)``."""
    pairs: list[tuple[exp.Column, exp.Literal]] = []
    for node in tree.find_all(exp.EQ):
        for col, lit in ((node.this, node.expression), (node.expression, node.this)):
            if isinstance(col, exp.Column) and isinstance(lit, exp.Literal) and lit.is_string:
                pairs.append((col, lit))
    for member in tree.find_all(exp.In):
        if isinstance(member.this, exp.Column):
            pairs += [(member.this, lit) for lit in member.expressions
                      if isinstance(lit, exp.Literal) and lit.is_string]
    return pairs


def degenerate(rows: list[tuple[object, ...]] | list[list[object]]) -> bool:
    """True for no rows, or one row of only NULLs and zeros (an aggregate over a filter that matched nothing)."""
    return not rows or (len(rows) == 1 and all(v is None or v == 0 for v in rows[0]))


def fix_literals(db: Database, sql: str) -> str | None:
    """``sql`` with its filter literals spelled as stored, or None when nothing was changed or it fails.

    A literal is replaced only when it is not stored as written and exactly one stored value of its column
    folds (:func:`fold`) to the same text. Values that differ only by surrounding spaces (' AHD' for 'AHD')
    are left alone: padding is the engine's business (CHAR columns compare padded), and the trimmed
    literal is what users and reference queries write. The column's table is its qualifier's table, or the query's only
    table when unqualified. Never raises.
    """
    try:
        tree = sqlglot.parse_one(sql, read=db.dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return None
    if tree is None:
        return None
    tables = {t.alias_or_name: t for t in tree.find_all(exp.Table) if t.name}
    names = {t.name for t in tables.values()}
    cache: dict[tuple[str, str], list[str]] = {}
    changed = False
    for column, literal in _filters(tree):
        if column.table:
            table = tables.get(column.table)
        else:
            table = next(iter(tables.values())) if len(names) == 1 else None
        if table is None:
            continue
        stored = _stored(db, table, column, cache)
        written = str(literal.this)
        if not stored or written in stored:
            continue
        same = {v for v in stored if fold(v) == fold(written) and v.strip() != written.strip()}
        if len(same) == 1 and fold(written):
            literal.replace(exp.Literal.string(same.pop()))
            changed = True
    if not changed:
        return None
    fixed = tree.sql(dialect=db.dialect)
    return fixed if guard_sql(fixed, db.dialect).ok else None
