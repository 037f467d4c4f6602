"""Join conditions that never reach the joined table: ``ON a.col`` alone, or ``ON a.col = a.col``.

``FROM department JOIN dept_locations ON department.dnumber`` runs: SQLite reads the bare column as a truth value,
so every department is paired with every location and a filter on the location answers for all departments. The
same happens to ``ON t.x = t.x`` (a column compared with itself). Neither is ever meant: the writer named one side
of the key and lost the other. :func:`complete_join_conditions` supplies the missing side when exactly one
column can be it:

- the column's table is the joined one: the other side is a table joined before it; otherwise it is the joined
  table;
- a declared foreign key between the column and a column of the other side decides; without one, a column of
  the same name on the other side does (``department.dnumber = dept_locations.dnumber``).

No candidate, or several: the query is left to the repair. Unqualified bare columns are read from the one table
in scope that has them. No model call, no database access. Idea: schema-graph join completion (the join-path
repairs of DIN-SQL's self-correction and CHESS's candidate revision), applied where the query itself says which
key it meant.
"""

from __future__ import annotations

from sqlglot import exp

from database.joins import JoinGraph
from database.sql_sources import parse_query, sources
from rewrites.join_keys import Key, declared_keys, identifier


def complete_join_conditions(sql: str, dialect: str, graph: JoinGraph | None,
                             columns: dict[str, set[str]]) -> str | None:
    """``sql`` with each join condition that names one side of a key completed with its other side.

    Args:
        sql: the candidate query.
        dialect: sqlglot dialect of ``sql``.
        graph: the database's foreign keys (None or none declared: same-name columns only).
        columns: lower-cased table -> lower-cased column names (empty: no change).

    Returns:
        The rewritten query, or None when nothing changes or ``sql`` does not parse. Never raises.
    """
    tree = parse_query(sql, dialect)
    if tree is None or not columns:
        return None
    keys = declared_keys(graph) if graph is not None else {}
    quote = dialect != "sqlite"
    changed = False
    for select in list(tree.find_all(exp.Select)):
        changed = _complete(select, keys, columns, quote) or changed
    return tree.sql(dialect=dialect) if changed else None


Source = tuple[str, str, exp.Identifier]
"""A source of the SELECT: (lower-cased alias or name, lower-cased table, the alias as the query spells it)."""


def _complete(select: exp.Select, keys: dict[Key, Key], columns: dict[str, set[str]], quote: bool) -> bool:
    order: list[Source] = []
    for source in sources(select):
        if not isinstance(source, exp.Table) or not source.name:
            return False
        spelled = source.args["alias"].this if source.alias else source.this
        order.append((source.alias_or_name.lower(), source.name.lower(), spelled))
    changed = False
    for position, join in enumerate(select.args.get("joins") or [], start=1):
        on = join.args.get("on")
        if on is None:
            continue
        parts = [p for p in on.flatten() if isinstance(p, exp.Expression)] if isinstance(on, exp.And) else [on]
        for part in parts:
            column = _one_sided(part)
            fixed = _partner(column, order[:position + 1], keys, columns, quote) if column is not None else None
            if fixed is None:
                continue
            if part is on:
                join.set("on", fixed)
            else:
                part.replace(fixed)
            changed = True
    return changed


def _one_sided(part: exp.Expression) -> exp.Column | None:
    """The column of a condition that names one side of a key only: ``a.x`` alone or ``a.x = a.x``."""
    if isinstance(part, exp.Column) and part.name:
        return part
    if isinstance(part, exp.EQ) and isinstance(part.this, exp.Column) and isinstance(part.expression, exp.Column):
        left, right = part.this, part.expression
        if left.name.lower() == right.name.lower() and left.table.lower() == right.table.lower():
            return left
    return None


def _partner(column: exp.Column, scope: list[Source], keys: dict[Key, Key], columns: dict[str, set[str]],
             quote: bool) -> exp.EQ | None:
    """``column = <its one partner>`` among ``scope`` (the joined table last), or None when not exactly one."""
    name = column.name.lower()
    by_alias = {alias: (table, spelled) for alias, table, spelled in scope}
    if column.table:
        owner = column.table.lower()
    else:
        owners = [alias for alias, table, _ in scope if name in columns.get(table, set())]
        owner = owners[0] if len(owners) == 1 else ""
    if owner not in by_alias:
        return None
    joined = scope[-1][0]
    others = [alias for alias, _, _ in scope[:-1] if alias != owner] if owner == joined else [joined]
    table = by_alias[owner][0]
    found: set[tuple[str, str]] = set()
    for alias in others:
        for (child, ccol, parent, pcol), declared in keys.items():
            if (child, ccol, parent) == (table, name, by_alias[alias][0]):
                found.add((alias, declared[3]))
            if (parent, pcol, child) == (table, name, by_alias[alias][0]):
                found.add((alias, declared[1]))
    if not found:
        found = {(alias, column.name) for alias in others if name in columns.get(by_alias[alias][0], set())}
    if len(found) != 1:
        return None
    alias, other = found.pop()
    left = exp.Column(this=column.this.copy(), table=by_alias[owner][1].copy())
    right = exp.Column(this=column.this.copy() if other == column.name else identifier(other, quote),
                       table=by_alias[alias][1].copy())
    return exp.EQ(this=left, expression=right)
