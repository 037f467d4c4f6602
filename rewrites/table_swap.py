"""A table that lacks the columns the query reads from it, swapped for the one table that has them all.

``SELECT t_01.TTL, COUNT(t_10.TRCK_ID) FROM t_01 JOIN t_10 ON t_01.ALBM_ID = t_10.ALBM_ID`` fails with "no such
column: t_10.ALBM_ID": the small model wanted the tracks and took the table of a playlist's tracks, which has
``TRCK_ID`` but no album. On schemas whose names say little (``t_10``, abbreviations) this is a common slip, and
every candidate tends to make it alike. When exactly one table outside the SELECT has every column the query
reads from the named one (here ``TRCK``: ``ALBM_ID`` and ``TRCK_ID``), that table is what was meant and
:func:`swap_lacking_tables` puts it in the named one's place, without a model call.

It runs after the qualifier and missing-join steps, so what is still lacking is no misplaced qualifier. Left
alone: a table whose columns all exist (the query already runs as far as it is concerned), a table read from a nested
SELECT (correlated references), several or no tables with every column, and SELECTs over derived tables. An
unqualified column that only the swapped-out table had keeps the query as it was. Idea: execution-guided
correction without a model call (DIN-SQL's self-correction, Pourreza & Rafiei 2023).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import sqlglot.expressions as exp

from database.sql_sources import parse_query
from rewrites.qualify import table_refs


def swap_lacking_tables(sql: str, dialect: str, columns: Mapping[str, Collection[str]],
                        tables: Collection[str]) -> str | None:
    """``sql`` with each table lacking columns read from it replaced by the one table that has them all.

    Args:
        sql: one read-only statement (already guarded).
        dialect: sqlglot dialect name.
        columns: lower-cased table name -> lower-cased column names (the catalog's).
        tables: the database's table names as declared (the swapped-in name keeps its case; outside SQLite a
            name not all lower case is quoted).

    Returns:
        The rewritten SQL, or None when nothing changes or ``sql`` does not parse. Never raises.
    """
    tree = parse_query(sql, dialect)
    if tree is None:
        return None
    declared = {t.lower(): t for t in tables}
    changed = False
    for select in list(tree.find_all(exp.Select)):
        changed = _swap_in(select, columns, declared, dialect) or changed
    return tree.sql(dialect=dialect) if changed else None


def _read_through(select: exp.Select, ref: str) -> set[str] | None:
    """Lower-cased columns ``select`` reads qualified with ``ref``; None when a nested SELECT also does."""
    names: set[str] = set()
    for column in select.find_all(exp.Column):
        if column.table.lower() != ref or isinstance(column.this, exp.Star):
            continue
        if column.find_ancestor(exp.Select) is not select:
            return None
        names.add(column.name.lower())
    return names


def _swap_in(select: exp.Select, columns: Mapping[str, Collection[str]], declared: Mapping[str, str],
             dialect: str) -> bool:
    refs = table_refs(select)
    if not refs or any(t not in columns for t in refs.values()):
        return False
    unqualified = {c.name.lower() for c in select.find_all(exp.Column)
                   if not c.table and isinstance(c.this, exp.Identifier) and c.find_ancestor(exp.Select) is select}
    changed = False
    for ref, table in list(refs.items()):
        read = _read_through(select, ref)
        if not read:
            continue
        lacking = read - set(columns[table])
        if not lacking:
            continue
        options = [u for u, cols in columns.items() if u not in refs.values() and read <= set(cols)]
        if len(options) != 1 or options[0] not in declared:
            continue
        new = options[0]
        others = set().union(*(set(columns[t]) for r, t in refs.items() if r != ref))
        if any(name in columns[table] and name not in others and name not in columns[new] for name in unqualified):
            continue  # an unqualified column only the old table had would stop resolving
        _replace(select, ref, declared[new], dialect)
        refs = table_refs(select)
        changed = True
    return changed


def _replace(select: exp.Select, ref: str, new: str, dialect: str) -> None:
    """Put table ``new`` where ``select`` reads the source ``ref``; qualifiers follow when it had no alias."""
    quoted = dialect != "sqlite" and new != new.lower()
    for table in select.find_all(exp.Table):
        if table.find_ancestor(exp.Select) is select and (table.alias or table.name).lower() == ref:
            aliased = bool(table.alias)
            table.set("this", exp.to_identifier(new, quoted=quoted))
            table.set("db", None)
            if not aliased:
                for column in select.find_all(exp.Column):
                    if column.table.lower() == ref:
                        column.set("table", exp.to_identifier(new, quoted=quoted))
            return
