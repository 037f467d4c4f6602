"""A negated question answered with a join and ``<>`` becomes the anti-join it asks for.

"Which countries do not speak English?" is often written::

    SELECT country.Code FROM country JOIN countrylanguage ON country.Code = countrylanguage.CountryCode
    WHERE countrylanguage.Language <> 'English'

which lists every country that speaks *some other* language as well, English-speaking ones included: a country
has many language rows, and the filter keeps each row that is not English. What the question means is the
anti-join (no related row is English)::

    SELECT country.Code FROM country WHERE country.Code NOT IN
      (SELECT countrylanguage.CountryCode FROM countrylanguage WHERE countrylanguage.Language = 'English')

:func:`fix_negated_joins` makes that change only when all of these hold, so a legitimate ``<>`` is left alone:

- the question negates a verb or a relation (:func:`negates`: "do not", "didn't", "never", "without", "no
  cartoon"; not "no more than" or "not only");
- the query is one ``SELECT`` over two tables joined by one inner equality (no grouping, no set operation);
- its ``WHERE`` is a conjunction in which exactly one condition compares a column of the joined table with a
  constant by ``<>`` / ``!=``, and every other condition, the selected columns and the ordering read the other
  (the entity's) table only;
- the related table is the *many* side of the join: a declared foreign key leads from it to the entity's join
  column, or (no declared key) the entity's join column is its table's whole primary key and the related one is
  not. Joining the one side (an employee's department) has one related row per entity, where ``<>`` is right.

A negated comparison with a number is the same mistake in another form: "customers without invoice totals
exceeding 20" written as ``... JOIN invoice ... WHERE invoice.total <= 20`` (any customer with one small invoice)
or with the negation dropped (``> 20``). When the question states the comparison after its negation
(:func:`negated_comparisons`) and the related table's condition compares a column with that number in either
direction, that condition is the one negated, and the subquery keeps the stated comparison
(``NOT IN (SELECT invoice.customer_id FROM invoice WHERE invoice.total > 20)``): customers with no invoice at all
are kept, as Spider's ``EXCEPT`` gold queries for such questions keep them. The plainest form is the negation left out
altogether ("instructors who didn't teach in Spring" as ``... JOIN teaches ... WHERE teaches.semester = 'Spring'``):
when the query negates nothing (no ``NOT``, no ``<>``), the related table's one ``=`` with a constant is the
condition negated.

One row per entity comes back (a ``DISTINCT`` is kept). No model call; the idea is the anti-join that
"not / never / without" questions ask for (Spider's ``NOT IN`` / ``EXCEPT`` pairs, Yu et al. 2018), the
converse of :mod:`rewrites.set_keys`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from sqlglot import exp

from database.joins import JoinGraph
from database.sql_sources import conjuncts, parse_query

_NOT_COMPARISON = (r"(?:more|less|fewer|greater|higher|lower|larger|smaller|bigger|older|younger|longer|shorter|"
                   r"earlier|later|before|after|only|just|equal|exceeding|over|under|above|below)")
_NEGATION = re.compile(
    rf"\b(?:never|without|none)\b|n't\b|\bnot\b(?!\s+{_NOT_COMPARISON}\b)|\bno\b(?!\s+{_NOT_COMPARISON}\b)",
    re.IGNORECASE)


_MORE = r"more|greater|higher|larger|bigger|over|above|exceeding|exceeds?|exceeded"
_LESS = r"less|fewer|lower|smaller|under|below"
_STATED = re.compile(rf"\b(?:(?P<more>{_MORE})|(?P<less>{_LESS}))(?:\s+than)?\s+\$?\s*(?P<number>-?\d[\d,]*(?:\.\d+)?)",
                     re.IGNORECASE)
_UP: tuple[type[exp.Binary], ...] = (exp.GT, exp.GTE)
_DOWN: tuple[type[exp.Binary], ...] = (exp.LT, exp.LTE)


def negated_comparisons(question: str) -> list[tuple[type[exp.Binary], float]]:
    """The comparisons with a number that ``question`` states after its negation, as ``(operator, number)``.

    "customers without invoice totals exceeding 20" gives ``[(exp.GT, 20.0)]``, "never paid less than $5"
    ``[(exp.LT, 5.0)]``: the rows the negated relation must not have. [] when the question does not negate
    (:func:`negates`) or states no comparison after the negation.
    """
    text = question.replace("\u2019", "'")
    cue = _NEGATION.search(text)
    if cue is None:
        return []
    return [(exp.GT if m.group("more") else exp.LT, float(m.group("number").replace(",", "")))
            for m in _STATED.finditer(text, cue.end())]


def negates(question: str) -> bool:
    """Does ``question`` negate a verb or a relation ("do not speak", "never", "without", "no pets")?

    A negated comparison ("not more than 5", "no later than 2020") or "not only ... but also" does not count.
    """
    return bool(_NEGATION.search(question.replace("\u2019", "'")))


def _owner(column: exp.Column, tables: Mapping[str, exp.Table], columns: Mapping[str, set[str]]) -> str | None:
    """The alias (lower-cased) of the one table of ``tables`` that ``column`` reads, or None."""
    if column.table:
        key = column.table.lower()
        return key if key in tables else None
    having = [alias for alias, t in tables.items() if column.name.lower() in columns.get(t.name.lower(), set())]
    return having[0] if len(having) == 1 else None


def _reads_only(node: exp.Expr, alias: str, tables: Mapping[str, exp.Table],
                columns: Mapping[str, set[str]]) -> bool:
    """Do all columns of ``node`` belong to the table ``alias``? A star (but ``COUNT(*)``) or a subquery: no."""
    if node.find(exp.Select, exp.Subquery) is not None:
        return False
    if any(not isinstance(s.parent, exp.Count) for s in node.find_all(exp.Star)):
        return False
    return all(_owner(c, tables, columns) == alias for c in node.find_all(exp.Column))


def _constant(node: exp.Expr) -> bool:
    """Is ``node`` a literal constant (a string, a number, possibly negated)?"""
    if isinstance(node, exp.Neg):
        node = node.this
    return isinstance(node, exp.Literal | exp.Boolean)


def literal_number(node: exp.Expr | None) -> float | None:
    """The value of a numeric literal (possibly negated, ``-3``), else None (also for None)."""
    sign = -1.0 if isinstance(node, exp.Neg) else 1.0
    node = node.this if isinstance(node, exp.Neg) else node
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return sign * float(node.this)
        except ValueError:
            return None
    return None


def _inner_tests(conditions: list[exp.Expr], stated: list[tuple[type[exp.Binary], float]],
                 dropped: bool) -> dict[int, exp.Expr]:
    """For each condition the anti-join could negate (by ``id``), the test its subquery keeps.

    ``col <> constant`` keeps ``col = constant``. ``col > n`` / ``col <= n`` (either direction, the negation dropped
    or pushed onto the row) keeps the comparison the question states for ``n`` (:func:`negated_comparisons`).
    With ``dropped`` (the query negates nothing at all), ``col = constant`` keeps itself: the question's negation
    was left out of the query.
    """
    tests: dict[int, exp.Expr] = {}
    for c in conditions:
        if not isinstance(c, exp.Binary):
            continue
        if (isinstance(c, exp.NEQ) and sum(isinstance(s, exp.Column) for s in (c.left, c.right)) == 1
                and any(_constant(s) for s in (c.left, c.right))):
            tests[id(c)] = exp.EQ(this=c.left.copy(), expression=c.right.copy())
        elif isinstance(c, (*_UP, *_DOWN)) and isinstance(c.left, exp.Column):
            value = literal_number(c.right)
            ops = [op for op, n in stated if n == value]
            if value is not None and len(ops) == 1:
                tests[id(c)] = ops[0](this=c.left.copy(), expression=c.right.copy())
        elif dropped and isinstance(c, exp.EQ) and isinstance(c.left, exp.Column) and _constant(c.right):
            tests[id(c)] = c.copy()
    return tests


def _many_side(entity: exp.Table, entity_col: str, related: exp.Table, related_col: str,
               graph: JoinGraph | None, keys: Mapping[str, list[str]]) -> bool:
    """Is ``related`` the many side of ``entity.entity_col = related.related_col`` (module docstring)?"""
    if graph is not None:
        a, b = graph.canonical(entity.name), graph.canonical(related.name)
        if a and b:
            want = {(b.lower(), related_col), (a.lower(), entity_col)}
            for edge in graph.adj.get(a, []):
                if edge.other != b or edge.up or " AND " in edge.condition:
                    continue
                if {tuple(s.strip().lower().split(".", 1)) for s in edge.condition.split(" = ")} == want:
                    return True
    own = [k.lower() for k in keys.get(entity.name.lower(), [])]
    other = [k.lower() for k in keys.get(related.name.lower(), [])]
    return own == [entity_col] and other != [related_col]


def _fits(tree: exp.Select, related: str, test: exp.Expr, conditions: list[exp.Expr],
          ends: Mapping[str | None, exp.Column], tables: Mapping[str, exp.Table], columns: Mapping[str, set[str]],
          graph: JoinGraph | None, keys: Mapping[str, list[str]]) -> bool:
    """Is ``related`` the joined table whose ``<>`` condition ``test`` the anti-join should negate?

    Everything else the query reads (selected columns, other conditions, ordering) is the other table's, and
    ``related`` is the many side of the join.
    """
    entity = next(alias for alias in tables if alias != related)
    rest = [c for c in conditions if c is not test]
    outside = [*tree.expressions, *rest, *([tree.args["order"]] if tree.args.get("order") else [])]
    if not all(_reads_only(node, entity, tables, columns) for node in outside):
        return False
    return _many_side(tables[entity], ends[entity].name.lower(), tables[related], ends[related].name.lower(),
                      graph, keys)


def fix_negated_joins(sql: str, dialect: str, question: str, columns: Mapping[str, set[str]],
                      graph: JoinGraph | None, keys: Mapping[str, list[str]]) -> str | None:
    """``sql`` as an anti-join (``NOT IN``) when a negated question was answered with a join and ``<>`` (or a negated comparison).

    ``columns``: lower-cased table -> lower-cased column names; ``graph``: the database's foreign keys (None:
    primary keys decide); ``keys``: lower-cased table -> primary-key columns. Returns None when the question does
    not negate, the query does not have the shape of the module docstring, or ``sql`` does not parse. Never
    raises.
    """
    stated = negated_comparisons(question)
    if not negates(question):
        return None
    tree = parse_query(sql, dialect)
    if not isinstance(tree, exp.Select) or any(tree.args.get(k) for k in ("group", "having", "with")):
        return None
    joins = tree.args.get("joins") or []
    source = tree.args.get("from_") or tree.args.get("from")
    first = source.this if isinstance(source, exp.From) else None
    if len(joins) != 1 or not isinstance(first, exp.Table) or not isinstance(joins[0].this, exp.Table):
        return None
    join = joins[0]
    if join.side or (join.kind or "").upper() not in ("", "INNER") or join.args.get("using"):
        return None
    on, where = join.args.get("on"), tree.args.get("where")
    if not isinstance(on, exp.EQ) or where is None:
        return None
    tables = {first.alias_or_name.lower(): first, join.this.alias_or_name.lower(): join.this}
    left, right = on.left, on.right
    if len(tables) != 2 or not isinstance(left, exp.Column) or not isinstance(right, exp.Column):
        return None
    ends = {_owner(left, tables, columns): left, _owner(right, tables, columns): right}
    if set(ends) != set(tables):
        return None
    conditions = conjuncts(where.this)
    tests = _inner_tests(conditions, stated, dropped=tree.find(exp.Not, exp.NEQ) is None)
    negated = [c for c in conditions if id(c) in tests and isinstance(c, exp.Binary)]
    owners: dict[str | None, list[exp.Expr]] = {}
    for c in negated:
        column = c.left if isinstance(c.left, exp.Column) else c.right
        if isinstance(column, exp.Column):
            owners.setdefault(_owner(column, tables, columns), []).append(c)
    fits = [alias for alias in tables if len(owners.get(alias, [])) == 1
            and _fits(tree, alias, owners[alias][0], conditions, ends, tables, columns, graph, keys)]
    if len(fits) != 1:
        return None
    related = fits[0]
    test = owners[related][0]
    entity = next(alias for alias in tables if alias != related)
    rest = [c for c in conditions if c is not test]
    entity_key, related_key = ends[entity], ends[related]
    inner = exp.select(related_key.copy()).from_(tables[related].copy()).where(tests[id(test)])
    anti = exp.Not(this=exp.In(this=entity_key.copy(), query=exp.Subquery(this=inner)))
    new = tree.copy()
    new.set("joins", None)
    new.set("from_" if "from_" in tree.args else "from", exp.From(this=tables[entity].copy()))
    new.set("where", exp.Where(this=exp.and_(*rest, anti) if rest else anti))
    return new.sql(dialect=dialect)
