"""Answer conventions of a database applied to a candidate's projection: which columns every answer shows.

A team that reads a database daily has conventions for what an answer shows: a list of stocks names each stock
(ticker and company name), a price picked as "the latest" or "as of" a date shows the date it was picked from.
A small model gets the rows right and leaves such context out ("current price of ASML" answered with the bare
number); the reader then cannot check the answer, and strict execution accuracy counts it wrong. The
conventions are knowledge records of type ``presentation`` (:mod:`knowledge.records`), reviewed like the others;
this module adds the columns they name to a query's SELECT list, deterministically, without a model call:

- ``identify``: the query lists rows of several entities of the record's table (not one entity pinned by an
  equality on its key or an identifying column) and shows none or only some of the identifying columns -> the
  missing ones are prepended. Grouped queries get them only when grouped by the table's key or one of the
  columns (then they are added to GROUP BY too, which keeps the groups). Such a listing is also put in a stable
  order: by the first identifying column when it has no ORDER BY (and no LIMIT), or with that column as the
  last key of its ORDER BY, which only orders ties.
- ``rank_measure``: a list with one computed figure and no ORDER BY is ordered by the figure, largest first
  (:mod:`rewrites.answer_order`); applied before ``identify``, whose column then only orders ties.
- ``ranked_by``: a top-n pick (``ORDER BY x DESC LIMIT n``) shows ``x`` (:mod:`rewrites.answer_order`).
- ``series``: a window over one of the record's dates shows that date and the column the window reads
  (:mod:`rewrites.answer_series`).
- ``picked_date``: the query picks the rows by one of the record's date columns (``ORDER BY d ... LIMIT n``, or
  ``d = (subquery)`` such as the latest date) and does not show it -> it is prepended.

Adding columns never changes the rows (no DISTINCT query is touched, aggregates only as above), so the result
stays the same answer with its context; BAR-SQL binds metrics to their mandatory constraints in the same spirit
(the knowledge decides the shape, not the model). Never raises: an SQL it cannot parse comes back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from database.sql_sources import parse_select, tables
from knowledge.records import KnowledgeRecord
from rewrites.answer_order import rank_by_figure, show_rank_key
from rewrites.answer_series import show_series_inputs


@dataclass(frozen=True)
class Convention:
    """One presentation record in the form the rewrite uses.

    Attributes:
        kind: ``identify``, ``picked_date``, ``rank_measure``, ``ranked_by`` or ``series``.
        columns: ``(table, column)`` pairs as the database spells them; for ``identify`` all of one table, in
            display order. Matching ignores case.
    """

    kind: str
    columns: tuple[tuple[str, str], ...]


def conventions_of(records: list[KnowledgeRecord]) -> list[Convention]:
    """The conventions of approved ``presentation`` records (other records are ignored)."""
    return [Convention(r.convention, tuple((t, c) for t, c in (col.split(".", 1) for col in r.columns)))
            for r in records if r.type == "presentation" and r.convention]


def apply_conventions(sql: str, dialect: str, conventions: list[Convention],
                      primary_keys: dict[str, list[str]] | None = None) -> str:
    """``sql`` with the columns the conventions ask for added to its outermost SELECT (unchanged when none apply).

    ``primary_keys`` maps lower-cased table names to their key columns (for grouped queries and entity pins).
    """
    if not conventions:
        return sql
    tree = parse_select(sql, dialect)
    if tree is None or tree.args.get("distinct") or any(
            isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star) for p in tree.expressions):
        return sql
    keys = {t.lower(): [c.lower() for c in cols] for t, cols in (primary_keys or {}).items()}
    changed = False
    order = {"rank_measure": 0, "ranked_by": 2}  # ranking before tie-breaks; a pick's date before its figure
    for convention in sorted(conventions, key=lambda c: order.get(c.kind, 1)):
        if convention.kind == "rank_measure":
            changed |= not _one_entity(tree, conventions, keys) and rank_by_figure(tree, dialect)
        elif convention.kind == "ranked_by":
            changed |= show_rank_key(tree)
        elif convention.kind == "series":
            changed |= show_series_inputs(tree, convention.columns)
        elif convention.kind == "identify":
            changed |= _identify(tree, convention, keys, dialect)
        elif convention.kind == "picked_date":
            changed |= _picked_date(tree, convention)
    return tree.sql(dialect=dialect) if changed else sql


def _one_entity(select: exp.Select, conventions: list[Convention], keys: dict[str, list[str]]) -> bool:
    """Does ``select`` pin one entity of an ``identify`` table (``TICKER = 'AAPL'``)? Its one row needs no order."""
    where = select.args.get("where")
    if where is None:
        return False
    for convention in conventions:
        if convention.kind != "identify":
            continue
        table = convention.columns[0][0].lower()
        names = _aliases(select).get(table)
        pins = {c.lower() for _, c in convention.columns} | set(keys.get(table, []))
        if names and _pinned(where.this, names, pins, _table_count(select)):
            return True
    return False


def _aliases(select: exp.Select) -> dict[str, list[str]]:
    """Lower-cased table name -> the names it is referred by in ``select``'s own FROM and JOINs."""
    found: dict[str, list[str]] = {}
    for table in tables(select):
        found.setdefault(table.name.lower(), []).append(table.alias_or_name)
    return found


def _refers(column: exp.Column, names: list[str], table_count: int) -> bool:
    """Does ``column`` belong to a table referred by one of ``names`` (unqualified counts with a single table)?"""
    qualifier = column.table
    if not qualifier:
        return table_count == 1
    return qualifier.lower() in {n.lower() for n in names}


def _shown(select: exp.Select, names: list[str], column: str) -> bool:
    """Does the SELECT list show ``column`` of the table referred by ``names`` (bare or aliased)?"""
    for projection in select.expressions:
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(inner, exp.Column) and inner.name.lower() == column and (
                not inner.table or inner.table.lower() in {n.lower() for n in names}):
            return True
    return False


def _collapses(select: exp.Select) -> bool:
    """Does ``select`` aggregate rows (an aggregate of its own, outside window functions and subqueries)?"""
    for projection in select.expressions:
        for agg in projection.find_all(exp.AggFunc):
            if agg.find_ancestor(exp.Window, exp.Select) is select:
                return True
    return False


def _table_count(select: exp.Select) -> int:
    return 1 + len(select.args.get("joins") or [])


def _identify(select: exp.Select, convention: Convention, keys: dict[str, list[str]], dialect: str) -> bool:
    table = convention.columns[0][0].lower()
    names = _aliases(select).get(table)
    if not names:
        return False
    count = _table_count(select)
    wanted = [c for t, c in convention.columns if t.lower() == table]
    pins = {c.lower() for c in wanted} | set(keys.get(table, []))
    where = select.args.get("where")
    if where is not None and _pinned(where.this, names, pins, count):
        return False
    group = select.args.get("group")
    grouped: set[str] = set()
    if group is not None:
        grouped = {e.name.lower() for e in group.expressions if isinstance(e, exp.Column) and _refers(e, names, count)}
        if not grouped & pins:
            return False
    elif _collapses(select):
        return False
    missing = [c for c in wanted if not _shown(select, names, c.lower())]
    if missing:
        added = [exp.column(c, table=_qualifier(select, names)) for c in missing]
        select.set("expressions", added + list(select.expressions))
        if group is not None:
            group.set("expressions", list(group.expressions) + [a.copy() for a in added
                                                               if a.name.lower() not in grouped])
    return _order_by_identity(select, names, wanted[0], dialect) or bool(missing)


def _order_by_identity(select: exp.Select, names: list[str], column: str, dialect: str) -> bool:
    """Put a listing in a stable order by the first identifying ``column``; the rows stay the same.

    Without ORDER BY (and without LIMIT) it becomes the order; an ORDER BY without it gets it as its last key,
    so only ties are ordered by it.
    """
    order = select.args.get("order")
    if order is None and select.args.get("limit") is not None:
        return False
    if order is not None and any(isinstance(o.this, exp.Column) and o.this.name.lower() == column.lower()
                                 for o in order.expressions):
        return False
    key = exp.column(column, table=_qualifier(select, names)).sql(dialect=dialect)
    select.order_by(key, append=True, dialect=dialect, copy=False)  # the dialect's default null order
    return True


def _qualifier(select: exp.Select, names: list[str]) -> str | None:
    """How an added column is qualified: like the query's own columns (None when it qualifies none)."""
    qualified = _table_count(select) > 1 or any(c.table for c in select.find_all(exp.Column))
    return names[0] if qualified else None


def _pinned(condition: exp.Expression, names: list[str], pins: set[str], count: int) -> bool:
    """Does a conjunct of ``condition`` fix one entity (``key = literal``, ``name IN ('x')``)?"""
    conjuncts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    for part in conjuncts:
        if isinstance(part, exp.Paren):
            part = part.unnest()
        if isinstance(part, exp.EQ):
            sides = (part.this, part.expression)
            for side, other in (sides, sides[::-1]):
                if (isinstance(side, exp.Column) and side.name.lower() in pins and _refers(side, names, count)
                        and isinstance(other, exp.Literal)):
                    return True
        if isinstance(part, exp.In) and isinstance(part.this, exp.Column) and part.this.name.lower() in pins \
                and _refers(part.this, names, count) and len(part.expressions) == 1:
            return True
    return False


def _picked_date(select: exp.Select, convention: Convention) -> bool:
    if select.args.get("group") is not None or _collapses(select):
        return False
    aliases = _aliases(select)
    count = _table_count(select)
    for table, column in convention.columns:
        names = aliases.get(table.lower())
        if not names or _shown(select, names, column.lower()):
            continue
        if _picks(select, names, column.lower(), count):
            select.set("expressions", [exp.column(column, table=_qualifier(select, names)), *select.expressions])
            return True
    return False


def _picks(select: exp.Select, names: list[str], column: str, count: int) -> bool:
    """Are ``select``'s rows chosen by ``column``: first ORDER BY key with a LIMIT, or ``column = (subquery)``?"""
    order = select.args.get("order")
    if order is not None and select.args.get("limit") is not None and order.expressions:
        first = order.expressions[0].this
        if isinstance(first, exp.Column) and first.name.lower() == column and _refers(first, names, count):
            return True
    where = select.args.get("where")
    if where is None:
        return False
    conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    for part in conjuncts:
        if isinstance(part, exp.EQ):
            sides = (part.this, part.expression)
            for side, other in (sides, sides[::-1]):
                if (isinstance(side, exp.Column) and side.name.lower() == column and _refers(side, names, count)
                        and isinstance(other, exp.Subquery | exp.Select)):
                    return True
    return False
