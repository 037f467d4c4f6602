"""Workload mining: what past queries of a database join, filter, group and aggregate, with counts.

TailorSQL (the seed's reference on query workloads) mines the past queries of a database into hint documents -
frequent join paths, filters and group-bys - and proposes them to the generator instead of more schema. Here
:func:`mine_workload` reads SQL (a query log, the examples file, approved feedback), resolves table aliases per
SELECT scope with sqlglot, and counts:

- joins: ``A.x = B.y`` equalities between two tables (in ON or WHERE), sides in canonical order;
- filters: ``T.col <op> literal`` comparisons, IN lists and LIKE patterns;
- group-bys: ``T.col``;
- aggregates: ``SUM(T.col)``, ``AVG(T.a * T.b)``... over resolved columns;
- answer shapes of the outermost query: the columns shown when it lists rows of a table, and whether a date it
  picks rows by (``ORDER BY d .. LIMIT``, ``d = (SELECT MAX(d) ..)``) is shown - proposed as ``presentation``
  records (:mod:`tools.answer_shape`). A query with an equality to a literal on a table counts as about one
  entity of it, not as a listing (conservative: fewer listings, never a convention from a lookup).

:func:`propose_records` turns the frequent ones into *pending* knowledge records (provenance ``mined``) that a
reviewer names, edits and approves; nothing mined reaches a prompt before that.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from knowledge.list_shape import ranked_figure
from knowledge.records import KnowledgeBase, KnowledgeRecord


@dataclass
class WorkloadHints:
    """Counts mined from a workload; each key is normalised SQL text with resolved table names."""

    queries: int = 0
    unparsed: int = 0
    joins: Counter[str] = field(default_factory=Counter)
    filters: Counter[str] = field(default_factory=Counter)
    group_bys: Counter[str] = field(default_factory=Counter)
    aggregates: Counter[str] = field(default_factory=Counter)
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

    def document(self, top: int = 10) -> str:
        """The hint document: the ``top`` most frequent items of each kind with their counts."""
        parts = [f"Workload of {self.queries} queries ({self.unparsed} unparsed)."]
        for title, counts in (("Join paths", self.joins), ("Filters", self.filters),
                              ("Group-bys", self.group_bys), ("Aggregates", self.aggregates)):
            if counts:
                parts.append(f"{title}:\n" + "\n".join(f"- {k}  ({n}x)" for k, n in counts.most_common(top)))
        return "\n".join(parts)


def _table_of(column: exp.Column, scope: Scope) -> str | None:
    """The table name a column belongs to in ``scope`` (None: a derived table, or ambiguous)."""
    tables = {alias: src for alias, src in scope.sources.items() if isinstance(src, exp.Table)}
    if column.table:
        source = tables.get(column.table) or next(
            (s for a, s in tables.items() if a.lower() == column.table.lower()), None)
        return source.name if source is not None else None
    return next(iter(tables.values())).name if len(tables) == 1 and len(scope.sources) == 1 else None


def _resolve(node: exp.Expr, scope: Scope) -> exp.Expr | None:
    """A copy of ``node`` with every column written ``table.column`` (None when one cannot be resolved)."""
    copy = node.copy()
    for column in list(copy.find_all(exp.Column)):
        if isinstance(column.this, exp.Star):
            continue
        table = _table_of(column, scope)
        if table is None:
            return None
        column.set("table", exp.to_identifier(table))
    return copy


def _sql(node: exp.Expr, dialect: str) -> str:
    return " ".join(node.sql(dialect=dialect).split())


def _mine_scope(scope: Scope, hints: WorkloadHints, dialect: str) -> None:
    select = scope.expression
    if not isinstance(select, exp.Select):
        return
    conditions: list[exp.Expr] = []
    for join in select.args.get("joins") or []:
        if join.args.get("on") is not None:
            conditions += list(join.args["on"].flatten()) if isinstance(join.args["on"], exp.And) else [join.args["on"]]
    where = select.args.get("where")
    if where is not None:
        conditions += list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    for cond in conditions:
        if isinstance(cond, exp.EQ) and isinstance(cond.left, exp.Column) and isinstance(cond.right, exp.Column):
            left, right = _resolve(cond.left, scope), _resolve(cond.right, scope)
            if left is not None and right is not None:
                sides = sorted([_sql(left, dialect), _sql(right, dialect)])
                if sides[0].split(".")[0] != sides[1].split(".")[0]:
                    hints.joins[f"{sides[0]} = {sides[1]}"] += 1
            continue
        if isinstance(cond, exp.Predicate) and any(True for _ in cond.find_all(exp.Literal)) and not any(
                True for _ in cond.find_all(exp.Select)):
            resolved = _resolve(cond, scope)
            if resolved is not None and any(True for _ in resolved.find_all(exp.Column)):
                hints.filters[_sql(resolved, dialect)] += 1
    group = select.args.get("group")
    for key in group.expressions if group is not None else []:
        resolved = _resolve(key, scope) if isinstance(key, exp.Column) else None
        if resolved is not None:
            hints.group_bys[_sql(resolved, dialect)] += 1
    for agg in select.find_all(exp.AggFunc):
        if any(True for _ in agg.find_all(exp.Column)):
            resolved = _resolve(agg, scope)
            if resolved is not None:
                hints.aggregates[_sql(resolved, dialect)] += 1


def _aggregates(select: exp.Select) -> bool:
    return select.args.get("group") is not None or any(
        agg.find_ancestor(exp.Window, exp.Select) is select for p in select.expressions for agg in p.find_all(exp.AggFunc))


def _mine_shape(scope: Scope, hints: WorkloadHints) -> None:
    """Answer conventions of an outermost query: which columns it shows when it lists or picks rows."""
    select = scope.expression
    if not isinstance(select, exp.Select) or _aggregates(select) or select.args.get("distinct"):
        return
    shown = {f"{t}.{c.name}" for p in select.expressions
             for c in [p.this if isinstance(p, exp.Alias) else p]
             if isinstance(c, exp.Column) and (t := _table_of(c, scope))}
    tables = {src.name for src in scope.sources.values() if isinstance(src, exp.Table)}
    where = select.args.get("where")
    conditions = (list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]) if where else []
    pinned = {t.lower() for cond in conditions if isinstance(cond, exp.EQ)
              for col, other in ((cond.left, cond.right), (cond.right, cond.left))
              if isinstance(col, exp.Column) and isinstance(other, exp.Literal) and (t := _table_of(col, scope))}
    for table in tables - {t for t in tables if t.lower() in pinned}:
        hints.listings[table] += 1
        for column in shown:
            if column.split(".")[0].lower() == table.lower():
                hints.listed_columns[column] += 1
    picked: list[exp.Column] = []
    order = select.args.get("order")
    if order is not None and select.args.get("limit") is not None and isinstance(order.expressions[0].this, exp.Column):
        picked.append(order.expressions[0].this)
    for cond in conditions:
        if isinstance(cond, exp.EQ) and isinstance(cond.left, exp.Column) and isinstance(cond.right, exp.Subquery):
            picked.append(cond.left)
    for col in picked:
        owner = _table_of(col, scope)
        if owner is not None:
            key = f"{owner}.{col.name}"
            hints.picks[key] += 1
            hints.picked_shown[key] += key in shown


def _mine_ranking(tree: exp.Expr, hints: WorkloadHints) -> None:
    """Count a list with one computed figure and whether it is ordered by the figure, largest first.

    Only grouped queries, or ones without an equality on a literal, count: ``WHERE TICKER = 'SAP'`` returns
    one row, whose order says nothing.
    """
    if not isinstance(tree, exp.Select) or tree.args.get("limit") is not None:
        return
    where = tree.args.get("where")
    if tree.args.get("group") is None and where is not None and any(
            isinstance(eq.expression, exp.Literal) or isinstance(eq.this, exp.Literal) for eq in where.find_all(exp.EQ)):
        return
    shape = ranked_figure(tree)
    if shape is None:
        return
    hints.ranked_lists += 1
    order = tree.args.get("order")
    first = order.expressions[0] if order is not None and order.expressions else None
    figure = shape[0]
    if isinstance(first, exp.Ordered) and first.args.get("desc") and (
            first.this == figure or (figure.alias and isinstance(first.this, exp.Column)
                                     and first.this.name == figure.alias)):
        hints.ranked_desc += 1


def mine_workload(statements: Iterable[str], dialect: str = "sqlite") -> WorkloadHints:
    """Count the joins, filters, group-bys and aggregates of ``statements`` (see the module docstring).

    Statements that do not parse are counted in ``unparsed`` and skipped; never raises.
    """
    hints = WorkloadHints()
    for sql in statements:
        if not sql.strip():
            continue
        hints.queries += 1
        try:
            tree = sqlglot.parse_one(sql, read=dialect)
            for scope in traverse_scope(tree):
                _mine_scope(scope, hints, dialect)
                if scope.expression is tree:
                    _mine_shape(scope, hints)
                    _mine_ranking(tree, hints)
        except (SqlglotError, ValueError, KeyError, AttributeError, TypeError, RecursionError):
            hints.unparsed += 1
    return hints


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60] or "item"


def propose_records(hints: WorkloadHints, kb: KnowledgeBase, *, min_count: int = 2, top: int = 15
                    ) -> list[KnowledgeRecord]:
    """Pending ``mined`` records for the frequent aggregates (metrics), filters (terms) and joins (rules).

    At most ``top`` of each kind seen at least ``min_count`` times; ids are ``mined_<kind>_<slug>`` and records
    whose id, or whose SQL, the knowledge base already has are skipped (a re-run proposes nothing twice).
    Names are the SQL text: the reviewer gives each the business words questions use before approving it.
    """
    known_sql = {" ".join((r.sql or "").split()) for r in kb.records} | {r.definition for r in kb.records}
    out: list[KnowledgeRecord] = []

    def add(kind: str, text: str, count: int, **fields: object) -> None:
        record_id = f"mined_{kind}_{_slug(text)}"
        if count < min_count or kb.get(record_id) is not None or text in known_sql:
            return
        tables = sorted({c.split(".")[0] for c in re.findall(r"\b\w+\.\w+\b", text)})
        out.append(KnowledgeRecord.model_validate({
            "id": record_id, "name": text[:120], "tables": tables, "provenance": "mined", "status": "pending",
            "note": f"seen in {count} of {hints.queries} queries", **fields}))

    for text, count in hints.aggregates.most_common(top):
        add("metric", text, count, type="metric", sql=text, definition=f"Aggregate used by past queries: {text}.")
    for text, count in hints.filters.most_common(top):
        add("term", text, count, type="term", sql=text, definition=f"Filter used by past queries: {text}.")
    for text, count in hints.joins.most_common(top):
        add("join", text, count, type="rule", sql=text, definition=f"Join used by past queries: {text}.")
    out += _propose_conventions(hints, kb, min_count)
    return out


ISO_DATE = re.compile(r"'\d{4}-\d{2}-\d{2}'")
CONVENTION_SHARE = 0.8
"""A column becomes a proposed answer convention when at least this share of the queries it applies to show it."""


def _propose_conventions(hints: WorkloadHints, kb: KnowledgeBase, min_count: int) -> list[KnowledgeRecord]:
    """Pending ``presentation`` records: per table, the columns most listings show; the dates picks show.

    A picked column counts as a date when some workload filter compares it with an ISO date literal.
    """
    out: list[KnowledgeRecord] = []
    for table, n in sorted(hints.listings.items()):
        columns = sorted(c for c, k in hints.listed_columns.items()
                         if c.split(".")[0].lower() == table.lower() and n >= min_count and k >= CONVENTION_SHARE * n)
        record_id = f"mined_identify_{_slug(table)}"
        if columns and kb.get(record_id) is None and len(columns) <= 3:
            out.append(KnowledgeRecord(
                id=record_id, type="presentation", convention="identify", name=f"{table} identity",
                definition=f"Listed rows of {table} show {', '.join(columns)}.", columns=columns,
                provenance="mined", status="pending", note=f"shown by at least {CONVENTION_SHARE:.0%} of {n} listings"))
    dated = {c.lower() for f in hints.filters if ISO_DATE.search(f) for c in re.findall(r"\b\w+\.\w+\b", f)}
    dates = sorted(c for c, n in hints.picks.items() if c.lower() in dated and n >= min_count
                   and hints.picked_shown[c] >= CONVENTION_SHARE * n)
    if dates and kb.get("mined_picked_date") is None:
        out.append(KnowledgeRecord(
            id="mined_picked_date", type="presentation", convention="picked_date", name="date of a picked value",
            definition=f"Rows picked by {', '.join(dates)} show that date.", columns=dates, provenance="mined",
            status="pending", note=f"shown by at least {CONVENTION_SHARE:.0%} of the queries picking by them"))
    ranked = hints.ranked_lists
    if (ranked >= min_count and hints.ranked_desc >= CONVENTION_SHARE * ranked and kb.get("mined_rank_measure") is None
            and not any(r.convention == "rank_measure" for r in kb.records)):
        out.append(KnowledgeRecord(
            id="mined_rank_measure", type="presentation", convention="rank_measure", name="ranked figures",
            definition="A list with one computed figure per row is ordered by that figure, largest first.",
            provenance="mined", status="pending",
            note=f"{hints.ranked_desc} of {ranked} such lists in the workload are ordered so"))
    return out
