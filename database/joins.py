"""Foreign-key join graph: bridge tables and readable join paths between retrieved tables.

The graph is undirected (a join works both ways) but every edge remembers its direction: from the child table
(holding the foreign key) "up" to the parent it references. Connecting the chosen tables is a Steiner-tree
problem; we use the classic greedy approximation (Takahashi & Matsuyama, 1980): terminals are taken in rank
order and each is joined to the tree built so far by a cheapest path (Dijkstra).

Edge cost is 1 per join, plus :data:`LOOKUP_PENALTY` when a path goes up to a *lookup* parent (a table that
references nothing itself, e.g. ``currencies``) and straight back down (``A -> lookup <- B``). Two tables that
merely share a code table (``EQ_MSTR.TRD_CCY -> currencies <- indices.currency_code``) are rarely what a
question means, whereas a link table both reference (``EQ_MSTR <- IDX_CMP -> indices``), a shared entity
(``EQ_PX_D -> EQ_MSTR <- IDX_CMP``) or a chain (``EQ_PX_D -> EQ_MSTR -> exchanges``) usually is.
No networkx: plain Dijkstra over ``(table, arrived_going_up)`` states.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

LOOKUP_PENALTY = 1.5
"""Extra cost of an ``up``-then-``down`` turn at a table without foreign keys of its own (two children joined
through a shared code table); 1.5 makes a 3-join path through real entities win over such a 2-join path."""

MAX_HOPS = 3
"""Default cap on joins per connecting path (at most ``MAX_HOPS - 1`` bridge tables per terminal)."""


@dataclass(frozen=True)
class JoinEdge:
    """One foreign key seen from ``table``: ``condition`` joins it to ``other``.

    ``up`` is True when ``table`` is the child (it holds the foreign key).
    """

    other: str
    condition: str
    up: bool


@dataclass
class JoinGraph:
    """Undirected FK multigraph: ``adj[table]`` lists the :class:`JoinEdge` of every FK touching ``table``.

    ``names`` maps lower-cased names to the spelling used in ``adj`` (FK targets are matched case-insensitively,
    as SQLite and Oracle resolve them).
    """

    adj: dict[str, list[JoinEdge]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    children: set[str] = field(default_factory=set)
    """Tables holding at least one foreign key (the others are lookup/root tables)."""

    def canonical(self, table: str) -> str | None:
        """The graph's spelling of ``table`` (case-insensitive), or None when unknown."""
        return self.names.get(table.lower())

    def conditions(self, a: str, b: str) -> list[str]:
        """Distinct join conditions between tables ``a`` and ``b`` (empty when they are not adjacent)."""
        return list(dict.fromkeys(e.condition for e in self.adj.get(a, []) if e.other == b))


@dataclass
class JoinTree:
    """Result of connecting terminals: the bridge tables and the tree's edges.

    ``bridges``: tables added only to join, in discovery order; the edges are ``(a, b)`` pairs in the order
    they were added.
    """

    bridges: list[str] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)


def _resolve_ref(ref: str, names: Mapping[str, str]) -> tuple[str, str] | None:
    """Split ``"REF_TABLE.REF_COLS"`` into (table, columns) by the longest known table-name prefix."""
    low = ref.lower()
    best = None
    for key, name in names.items():
        if low.startswith(key + ".") and (best is None or len(key) > len(best[0])):
            best = (key, name)
    return None if best is None else (best[1], ref[len(best[0]) + 1 :])


def _condition(child: str, cols: str, parent: str, ref_cols: str) -> str:
    """``"child.c1 = parent.r1 AND ..."`` for comma-separated column lists (composite keys)."""
    left = [c.strip() for c in cols.split(",") if c.strip()]
    right = [c.strip() for c in ref_cols.split(",") if c.strip()] or left
    return " AND ".join(f"{child}.{c} = {parent}.{r}" for c, r in zip(left, right, strict=False))


def join_graph(tables_fk: Mapping[str, Sequence[tuple[str, str]]]) -> JoinGraph:
    """Build the FK graph of a database.

    Args:
        tables_fk: every table of the database (also those without FKs) mapped to its foreign keys, one
            ``(columns, "REF_TABLE.REF_COLUMNS")`` tuple per key; composite keys list columns comma-separated,
            e.g. ``("EQ_ID", "EQ_MSTR.EQ_ID")`` or ``("a,b", "T.x,y")``. An empty reference column list means
            "same names as the child's columns".

    Returns:
        A :class:`JoinGraph`. Keys to unknown tables and self-references are ignored (they connect nothing).
    """
    names = {t.lower(): t for t in tables_fk}
    graph = JoinGraph(adj={t: [] for t in tables_fk}, names=names)
    for child, fks in tables_fk.items():
        for cols, ref in fks:
            resolved = _resolve_ref(ref, names)
            if resolved is None or resolved[0] == child:
                continue
            parent, ref_cols = resolved
            cond = _condition(child, cols, parent, ref_cols)
            graph.adj[child].append(JoinEdge(parent, cond, up=True))
            graph.adj[parent].append(JoinEdge(child, cond, up=False))
            graph.children.add(child)
    for edges in graph.adj.values():
        edges.sort(key=lambda e: (e.other.lower(), e.condition))
    return graph


def _cheapest_path(start: str, targets: set[str], graph: JoinGraph, max_hops: int) -> list[str] | None:
    """Cheapest path (list of tables, ``start`` first, a target last) of at most ``max_hops`` joins, or None.

    Dijkstra over states ``(table, arrived_going_up)``; ties broken by hop count, then table names.
    """
    heap: list[tuple[float, int, tuple[str, ...], bool]] = [(0.0, 0, (start,), False)]
    settled: set[tuple[str, bool]] = set()
    while heap:
        cost, hops, path, arrived_up = heapq.heappop(heap)
        node = path[-1]
        if node in targets and hops > 0:
            return list(path)
        if (node, arrived_up) in settled or hops >= max_hops:
            continue
        settled.add((node, arrived_up))
        for edge in graph.adj.get(node, []):
            if edge.other in path:
                continue
            lookup_turn = arrived_up and not edge.up and node not in graph.children
            step = 1.0 + (LOOKUP_PENALTY if lookup_turn else 0.0)
            heapq.heappush(heap, (cost + step, hops + 1, (*path, edge.other), edge.up))
    return None


def join_tree(chosen: Sequence[str], graph: JoinGraph, *, max_hops: int = MAX_HOPS) -> JoinTree:
    """Connect ``chosen`` tables (best first) along foreign keys; greedy Steiner tree.

    Each terminal in turn is linked to the tree so far by the cheapest path of at most ``max_hops`` joins; a
    terminal with no such path starts a new component (later terminals may attach to any component). Names
    not in the graph are skipped.

    Returns:
        A :class:`JoinTree` with the bridge tables (not in ``chosen``) and the edges used.
    """
    in_tree: set[str] = set()
    out = JoinTree()
    terminals = [c for c in (graph.canonical(t) for t in chosen) if c is not None]
    for term in terminals:
        if term in in_tree:
            continue
        found = _cheapest_path(term, in_tree, graph, max_hops) if in_tree else None
        if found:
            path = found[::-1]  # from the tree out to the new terminal
            for a, b in zip(path, path[1:], strict=False):
                out.edges.append((a, b))
            for node in path[1:-1]:
                if node not in in_tree and node not in terminals:
                    out.bridges.append(node)
            in_tree.update(path)
        else:
            in_tree.add(term)
    return out


def bridge_tables(chosen: Sequence[str], graph: JoinGraph, *, max_hops: int = MAX_HOPS) -> list[str]:
    """Tables not in ``chosen`` that are needed to join ``chosen`` along foreign keys (shortest paths).

    Example: ``bridge_tables(["EQ_PX_D", "exchanges"], g) == ["EQ_MSTR"]`` in the demo database.
    """
    return join_tree(chosen, graph, max_hops=max_hops).bridges


def join_paths(tables: Sequence[str], graph: JoinGraph, *, max_hops: int = MAX_HOPS) -> list[str]:
    """Readable join conditions connecting ``tables`` (best first), one line per join of the join tree.

    Example: ``["EQ_PX_D.EQ_ID = EQ_MSTR.EQ_ID", "EQ_MSTR.LIMAR = exchanges.mic"]`` for
    ``["EQ_PX_D", "exchanges"]``. When two tables are linked by several foreign keys (e.g. departure and
    arrival airport) the alternatives share one line: ``"A.x = B.id (or A.y = B.id)"``.
    """
    lines: list[str] = []
    for a, b in join_tree(tables, graph, max_hops=max_hops).edges:
        conds = graph.conditions(a, b)
        if conds:
            line = conds[0] + "".join(f" (or {c})" for c in conds[1:])
            if line not in lines:
                lines.append(line)
    return lines
