"""Answer conventions mined from a workload: what the outermost queries of past SQL show, and how they order.

Counted per outermost query (:func:`mine_shapes`) and proposed as pending ``presentation`` records
(:func:`propose_conventions`, :mod:`rewrites.answer_shape` applies approved ones):

- ``identify``: the columns shown when a query lists rows of a table (no aggregate, no entity pinned by an
  equality on a literal - a lookup is never a listing);
- ``picked_date``: whether a date the query picks rows by (``ORDER BY d .. LIMIT``, ``d = (SELECT MAX(d) ..)``)
  is shown; a column is a date when some workload filter compares it with an ISO date literal;
- ``rank_measure``: whether a list with one computed figure (:mod:`knowledge.list_shape`) is ordered by it,
  largest first (grouped lists, or lists without an equality on a literal);
- ``ranked_by``: whether a top-n pick by a figure (not a date) shows the figure;
- ``series``: whether a window computed over a date (in the query or its one derived table) is shown with that
  date and the column the window reads.

A convention is proposed when at least :data:`CONVENTION_SHARE` of the queries it applies to follow it, and at
least ``min_count`` queries apply.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import sqlglot.expressions as exp
from sqlglot.optimizer.scope import Scope

from knowledge.list_shape import ranked_figure, time_axis
from knowledge.records import KnowledgeBase, KnowledgeRecord

ISO_DATE = re.compile(r"'\d{4}-\d{2}-\d{2}'")
CONVENTION_SHARE = 0.8
"""A convention is proposed when at least this share of the queries it applies to follow it."""


@dataclass
class ShapeCounts:
    """Counts of answer shapes over a workload's outermost queries (keys ``table.column`` or ``table``)."""

    listings: Counter[str] = field(default_factory=Counter)
    """Table -> outermost queries listing rows of several of its entities (no aggregate, no entity pinned)."""
    listed_columns: Counter[str] = field(default_factory=Counter)
    """``table.column`` -> listings of its table that show the column."""
    picks: Counter[str] = field(default_factory=Counter)
    """``table.column`` -> outermost queries picking rows by that column (``ORDER BY .. LIMIT``, ``= (SELECT ..)``)."""
    picked_shown: Counter[str] = field(default_factory=Counter)
    """``table.column`` -> picks that also show the column."""
    ranked_lists: int = 0
    """Outermost queries without LIMIT listing labels with one computed figure (:mod:`knowledge.list_shape`)."""
    ranked_desc: int = 0
    """Those of them ordered by the figure first, descending."""
    rank_picks: int = 0
    """Top-n picks (ORDER BY a figure that is not a date, with LIMIT)."""
    rank_shown: int = 0
    """Those of them showing the figure."""
    series: Counter[str] = field(default_factory=Counter)
    """Date ``table.column`` -> queries showing a window ordered by it."""
    series_shown: Counter[str] = field(default_factory=Counter)
    """Date ``table.column`` -> those of them showing the date and the column the window reads."""


def slug(text: str) -> str:
    """``text`` as an id fragment: lower-case letters, digits and underscores, at most 60 characters."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60] or "item"


def table_of(column: exp.Column, scope: Scope) -> str | None:
    """The table name a column belongs to in ``scope`` (None: a derived table, or ambiguous)."""
    tables = {alias: src for alias, src in scope.sources.items() if isinstance(src, exp.Table)}
    if column.table:
        source = tables.get(column.table) or next(
            (s for a, s in tables.items() if a.lower() == column.table.lower()), None)
        return source.name if source is not None else None
    return next(iter(tables.values())).name if len(tables) == 1 and len(scope.sources) == 1 else None


def mine_shapes(scope: Scope, tree: exp.Expr, counts: ShapeCounts) -> None:
    """Count the answer shapes of ``tree``, an outermost query, whose own scope is ``scope``."""
    _mine_listing(scope, counts)
    if isinstance(tree, exp.Select):
        _mine_ranking(tree, counts)
        _mine_rank_pick(tree, counts)
        _mine_series(scope, tree, counts)


def _aggregates(select: exp.Select) -> bool:
    return select.args.get("group") is not None or any(
        agg.find_ancestor(exp.Window, exp.Select) is select for p in select.expressions for agg in p.find_all(exp.AggFunc))


def _mine_listing(scope: Scope, counts: ShapeCounts) -> None:
    """Which columns the query shows when it lists or picks rows (``identify``, ``picked_date``)."""
    select = scope.expression
    if not isinstance(select, exp.Select) or _aggregates(select) or select.args.get("distinct"):
        return
    shown = {f"{t}.{c.name}" for p in select.expressions
             for c in [p.this if isinstance(p, exp.Alias) else p]
             if isinstance(c, exp.Column) and (t := table_of(c, scope))}
    tables = {src.name for src in scope.sources.values() if isinstance(src, exp.Table)}
    where = select.args.get("where")
    conditions = (list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]) if where else []
    pinned = {t.lower() for cond in conditions if isinstance(cond, exp.EQ)
              for col, other in ((cond.left, cond.right), (cond.right, cond.left))
              if isinstance(col, exp.Column) and isinstance(other, exp.Literal) and (t := table_of(col, scope))}
    for table in tables - {t for t in tables if t.lower() in pinned}:
        counts.listings[table] += 1
        for column in shown:
            if column.split(".")[0].lower() == table.lower():
                counts.listed_columns[column] += 1
    picked: list[exp.Column] = []
    order = select.args.get("order")
    if order is not None and select.args.get("limit") is not None and isinstance(order.expressions[0].this, exp.Column):
        picked.append(order.expressions[0].this)
    for cond in conditions:
        if isinstance(cond, exp.EQ) and isinstance(cond.left, exp.Column) and isinstance(cond.right, exp.Subquery):
            picked.append(cond.left)
    for col in picked:
        owner = table_of(col, scope)
        if owner is not None:
            key = f"{owner}.{col.name}"
            counts.picks[key] += 1
            counts.picked_shown[key] += key in shown


def _mine_ranking(select: exp.Select, counts: ShapeCounts) -> None:
    """A list with one computed figure (no LIMIT), and whether it is ordered by the figure, largest first.

    Only grouped queries, or ones without an equality on a literal, count: ``WHERE TICKER = 'SAP'`` returns one
    row, whose order says nothing.
    """
    if select.args.get("limit") is not None:
        return
    where = select.args.get("where")
    if select.args.get("group") is None and where is not None and any(
            isinstance(eq.expression, exp.Literal) or isinstance(eq.this, exp.Literal) for eq in where.find_all(exp.EQ)):
        return
    shape = ranked_figure(select)
    if shape is None:
        return
    counts.ranked_lists += 1
    order = select.args.get("order")
    first = order.expressions[0] if order is not None and order.expressions else None
    figure = shape[0]
    if isinstance(first, exp.Ordered) and first.args.get("desc") and (
            first.this == figure or (figure.alias and isinstance(first.this, exp.Column)
                                     and first.this.name == figure.alias)):
        counts.ranked_desc += 1


def _mine_rank_pick(select: exp.Select, counts: ShapeCounts) -> None:
    """A top-n pick by a figure that is not a date, and whether the figure is shown (``ranked_by``)."""
    order = select.args.get("order")
    if order is None or not order.expressions or select.args.get("limit") is None:
        return
    key = order.expressions[0].this
    if isinstance(key, exp.Literal) or time_axis(key):
        return
    counts.rank_picks += 1
    texts = {(p.this if isinstance(p, exp.Alias) else p).sql().lower() for p in select.expressions}
    names = {p.alias_or_name.lower() for p in select.expressions}
    counts.rank_shown += key.sql().lower() in texts or (isinstance(key, exp.Column) and key.name.lower() in names)


def _mine_series(scope: Scope, select: exp.Select, counts: ShapeCounts) -> None:
    """A window over a date in the query or its one derived table, and whether date and input are shown."""
    inner_scope = scope
    if not any(p.find(exp.Window) for p in select.expressions):
        derived = [s for s in scope.sources.values() if isinstance(s, Scope)]
        if len(derived) != 1 or not isinstance(derived[0].expression, exp.Select):
            return
        inner_scope = derived[0]
    inner = inner_scope.expression
    window = next((w for p in inner.expressions for w in p.find_all(exp.Window)), None)
    order = window.args.get("order") if window is not None else None
    date = order.expressions[0].this if order is not None and order.expressions else None
    if window is None or not isinstance(date, exp.Column) or not time_axis(date):
        return
    owner = table_of(date, inner_scope)
    if owner is None:
        return
    key = f"{owner}.{date.name}"
    read = window.this.find(exp.Column) if isinstance(window.this, exp.Func) else None
    names = {p.alias_or_name.lower() for p in select.expressions}
    counts.series[key] += 1
    counts.series_shown[key] += all(c.name.lower() in names for c in (date, read) if c is not None)


def propose_conventions(counts: ShapeCounts, filters: Counter[str], kb: KnowledgeBase,
                        min_count: int) -> list[KnowledgeRecord]:
    """Pending ``presentation`` records for the conventions the workload follows (see the module docstring).

    ``filters`` are the workload's mined filters (they tell which picked columns are dates). Records whose id
    the knowledge base has, or whose convention it already has approved or pending, are not proposed again.
    """
    out: list[KnowledgeRecord] = []
    for table, n in sorted(counts.listings.items()):
        columns = sorted(c for c, k in counts.listed_columns.items()
                         if c.split(".")[0].lower() == table.lower() and n >= min_count and k >= CONVENTION_SHARE * n)
        record_id = f"mined_identify_{slug(table)}"
        if columns and kb.get(record_id) is None and len(columns) <= 3:
            out.append(KnowledgeRecord(
                id=record_id, type="presentation", convention="identify", name=f"{table} identity",
                definition=f"Listed rows of {table} show {', '.join(columns)}.", columns=columns,
                provenance="mined", status="pending", note=f"shown by at least {CONVENTION_SHARE:.0%} of {n} listings"))
    dated = {c.lower() for f in filters if ISO_DATE.search(f) for c in re.findall(r"\b\w+\.\w+\b", f)}
    dates = sorted(c for c, n in counts.picks.items() if c.lower() in dated and n >= min_count
                   and counts.picked_shown[c] >= CONVENTION_SHARE * n)
    if dates and kb.get("mined_picked_date") is None:
        out.append(KnowledgeRecord(
            id="mined_picked_date", type="presentation", convention="picked_date", name="date of a picked value",
            definition=f"Rows picked by {', '.join(dates)} show that date.", columns=dates, provenance="mined",
            status="pending", note=f"shown by at least {CONVENTION_SHARE:.0%} of the queries picking by them"))
    has = {r.convention for r in kb.records if r.type == "presentation"}
    if _follows(counts.ranked_desc, counts.ranked_lists, min_count) and "rank_measure" not in has:
        out.append(KnowledgeRecord(
            id="mined_rank_measure", type="presentation", convention="rank_measure", name="ranked figures",
            definition="A list with one computed figure per row is ordered by that figure, largest first.",
            provenance="mined", status="pending",
            note=f"{counts.ranked_desc} of {counts.ranked_lists} such lists in the workload are ordered so"))
    if _follows(counts.rank_shown, counts.rank_picks, min_count) and "ranked_by" not in has:
        out.append(KnowledgeRecord(
            id="mined_ranked_by", type="presentation", convention="ranked_by", name="figure of a top-n pick",
            definition="A top-n pick shows the figure it is ranked by.", provenance="mined", status="pending",
            note=f"{counts.rank_shown} of {counts.rank_picks} top-n picks in the workload show it"))
    series = sorted(c for c, n in counts.series.items() if _follows(counts.series_shown[c], n, min_count))
    if series and "series" not in has:
        out.append(KnowledgeRecord(
            id="mined_series", type="presentation", convention="series", name="dated series",
            definition=f"A window computed over {', '.join(series)} shows the date and the column it reads.",
            columns=series, provenance="mined", status="pending",
            note=f"shown by at least {CONVENTION_SHARE:.0%} of the series over these dates in the workload"))
    return out


def _follows(following: int, applying: int, min_count: int) -> bool:
    return applying >= min_count and following >= CONVENTION_SHARE * applying
