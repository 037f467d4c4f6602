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

import re
import unicodedata
from collections.abc import Callable

import sqlglot
from sqlglot import exp

from database.connection import Database
from database.guard import guard_sql

_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?([ T][\d:.]+)?$")
"""An ISO date or timestamp literal ('2025-10-31', '2025-10', '2025-10-31 16:00:00')."""

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


_LEGAL = {"inc", "corp", "corporation", "ltd", "plc", "sa", "se", "ag", "nv", "co", "company", "group", "the", "and"}


def named_in(question: str, literal: str, matches: list[dict[str, object]] | None = None) -> bool:
    """True when ``question`` names the filter value ``literal``.

    One of the literal's words (3+ letters or a number; legal suffixes, 'the' and 'and' aside) occurs in the
    question, accents and case folded, or a word of 4+ letters starts the other; a literal that is one short code
    (one or two letters: 'CA', 'F') when the question writes it as a word with the same case ("average math score
    of CA", not "ca" or "cat"); or a value match of the question (ValueMatch dicts) resolved to it: its value, key
    or a sibling code.
    """
    raw = re.findall(r"[^\W_]+", literal)
    if len(raw) == 1 and len(raw[0]) < 3 and not raw[0].isdigit() and raw[0] in re.findall(r"[^\W_]+", question):
        return True
    asked = {fold(w) for w in re.findall(r"[^\W_]+", question)}
    words = [fold(w) for w in raw]
    for word in (w for w in words if (len(w) >= 3 or w.isdigit()) and w not in _LEGAL):
        if word in asked or (len(word) >= 4 and any(a.startswith(word) or word.startswith(a) for a in asked
                                                    if len(a) >= 4)):
            return True  # "Africa" for "African", "Republic" for "republics"
    target = literal.casefold()
    for match in matches or []:
        siblings = match.get("siblings")
        names = [match.get("value"), match.get("id"), *(siblings.values() if isinstance(siblings, dict) else [])]
        if any(n is not None and str(n).casefold() == target for n in names):
            return True
    return False


def drop_unasked_filters(sql: str, dialect: str, named: Callable[[str], bool]) -> str | None:
    """``sql`` without its top-level ``column = 'x'`` / ``IN (...)`` filters on values nobody asked for.

    For a candidate whose result is empty: the small model copies a filter from a few-shot example
    (``LIMAR = 'XETR'`` for "the ISIN of Microsoft"). A conjunct of the outer WHERE is dropped when none of
    its string literals is ``named`` (see :func:`named_in`) and none is a date (``VLD_TO = '2025-10-31'`` for
    "right now" is a wrong date, not an unasked filter: without it every past row would answer; the as-of
    rescue and the next candidate handle dates). None when nothing is dropped or the SQL does not parse.
    Never raises.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return None
    where = tree.args.get("where") if isinstance(tree, exp.Select) else None
    if where is None:
        return None
    conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    keep = []
    for conjunct in conjuncts:
        literals = [str(lit.this) for _col, lit in _filters(conjunct)] if isinstance(conjunct, (exp.EQ, exp.In)) else []
        if literals and not any(named(lit) or _DATE.match(lit) for lit in literals):
            continue
        keep.append(conjunct)
    if len(keep) == len(conjuncts):
        return None
    tree.set("where", exp.Where(this=exp.and_(*keep)) if keep else None)
    out = tree.sql(dialect=dialect)
    return out if guard_sql(out, dialect).ok else None


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def filter_values(sql: str, dialect: str) -> list[str] | None:
    """The values the query filters on, as text; None when the SQL does not parse.

    String literals of ``=`` / ``IN`` filters and ``LIKE`` patterns, and numbers compared with a column, anywhere
    in the query (WHERE, ON, HAVING, subqueries).
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return None
    if tree is None:
        return None
    values = [str(lit.this) for _col, lit in _filters(tree)]
    for like in tree.find_all(exp.Like, exp.ILike):
        if isinstance(like.expression, exp.Literal) and like.expression.is_string:
            values.append(str(like.expression.this).strip("%_"))
    for node in tree.find_all(*_COMPARISONS):
        for col, lit in ((node.this, node.expression), (node.expression, node.this)):
            if isinstance(col, exp.Column) and isinstance(lit, exp.Literal) and not lit.is_string:
                values.append(str(lit.this))
    return values


def all_filters_named(sql: str, dialect: str, named: Callable[[str], bool]) -> bool:
    """True when every value the query filters on is ``named`` by the question (also when it filters on none).

    Such a query asks exactly what the question asks, so its empty result is the answer ("orders of the customer
    Caio" when Caio has none), not a failure to rescue. False when the SQL does not parse.
    """
    values = filter_values(sql, dialect)
    return values is not None and all(named(v) for v in values)
