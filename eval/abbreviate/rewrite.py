"""Gold queries rewritten to a renamed schema with sqlglot, and the rows a query returns (to compare)."""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from eval.abbreviate.renames import SchemaRename, TableRename


class RewriteError(ValueError):
    """A gold query could not be rewritten to the renamed schema (the message says why)."""


def _scope_of(node: exp.Expression, scopes: dict[int, Scope]) -> Scope | None:
    """The innermost scope whose query contains ``node``."""
    parent = node.parent
    while parent is not None:
        if id(parent) in scopes:
            return scopes[id(parent)]
        parent = parent.parent
    return None


def _leftmost_select(node: exp.Expression) -> exp.Select | None:
    """The first SELECT of a query (the one that names a set operation's output columns)."""
    current: Any = node
    while isinstance(current, exp.SetOperation):
        current = current.left
    return current if isinstance(current, exp.Select) else None


def rewrite_sql(sql: str, rename: SchemaRename) -> str:
    """``sql`` (SQLite) with its tables and columns renamed; aliases (of tables and of outputs) are kept.

    Each column is resolved like SQLite does: a qualified one through its table or alias (of this query or an
    enclosing one), an unqualified one through the tables of the innermost query that has such a column; a
    name that no table has (an output alias, or a double-quoted string) is left alone. A column read from a
    subquery in FROM follows that subquery's renamed output.

    Raises:
        RewriteError: the query does not parse, names an unknown table, or a column is ambiguous.
    """
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError as exc:
        raise RewriteError(f"parse error: {exc}") from exc
    scope_list = list(traverse_scope(tree))
    scopes = {id(s.expression): s for s in scope_list}
    columns: dict[int, list[exp.Column]] = {}
    for column in tree.find_all(exp.Column):
        owner = _scope_of(column, scopes)
        if owner is not None:
            columns.setdefault(id(owner.expression), []).append(column)
    new_names: dict[int, str] = {}  # id(Column) -> its new name
    outputs: dict[int, dict[str, str]] = {}  # id(scope query) -> original output name -> new output name

    def table_of(source: Any) -> TableRename | None:
        if isinstance(source, exp.Table):
            found = rename.table(source.name)
            if found is None:
                raise RewriteError(f"unknown table {source.name}")
            return found[1]
        return None

    def from_source(source: Any, name: str) -> str | None:
        """The new name of column ``name`` read from a table or a subquery, None when it has no such column."""
        table = table_of(source)
        if table is not None:
            return table.column(name)
        if isinstance(source, Scope):
            return outputs.get(id(source.expression), {}).get(name.lower())
        return None

    for scope in scope_list:  # inner queries first
        sources_chain = []
        s: Scope | None = scope
        while s is not None:
            sources_chain.append({k.lower(): v for k, v in s.sources.items()})
            s = s.parent
        select = scope.expression if isinstance(scope.expression, exp.Select) else None
        aliases = {p.alias.lower() for p in select.selects if isinstance(p, exp.Alias)} if select else set()
        for column in columns.get(id(scope.expression), []):
            name = column.name
            if column.table:
                source = next((src[column.table.lower()] for src in sources_chain if column.table.lower() in src),
                              None)
                if source is None:
                    raise RewriteError(f"unknown table or alias {column.table}")
                qualifier = table_of(source)
                if qualifier is not None and isinstance(source, exp.Table) and not source.alias:
                    column.set("table", exp.to_identifier(qualifier.name))
                if not isinstance(column.this, exp.Star):
                    new = from_source(source, name)
                    if new is not None:
                        new_names[id(column)] = new
                continue
            if isinstance(scope.expression, exp.SetOperation):  # ORDER BY of a UNION: its output names
                first = _leftmost_select(scope.expression)
                named = outputs.get(id(first), {}) if first is not None else {}
                if name.lower() in named:
                    new_names[id(column)] = named[name.lower()]
                continue
            if name.lower() in aliases and column.find_ancestor(exp.Order, exp.Having, exp.Group):
                continue
            for sources in sources_chain:
                found = {new for src in sources.values() if (new := from_source(src, name)) is not None}
                if len(found) > 1:
                    raise RewriteError(f"ambiguous column {name}")
                if found:
                    new_names[id(column)] = found.pop()
                    break
        if select is not None:
            out: dict[str, str] = {}
            for p in select.selects:
                if isinstance(p, exp.Column) and not isinstance(p.this, exp.Star):
                    out[p.name.lower()] = new_names.get(id(p), p.name)
                elif p.alias_or_name:
                    out[p.alias_or_name.lower()] = p.alias_or_name
            outputs[id(select)] = out
            for join in select.args.get("joins") or []:
                for ident in join.args.get("using") or []:
                    found = {new for sources in sources_chain[:1] for src in sources.values()
                             if (new := from_source(src, ident.name)) is not None}
                    if len(found) != 1:
                        raise RewriteError(f"USING column {ident.name} renamed differently")
                    ident.replace(exp.to_identifier(found.pop()))
    for column in list(tree.find_all(exp.Column)):
        if id(column) in new_names:
            column.set("this", exp.to_identifier(new_names[id(column)]))
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for node in tree.find_all(exp.Table):
        if node.name.lower() in ctes:
            continue
        entry = rename.table(node.name)
        if entry is None:
            raise RewriteError(f"unknown table {node.name}")
        node.set("this", exp.to_identifier(entry[1].name))
    return tree.sql(dialect="sqlite")


def _normalize(value: Any) -> Any:
    """A cell comparable across runs (floats rounded to 9 significant digits)."""
    return float(f"{value:.9g}") if isinstance(value, float) else value


def query_rows(db_file: Path, sql: str, timeout: float = 60.0) -> Counter[tuple[Any, ...]]:
    """The rows of ``sql`` on a SQLite file opened read-only, as a multiset.

    Raises:
        sqlite3.Error: the query fails, or runs longer than ``timeout`` seconds (interrupted).
    """
    conn = sqlite3.connect(f"{db_file.resolve().as_uri()}?mode=ro", uri=True)
    deadline = time.monotonic() + timeout
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    try:
        return Counter(tuple(_normalize(v) for v in row) for row in conn.execute(sql).fetchall())
    finally:
        conn.close()
