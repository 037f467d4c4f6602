"""A WHERE no row can meet, read as "both": one query per condition, intersected.

"Which nations speak both English and French?" is often written as one filter on one row::

    SELECT name FROM country JOIN countrylanguage ON code = countrycode
    WHERE language = 'English' AND language = 'French'

No row holds two languages, so the query returns nothing on every database, and the database reports nothing
wrong. The question means the entities that have a row of each kind, which is an ``INTERSECT`` of one query per
condition (Spider's "both ... and ..." questions, Yu et al. 2018)::

    SELECT name FROM country JOIN countrylanguage ON code = countrycode WHERE language = 'English'
    INTERSECT
    SELECT name FROM country JOIN countrylanguage ON code = countrycode WHERE language = 'French'

:func:`split_contradiction` finds, among the top-level ``AND`` conditions of a plain SELECT's WHERE, one column
compared with two or more different literals by ``=`` (``year = 1999 AND year = 2000``: one query per value) or
bounded by two ranges that cannot overlap (``join_year > 2005 AND join_year < 2000``: one query for the lower
bounds, one for the upper). Every other condition stays in each query. It does nothing when the SELECT shows
that column (each query would show a different value, and the intersection would be empty again), aggregates,
groups, windows, orders or limits its rows, or has a second contradictory column: those are not the "both"
reading. Columns are told apart by qualifier and name as written. No model call.
"""

from __future__ import annotations

from collections import defaultdict

from sqlglot import exp

from database.sql_sources import conjuncts, parse_query

_LOWER = (exp.GT, exp.GTE)
_UPPER = (exp.LT, exp.LTE)


def _key(column: exp.Column) -> tuple[str, str]:
    """A column as written: (lower-cased qualifier or '', lower-cased name)."""
    return column.table.lower(), column.name.lower()


def _literal(node: exp.Expr) -> tuple[str, float | str] | None:
    """``("n", number)`` or ``("s", text)`` for a literal (a negative number included), else None."""
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        found = _literal(node.this)
        return ("n", -float(found[1])) if found else None
    if not isinstance(node, exp.Literal):
        return None
    if node.is_string:
        return "s", node.this
    number = _number(node.this)
    return ("n", number) if number is not None else None


def _number(text: str | float) -> float | None:
    """``text`` as a number, or None when it is not one."""
    try:
        return float(text)
    except ValueError:
        return None


def _comparison(cond: exp.Expr) -> tuple[tuple[str, str], type, tuple[str, float | str]] | None:
    """(column key, comparison class with the column on the left, literal) of ``column op literal``, or None."""
    flipped: dict[type, type] = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE,
                                 exp.EQ: exp.EQ}
    if type(cond) not in flipped:
        return None
    left, right = cond.args.get("this"), cond.args.get("expression")
    if isinstance(left, exp.Column) and isinstance(right, exp.Expr) and (value := _literal(right)) is not None:
        return _key(left), type(cond), value
    if isinstance(right, exp.Column) and isinstance(left, exp.Expr) and (value := _literal(left)) is not None:
        return _key(right), flipped[type(cond)], value
    return None


def _disjoint(lows: list[float | str], highs: list[float | str]) -> bool:
    """Do the lower bounds ``lows`` and upper bounds ``highs`` (all numbers or all text) leave no value between?"""
    if all(isinstance(v, str) for v in lows + highs):  # ISO dates compare as text
        return max(str(v) for v in lows) >= min(str(v) for v in highs)
    return max(float(v) for v in lows) >= min(float(v) for v in highs)


def _groups(conds: list[exp.Expr]) -> tuple[tuple[str, str], list[list[int]]] | None:
    """The one contradictory column and the indices of ``conds`` of each query, or None (module docstring)."""
    equal: dict[tuple[str, str], dict[tuple[str, float | str], list[int]]] = defaultdict(dict)
    lower: dict[tuple[str, str], list[tuple[int, tuple[str, float | str]]]] = defaultdict(list)
    upper: dict[tuple[str, str], list[tuple[int, tuple[str, float | str]]]] = defaultdict(list)
    for i, cond in enumerate(conds):
        found = _comparison(cond)
        if found is None:
            continue
        key, op, value = found
        if op is exp.EQ:  # '1999' and 1999 are one value to a column of numbers
            number = _number(value[1]) if value[0] == "s" else None
            equal[key].setdefault(("n", number) if number is not None else value, []).append(i)
        elif op in _LOWER:
            lower[key].append((i, value))
        else:
            upper[key].append((i, value))
    hits: list[tuple[tuple[str, str], list[list[int]]]] = []
    for key, values in equal.items():
        if len(values) >= 2 and key not in lower and key not in upper:
            hits.append((key, list(values.values())))
    for key in lower.keys() & upper.keys():
        if key in equal:
            continue
        kinds = {v[0] for _, v in lower[key] + upper[key]}
        if len(kinds) != 1:
            continue
        if _disjoint([v[1] for _, v in lower[key]], [v[1] for _, v in upper[key]]):
            hits.append((key, [[i for i, _ in lower[key]], [i for i, _ in upper[key]]]))
    return hits[0] if len(hits) == 1 else None


def _shows(select: exp.Select, key: tuple[str, str]) -> bool:
    """Does ``select`` show the column ``key`` (or every column)?"""
    for shown in select.expressions:
        if isinstance(shown, exp.Star) or any(isinstance(c.this, exp.Star) for c in shown.find_all(exp.Column)):
            return True
        for column in shown.find_all(exp.Column):
            if column.name.lower() == key[1] and (not key[0] or not column.table
                                                  or column.table.lower() == key[0]):
                return True
    return False


def split_contradiction(sql: str, dialect: str) -> str | None:
    """``sql`` as an ``INTERSECT`` of one query per side of its contradictory WHERE (module docstring).

    Returns None when nothing changes or ``sql`` does not parse. Never raises.
    """
    tree = parse_query(sql, dialect)
    if not isinstance(tree, exp.Select) or tree.args.get("with_"):
        return None
    where = tree.args.get("where")
    if where is None or any(tree.args.get(part) for part in ("group", "having", "order", "limit", "offset")):
        return None
    if any(node.find_ancestor(exp.Select) is tree for node in tree.find_all(exp.AggFunc, exp.Window)):
        return None
    conds = conjuncts(where.this)
    found = _groups(conds)
    if found is None or _shows(tree, found[0]):
        return None
    split = {i for group in found[1] for i in group}
    parts: list[exp.Select] = []
    for group in found[1]:
        part = tree.copy()
        part.set("where", None)
        kept = [c.copy() for i, c in enumerate(conds) if i not in split or i in group]  # the written order
        parts.append(part.where(exp.and_(*kept), copy=False))
    out: exp.Expr = parts[0]
    for part in parts[1:]:
        out = exp.intersect(out, part, distinct=True)
    return out.sql(dialect=dialect)
