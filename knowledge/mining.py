"""Workload mining: what past queries of a database join, filter, group and aggregate, with counts.

TailorSQL (the seed's reference on query workloads) mines the past queries of a database into hint documents -
frequent join paths, filters and group-bys - and proposes them to the generator instead of more schema. Here
:func:`mine_workload` reads SQL (a query log, the examples file, approved feedback), resolves table aliases per
SELECT scope with sqlglot, and counts:

- joins: ``A.x = B.y`` equalities between two tables (in ON or WHERE), sides in canonical order;
- filters: ``T.col <op> literal`` comparisons, IN lists and LIKE patterns;
- group-bys: ``T.col``;
- aggregates: ``SUM(T.col)``, ``AVG(T.a * T.b)``... over resolved columns;
- answer shapes of the outermost query - the columns a listing shows, the date or figure a pick shows, how a
  list with one figure is ordered, what a dated series shows - proposed as ``presentation`` records
  (:mod:`knowledge.shape_mining`, applied by :mod:`rewrites.answer_shape`).

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

from knowledge.records import KnowledgeBase, KnowledgeRecord
from knowledge.shape_mining import ShapeCounts, mine_shapes, propose_conventions, slug, table_of


@dataclass
class WorkloadHints:
    """Counts mined from a workload; each key is normalised SQL text with resolved table names."""

    queries: int = 0
    unparsed: int = 0
    joins: Counter[str] = field(default_factory=Counter)
    filters: Counter[str] = field(default_factory=Counter)
    group_bys: Counter[str] = field(default_factory=Counter)
    aggregates: Counter[str] = field(default_factory=Counter)
    shapes: ShapeCounts = field(default_factory=ShapeCounts)
    """Answer shapes of the outermost queries (:mod:`knowledge.shape_mining`)."""

    def document(self, top: int = 10) -> str:
        """The hint document: the ``top`` most frequent items of each kind with their counts."""
        parts = [f"Workload of {self.queries} queries ({self.unparsed} unparsed)."]
        for title, counts in (("Join paths", self.joins), ("Filters", self.filters),
                              ("Group-bys", self.group_bys), ("Aggregates", self.aggregates)):
            if counts:
                parts.append(f"{title}:\n" + "\n".join(f"- {k}  ({n}x)" for k, n in counts.most_common(top)))
        return "\n".join(parts)


def _resolve(node: exp.Expr, scope: Scope) -> exp.Expr | None:
    """A copy of ``node`` with every column written ``table.column`` (None when one cannot be resolved)."""
    copy = node.copy()
    for column in list(copy.find_all(exp.Column)):
        if isinstance(column.this, exp.Star):
            continue
        table = table_of(column, scope)
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
                    mine_shapes(scope, tree, hints.shapes)
        except (SqlglotError, ValueError, KeyError, AttributeError, TypeError, RecursionError):
            hints.unparsed += 1
    return hints



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
        record_id = f"mined_{kind}_{slug(text)}"
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
    out += propose_conventions(hints.shapes, hints.filters, kb, min_count)
    return out
