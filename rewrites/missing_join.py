"""Missing joins: a column qualified with a table the query never joined, added along its one foreign key.

``SELECT .. FROM EQ_PX_D WHERE EQ_MSTR.TICKER = 'MSFT'`` fails with "no such column: EQ_MSTR.TICKER": the small
model knew which table holds the ticker and forgot the join. When the named table is a real table and exactly
one table of the same SELECT has exactly one foreign key to it, the join is certain and :func:`add_missing_joins`
adds it (``JOIN EQ_MSTR ON EQ_MSTR.EQ_ID = EQ_PX_D.EQ_ID``) instead of spending a model repair. A qualifier that
an enclosing SELECT defines (a correlated reference), an alias, or a table with no or several join candidates is
left to the database error and the repair. Never raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlglot
from sqlglot import exp

from database.joins import JoinGraph
from database.sql_sources import parse_query, sources
from rewrites.join_keys import links_only


def add_missing_joins(sql: str, dialect: str, graph: JoinGraph) -> str | None:
    """``sql`` with an inner join for each table it qualifies columns with but never joined; None if none."""
    tree = parse_query(sql, dialect)
    if tree is None:
        return None
    changed = False
    for select in list(tree.find_all(exp.Select)):
        changed = _join_missing(select, graph) or changed
    return tree.sql(dialect=dialect) if changed else None


def _refs(select: exp.Select) -> dict[str, str] | None:
    """Lower-cased alias-or-name -> table name of the plain tables of ``select``; None with a derived source."""
    refs: dict[str, str] = {}
    for source in sources(select):
        if isinstance(source, exp.Table) and source.name:
            refs[source.alias_or_name.lower()] = source.name
        else:
            refs[source.alias_or_name.lower()] = ""
    return refs


def _defined_outside(select: exp.Select, name: str) -> bool:
    """Does an enclosing SELECT, or a CTE of ``select`` or of an enclosing query, define ``name``?"""
    node: Any = select
    while node is not None:
        if isinstance(node, exp.Select) and node is not select and name in (_refs(node) or {}):
            return True
        with_ = node.args.get("with_") or node.args.get("with")
        if isinstance(with_, exp.With) and any(c.alias_or_name.lower() == name for c in with_.expressions):
            return True
        node = node.parent
    return False


def _join_missing(select: exp.Select, graph: JoinGraph) -> bool:
    refs = _refs(select)
    if not refs:
        return False
    missing = {c.table for c in select.find_all(exp.Column)
               if c.table and c.find_ancestor(exp.Select) is select and c.table.lower() not in refs}
    added = False
    for qualifier in sorted(missing):
        table = graph.canonical(qualifier)
        if table is None or _defined_outside(select, qualifier.lower()):
            continue
        options = [(alias, cond) for alias, name in refs.items() if name
                   for cond in [graph.conditions(graph.canonical(name) or name, table)] if len(cond) == 1]
        if len(options) != 1:
            continue
        alias, (condition,) = options[0]
        source_name = graph.canonical(refs[alias]) or refs[alias]
        on = sqlglot.parse_one(condition)
        for column in on.find_all(exp.Column):
            if column.table.lower() == source_name.lower():
                column.set("table", exp.to_identifier(_spelled(select, alias)))
            elif column.table.lower() == table.lower():
                column.set("table", exp.to_identifier(qualifier))
        shared = {c.name.lower() for c in on.find_all(exp.Column)}
        source_ref = _spelled(select, alias)
        for column in select.find_all(exp.Column):  # the key columns now exist twice: keep reading the source's
            if not column.table and column.name.lower() in shared and column.find_ancestor(exp.Select) is select:
                column.set("table", exp.to_identifier(source_ref))
        select.join(exp.to_table(qualifier), on=on, copy=False)
        refs[qualifier.lower()] = table
        added = True
    return added


def _spelled(select: exp.Select, ref: str) -> str:
    """How ``select`` spells the source ``ref`` (alias or table name, original case)."""
    for table in select.find_all(exp.Table):
        if table.alias_or_name.lower() == ref and table.find_ancestor(exp.Select) is select:
            return table.alias_or_name
    return ref


def join_column_owners(sql: str, dialect: str, graph: JoinGraph, columns: Mapping[str, set[str]], *,
                       through_links: bool = False) -> str | None:
    """``sql`` with each column that no table of its SELECT has read from the one table that has it.

    ``SELECT Name, Decoration_Theme FROM round`` fails with "no such column: Name" when ``Name`` lives in
    ``member`` and ``round.Member_ID`` references ``member``; ``round_member.Name`` (qualified with a table of the
    SELECT that only links others and lacks it, as every table there does) is treated alike. When exactly one table outside the SELECT has the
    column and a single foreign key to or from exactly one table of the SELECT (other owners of the name, not
    adjacent, do not count), the column is qualified with that table and the join added; columns of the SELECT's own tables that the new table also has are
    qualified with their original table first, so nothing that resolved before changes meaning. ``columns`` maps
    lower-cased table names to lower-cased column names (the catalog's). Left alone: output aliases, quoted
    names (SQLite reads an unknown ``"F"`` as a string), columns an enclosing SELECT's tables have (correlated
    references), SELECTs over derived tables, and any column with no or several owners or join candidates.
    With ``through_links`` only owners no table of the SELECT is joined to directly count, reached through one
    linking table that holds a foreign key to each (:func:`_bridged`: ``SELECT NM, LOC FROM MBR`` with ``LOC`` in
    ``PRFRMN`` and ``MBR_ATNDNC`` referencing both gets both joins).
    Returns None when nothing changes or ``sql`` does not parse. Never raises.
    """
    tree = parse_query(sql, dialect)
    if tree is None:
        return None
    changed = False
    for select in list(tree.find_all(exp.Select)):
        changed = _join_owner(select, graph, columns, through_links) or changed
    return tree.sql(dialect=dialect) if changed else None


def _outer_columns(select: exp.Select, columns: Mapping[str, set[str]]) -> set[str]:
    """Column names the plain tables of every SELECT enclosing ``select`` have (lower case)."""
    names: set[str] = set()
    node: Any = select.parent
    while node is not None:
        if isinstance(node, exp.Select):
            for name in (_refs(node) or {}).values():
                names |= columns.get(name.lower(), set())
        node = node.parent
    return names


def _join_owner(select: exp.Select, graph: JoinGraph, columns: Mapping[str, set[str]], through_links: bool) -> bool:
    refs = _refs(select)
    if not refs or any(not name or name.lower() not in columns for name in refs.values()):
        return False
    own = {alias: columns[name.lower()] for alias, name in refs.items()}
    known = set().union(*own.values())
    stripped = _strip_misplaced(select, own, known, graph, refs)
    aliases = {e.alias.lower() for e in select.expressions if e.alias}
    outer = _outer_columns(select, columns)
    unknown = sorted({c.name for c in select.find_all(exp.Column)
                      if not c.table and isinstance(c.this, exp.Identifier) and c.find_ancestor(exp.Select) is select
                      and not c.this.quoted
                      and c.name.lower() not in known | aliases | outer})
    joined = {name.lower() for name in refs.values()}
    lowered = {name.lower() for name in unknown}
    added = False
    for name in unknown:
        if any(name.lower() in cols for cols in own.values()):
            continue  # a table joined for an earlier name has it
        options = [(alias, [(table, cond[0])]) for owner, cols in columns.items() if name.lower() in cols
                   and owner not in joined for table in [graph.canonical(owner)] if table is not None
                   for alias, ref in refs.items()
                   for cond in [graph.conditions(graph.canonical(ref) or ref, table)] if len(cond) == 1]
        if through_links:
            options = [] if options else _bridged(name.lower(), refs, joined, graph, columns)
        if len(options) != 1:
            continue
        alias, path = options[0]
        table = path[-1][0]
        source_ref = _spelled(select, alias)
        source_name = (graph.canonical(refs[alias]) or refs[alias]).lower()
        shared = set().union(*(columns.get(t.lower(), set()) for t, _ in path))
        for column in select.find_all(exp.Column):  # keep what resolved before reading its own table
            if (column.table or not isinstance(column.this, exp.Identifier)
                    or column.find_ancestor(exp.Select) is not select or column.this.quoted):
                continue
            low = column.name.lower()
            if low == name.lower() or (low in lowered and low in shared
                                       and not any(low in cols for cols in own.values())):
                column.set("table", exp.to_identifier(table))
            elif low in shared:
                holders = [a for a, cols in own.items() if low in cols]
                if len(holders) == 1:
                    column.set("table", exp.to_identifier(_spelled(select, holders[0])))
        for step, condition in path:
            on = sqlglot.parse_one(condition)
            for column in on.find_all(exp.Column):
                if column.table.lower() == source_name:
                    column.set("table", exp.to_identifier(source_ref))
            select.join(exp.to_table(step), on=on, copy=False)
            refs[step.lower()] = step
            own[step.lower()] = columns.get(step.lower(), set())
            joined.add(step.lower())
        added = True
    for column, qualifier in stripped:  # no owner was joined for it: the database error stays as it was
        if not column.table:
            column.set("table", qualifier)
    return added


def _bridged(name: str, refs: Mapping[str, str], joined: set[str], graph: JoinGraph,
             columns: Mapping[str, set[str]]) -> list[tuple[str, list[tuple[str, str]]]]:
    """Ways to reach an owner of the column ``name`` through one table between (a bridge), none joined yet.

    ``SELECT NM, LOC FROM MBR`` with ``LOC`` in ``PRFRMN`` and ``MBR_ATNDNC`` referencing both: the bridge holds
    one foreign key to the owner and lacks ``name`` itself, and it holds one to a table of the SELECT (a linking
    table, a many-to-many relation) or that table holds one to it (a chain of references: ``FNOL -> CSTMR_PLCY ->
    CSTMR``, each row reaching at most one owner row). Each option is (the SELECT's alias the path starts from,
    [(bridge, condition), (owner, condition)]).
    """
    options = []
    for owner, cols in columns.items():
        table = graph.canonical(owner)
        if name not in cols or owner in joined or table is None:
            continue
        for bridge_name, bridge_cols in columns.items():
            bridge = graph.canonical(bridge_name)
            if bridge is None or bridge_name in joined or bridge_name == owner or name in bridge_cols:
                continue
            onward = _references(graph, bridge, table)
            if len(onward) != 1:
                continue
            for alias, ref in refs.items():
                source = graph.canonical(ref) or ref
                back = _references(graph, bridge, source) + _references(graph, source, bridge)
                if len(back) == 1:
                    options.append((alias, [(bridge, back[0]), (table, onward[0])]))
    return options


def _references(graph: JoinGraph, child: str, parent: str) -> list[str]:
    """Conditions of the foreign keys ``child`` holds to ``parent`` (graph spellings)."""
    return list(dict.fromkeys(e.condition for e in graph.adj.get(child, []) if e.other == parent and e.up))


def _strip_misplaced(select: exp.Select, own: Mapping[str, set[str]], known: set[str], graph: JoinGraph,
                     refs: Mapping[str, str]) -> list[tuple[exp.Column, exp.Identifier]]:
    """Unqualify the columns of ``select`` qualified with a linking table of it when none of its tables has them.

    ``SELECT repair_assignment.machine_series FROM repair_assignment`` names a table of the SELECT that lacks the
    column, and so does every other table there: when the named table only links others (:func:`rewrites.join_keys.links_only`),
    the column is looked up as an unqualified one (its owner joined). A table with attributes of its own is
    left alone: ``Movie.name`` means the film's title far more often than a reviewer's name in a joined table
    (replayed: unrestricted, the step lost 5 questions it had right; restricted, none). Returns each stripped
    column with its qualifier, to restore when no owner is joined.
    """
    stripped = []
    for column in select.find_all(exp.Column):
        if (column.table and not isinstance(column.this, exp.Star) and column.find_ancestor(exp.Select) is select
                and not column.this.quoted and column.table.lower() in own
                and column.name.lower() not in known
                and links_only(graph, refs[column.table.lower()], own[column.table.lower()])):
            stripped.append((column, column.args["table"]))
            column.set("table", None)
    return stripped
