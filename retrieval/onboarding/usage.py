"""Which tables and columns past SQL reads: per-statement references, counted over a log or the examples.

:func:`references` resolves every column of a statement to ``TABLE.COLUMN`` with sqlglot scopes: a qualifier is
looked up among the scope's tables (aliases included), an unqualified column is given to the one table of the
scope that has it (per the profiled schema). The review queue weighs drafts by these counts
(:mod:`retrieval.onboarding.queue`); TailorSQL likewise mines the workload to decide what matters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import traverse_scope

Schema = dict[str, dict[str, str]]
"""``{lower table: {lower column: "Table.Column"}}`` plus ``{"": {lower table: "Table"}}`` (see :func:`schema_of`)."""


def schema_of(tables: dict[str, list[str]]) -> Schema:
    """The lookup :func:`references` needs, from ``{table: [column, ...]}`` in the database's spelling."""
    out: Schema = {"": {t.lower(): t for t in tables}}
    for table, columns in tables.items():
        out[table.lower()] = {c.lower(): f"{table}.{c}" for c in columns}
    return out


def references(sql: str, dialect: str, schema: Schema) -> tuple[set[str], set[str]]:
    """``(tables, columns)`` that ``sql`` reads, as ``Table`` and ``Table.Column`` in the schema's spelling.

    Unknown names, derived tables and ambiguous columns are left out; a statement that does not parse reads
    nothing (never raises).
    """
    tables: set[str] = set()
    columns: set[str] = set()
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        scopes = list(traverse_scope(tree))
    except (SqlglotError, ValueError, KeyError, AttributeError, TypeError, RecursionError):
        return tables, columns
    for scope in scopes:
        sources = {alias.lower(): src.name.lower() for alias, src in scope.sources.items()
                   if isinstance(src, exp.Table) and src.name.lower() in schema[""]}
        tables.update(schema[""][t] for t in sources.values())
        for column in scope.columns:
            name = column.name.lower()
            if column.table:
                owner = sources.get(column.table.lower())
                found = schema.get(owner, {}).get(name) if owner else None
            else:
                owners = [t for t in set(sources.values()) if name in schema[t]]
                found = schema[owners[0]][name] if len(owners) == 1 else None
            if found:
                columns.add(found)
    return tables, columns


def count_references(statements: Iterable[str], dialect: str, schema: Schema) -> tuple[Counter[str], Counter[str]]:
    """How many of ``statements`` read each table and each column: ``(tables, columns)`` counters."""
    tables: Counter[str] = Counter()
    columns: Counter[str] = Counter()
    for sql in statements:
        t, c = references(sql, dialect, schema)
        tables.update(t)
        columns.update(c)
    return tables, columns
