"""Joins on keys that do not meet: a join through the table a foreign key points at.

``FROM stadium JOIN injury_accident ON stadium.id = injury_accident.game_id`` runs and answers wrongly: the
accident's ``game_id`` references ``game.id``, not ``stadium.id``, so stadiums are matched to accidents whose game
number equals the stadium number. When the database declares the keys, the intended path is certain:
``injury_accident.game_id`` points at ``game``, and ``game.stadium_id`` points at ``stadium.id``, the column the
query compared it with. :func:`fix_join_keys` puts the table the foreign key points at between the two
(``JOIN game ON game.stadium_id = stadium.id JOIN injury_accident ON injury_accident.game_id = game.id``).

Only a join whose ``ON`` is one equality of two qualified columns of plain tables is looked at; it is left alone
when the pair is itself a declared key (either direction), when the bridge table is already in the SELECT, and
when there is not exactly one bridge. A database without declared foreign keys never changes. No model call.
Idea: schema-graph join paths (the join-path repair of DIN-SQL's self-correction and of CHESS's candidate
revision), made deterministic with the declared keys.
"""

from __future__ import annotations

from sqlglot import exp

from database.joins import JoinGraph
from database.sql_sources import parse_query, sources

Key = tuple[str, str, str, str]
"""One single-column foreign key: (child table, child column, parent table, parent column), lower case."""


def declared_keys(graph: JoinGraph) -> dict[Key, Key]:
    """Every single-column foreign key of ``graph``: its lower-cased form -> its declared spelling."""
    keys: dict[Key, Key] = {}
    for edges in graph.adj.values():
        for edge in edges:
            if not edge.up or " AND " in edge.condition:
                continue
            left, _, right = edge.condition.partition(" = ")
            child, _, ccol = left.rpartition(".")
            parent, _, pcol = right.rpartition(".")
            if child and parent:
                keys[(child.lower(), ccol.lower(), parent.lower(), pcol.lower())] = (child, ccol, parent, pcol)
    return keys


def fix_join_keys(sql: str, dialect: str, graph: JoinGraph) -> str | None:
    """``sql`` with each join on keys that do not meet routed through the one table between them.

    See the module docstring for when it applies. Returns None when nothing changes, ``sql`` does not parse or
    the database declares no foreign keys. Never raises.
    """
    keys = declared_keys(graph)
    if not keys:
        return None
    tree = parse_query(sql, dialect)
    if tree is None:
        return None
    changed = False
    for select in list(tree.find_all(exp.Select)):
        changed = _route(select, graph, keys, quote=dialect != "sqlite") or changed
    return tree.sql(dialect=dialect) if changed else None


def _route(select: exp.Select, graph: JoinGraph, keys: dict[Key, Key], *, quote: bool) -> bool:
    refs: dict[str, str] = {}
    for source in sources(select):
        if not isinstance(source, exp.Table) or not source.name:
            return False
        refs[source.alias_or_name.lower()] = source.name.lower()
    changed = False
    for join in list(select.args.get("joins") or []):
        on = join.args.get("on")
        target = join.this
        if not isinstance(on, exp.EQ) or not isinstance(target, exp.Table):
            continue
        left, right = on.this, on.expression
        if not (isinstance(left, exp.Column) and isinstance(right, exp.Column) and left.table and right.table):
            continue
        alias = target.alias_or_name.lower()
        if right.table.lower() == alias:
            left, right = right, left
        if left.table.lower() != alias or right.table.lower() not in refs or right.table.lower() == alias:
            continue
        j_table, p_table = refs[alias], refs[right.table.lower()]
        jc, pc = left.name.lower(), right.name.lower()
        if (j_table, jc, p_table, pc) in keys or (p_table, pc, j_table, jc) in keys:
            continue
        bridges = _bridges(j_table, jc, p_table, pc, set(keys), set(refs.values()))
        if len(bridges) != 1:
            continue
        bridge, to_p, to_j = _spelled(bridges[0], keys)
        name = graph.canonical(bridge) or bridge
        j_col = exp.Column(this=left.this.copy(), table=left.args["table"].copy())
        p_col = exp.Column(this=right.this.copy(), table=right.args["table"].copy())
        join.set("on", exp.EQ(this=j_col, expression=_column(to_j[0], name, quote)))
        bridge_on = exp.EQ(this=_column(to_p[0], name, quote), expression=p_col)
        joins = select.args["joins"]
        joins.insert(joins.index(join), exp.Join(this=exp.Table(this=identifier(name, quote)), on=bridge_on))
        select.set("joins", joins)
        refs[bridge.lower()] = bridge.lower()
        changed = True
    return changed


def identifier(name: str, quote: bool) -> exp.Identifier:
    """An identifier as declared; with ``quote``, quoted when not all lower case (the engine folds the rest)."""
    return exp.to_identifier(name, quoted=quote and name != name.lower())


def _column(column: str, table: str, quote: bool) -> exp.Column:
    return exp.Column(this=identifier(column, quote), table=identifier(table, quote))


def _bridges(j_table: str, jc: str, p_table: str, pc: str, keys: set[Key],
             present: set[str]) -> list[tuple[str, tuple[str, str], tuple[str, str]]]:
    """(bridge table, (its column, P's column), (its column, J's column)) for each one-table route.

    Either J's column is a key to the bridge whose own key reaches P's column, or P's column is a key to the
    bridge whose own key reaches J's column. Tables already in the SELECT are not bridges.
    """
    found = []
    for child, ccol, parent, pcol in keys:
        if child == j_table and ccol == jc and parent not in present:  # J -> bridge -> P
            found += [(parent, (c2, pc), (pcol, jc)) for c1, c2, p2, pc2 in keys
                      if c1 == parent and p2 == p_table and pc2 == pc]
        if child == p_table and ccol == pc and parent not in present:  # P -> bridge -> J
            found += [(parent, (pcol, pc), (c2, jc)) for c1, c2, p2, pc2 in keys
                      if c1 == parent and p2 == j_table and pc2 == jc]
    return found


def _spelled(route: tuple[str, tuple[str, str], tuple[str, str]],
             keys: dict[Key, Key]) -> tuple[str, tuple[str, str], tuple[str, str]]:
    """``route`` with the bridge's columns spelled as declared (the other columns keep the query's spelling)."""
    bridge, (to_p, p_col), (to_j, j_col) = route
    spelling = {(k[0], k[1]): v[1] for k, v in keys.items()} | {(k[2], k[3]): v[3] for k, v in keys.items()}
    return (bridge, (spelling.get((bridge, to_p), to_p), p_col), (spelling.get((bridge, to_j), to_j), j_col))


def links_only(graph: JoinGraph, table: str, table_columns: set[str]) -> bool:
    """Is every column of ``table`` (lower-cased ``table_columns``) part of one of its declared join keys?

    Such a table (``repair_assignment(technician_id, repair_id, machine_id)``) only links others and holds no
    attribute of its own, so an attribute qualified with it belongs to a table it links.
    """
    name = graph.canonical(table) or table
    keys: set[str] = set()
    for edge in graph.adj.get(name, []):
        for part in edge.condition.split(" AND "):
            for side in part.split(" = "):
                owner, _, column = side.strip().rpartition(".")
                if owner.lower() == name.lower():
                    keys.add(column.lower())
    return bool(keys) and table_columns <= keys
