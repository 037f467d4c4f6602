"""Column-qualifier correction: ``TV_series.series_name`` when only ``TV_Channel`` of the query has that column.

Small models often qualify a column with the wrong table of their own FROM clause - the column exists, just not
in the table they named ("no such column: Cartoon.Country" with ``TV_Channel.Country`` right there) - or with
a table's name after giving it an alias (``EQ_PX_D.PX_LST`` with ``FROM EQ_PX_D p``: "no such column" in SQLite). The
database error is certain, and the fix is unique when exactly one other table of the same SELECT has the
column, so it is made deterministically instead of spending a model repair (on the 2-core machine ~10 s, and the
1.5B model often writes the same query back).

:func:`fix_qualifiers` re-points such a column to the one table of its SELECT that has it. It leaves a column
alone when it is in no table or in several (the other columns are still fixed: a later step may join the table
that has it), when a fix would make a join condition compare a table
with itself, or when the SQL has constructs it cannot resolve (unknown tables, derived tables). A query whose
qualifiers are all right comes back unchanged, so it is cheap to apply to every candidate.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

from database.joins import JoinGraph

Columns = Mapping[str, Collection[str]]
"""Column names by table name, both lower-cased."""


def fix_qualifiers(sql: str, dialect: str, columns: Columns, graph: JoinGraph | None = None) -> str:
    """``sql`` with each wrongly qualified column re-pointed to the only table of its SELECT that has it.

    Args:
        sql: one read-only statement (already guarded).
        dialect: sqlglot dialect name.
        columns: lower-cased table name -> lower-cased column names of the database.
        graph: the declared foreign keys, when known. A column is then also left alone when a table the one it
            names references, outside the SELECT, has it too: ``ACCEL_BROWSER.name`` with ``accelerator`` in
            the query and ``browser`` not is as likely the browser's name as the accelerator's, so the fix is
            not unique (the database error and the later steps decide).

    Returns:
        The rewritten SQL in ``dialect``, or ``sql`` unchanged. Never raises.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        changed = False
        for select in list(tree.find_all(exp.Select)):
            changed = _fix_select(select, columns, graph) or changed
        return tree.sql(dialect=dialect) if changed else sql
    except (SqlglotError, ValueError, KeyError, AttributeError, TypeError):
        return sql


def _fix_select(select: exp.Select, columns: Columns, graph: JoinGraph | None) -> bool:
    """Fix the columns of one SELECT (not of its subqueries) in place; True when one was re-pointed."""
    refs = table_refs(select)
    if not refs or any(t not in columns for t in refs.values()):
        return False
    fixes: list[tuple[exp.Column, str]] = []
    for column in select.find_all(exp.Column):
        if column.find_ancestor(exp.Select) is not select or isinstance(column.this, exp.Star):
            continue
        qualifier, name = column.table.lower(), column.name.lower()
        if qualifier and qualifier not in refs:
            aliased = [r for r, t in refs.items() if t == qualifier]
            if len(aliased) == 1 and name in columns[qualifier] and not _outer_refers(select, qualifier):
                fixes.append((column, aliased[0]))  # the table's name although the query aliased it
            continue
        if not qualifier or name in columns[refs[qualifier]]:
            continue
        owners = [r for r, t in refs.items() if name in columns[t]]
        if len(owners) == 1 and not _owned_beside(graph, refs[qualifier], name, set(refs.values()), columns):  # nowhere or ambiguous: left to the later steps, the database error and the repair
            fixes.append((column, owners[0]))
    if not fixes:
        return False
    for column, ref in fixes:
        column.set("table", exp.to_identifier(_spelling(select, ref)))
    for eq in select.find_all(exp.EQ):
        if (isinstance(eq.left, exp.Column) and isinstance(eq.right, exp.Column) and eq.left.table
                and eq.left.table.lower() == eq.right.table.lower()
                and any(eq.left is c or eq.right is c for c, _ in fixes)):
            raise ValueError("a fix would join a table with itself")
    return True


def _owned_beside(graph: JoinGraph | None, table: str, name: str, present: set[str], columns: Columns) -> bool:
    """Does a table ``table`` references by a declared foreign key, other than the ``present`` ones, have ``name``?

    Only the tables ``table`` points at count: a row of it names one such row, so ``table.name`` reads naturally
    as that row's name. A table pointing at ``table`` (a fact table beside a dimension) does not: ``dim.date``
    with one fact table of the dimension in the query means that fact's date, not another fact's.
    """
    if graph is None:
        return False
    canonical = graph.canonical(table)
    neighbours = {edge.other.lower() for edge in graph.adj.get(canonical, []) if edge.up} if canonical else set()
    return any(name in columns.get(other, ()) for other in neighbours - present - {table})


def _outer_refers(select: exp.Select, qualifier: str) -> bool:
    """Does a SELECT enclosing ``select`` have a source called ``qualifier`` (a correlated reference)?"""
    outer = select.parent.find_ancestor(exp.Select) if select.parent is not None else None
    while outer is not None:
        if qualifier in table_refs(outer):
            return True
        outer = outer.parent.find_ancestor(exp.Select) if outer.parent is not None else None
    return False


def table_refs(select: exp.Select) -> dict[str, str]:
    """Lower-cased alias-or-name -> lower-cased table name for the plain tables of ``select``'s FROM and JOINs.

    Empty when a source is not a plain table (a derived table or a function).
    """
    from_ = select.args.get("from_") or select.args.get("from")
    sources = [from_.this] if from_ is not None else []
    sources += [j.this for j in select.args.get("joins") or []]
    refs: dict[str, str] = {}
    for source in sources:
        if not isinstance(source, exp.Table):
            return {}
        refs[(source.alias or source.name).lower()] = source.name.lower()
    return refs


def _spelling(select: exp.Select, ref: str) -> str:
    """How the query spells the reference ``ref`` (its alias or table name, original case)."""
    from_ = select.args.get("from_") or select.args.get("from")
    sources = ([from_.this] if from_ is not None else []) + [j.this for j in select.args.get("joins") or []]
    for source in sources:
        if (source.alias or source.name).lower() == ref:
            return str(source.alias or source.name)
    return ref
