"""Schema-linking recall: does the schema text the generator reads hold the tables and columns the gold SQL uses?

The schema prompt is chosen by the retrieve_schema tool (:class:`tools.schema_retrieval.RetrieveSchemaTool`):
a database that fits the token budget is shown whole, a larger one is cut to its best-ranked tables. A gold
column the prompt lacks cannot be written by any generator, so this recall bounds what the model can get right.

* :func:`gold_links` - the tables and ``(table, column)`` pairs of a gold query, qualified against the schema with
  sqlglot (aliases resolved through each query scope);
* :func:`link_row` - one question's recall for one budget, from the tool's chosen tables;
* :func:`summarize` - table recall, column recall, share of questions fully linked and schema tokens.

A column counts as present when its table is shown (the tool shows a table's whole DDL).
"""

from __future__ import annotations

import statistics
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope

from core.settings import Settings
from retrieval.hybrid import load_catalog
from retrieval.store import VectorStore
from tools.schema_retrieval import RetrieveSchemaArgs, RetrieveSchemaTool


@dataclass(frozen=True)
class GoldLinks:
    """Schema items a gold query uses, in the schema's own spelling.

    ``tables``: tables read (CTE names excluded); ``columns``: ``(table, column)`` pairs read anywhere in the
    query (``*`` excluded).
    """

    tables: frozenset[str]
    columns: frozenset[tuple[str, str]] = field(default_factory=frozenset)


def _schema_map(schema: Mapping[str, Sequence[str]]) -> tuple[dict[str, str], dict[tuple[str, str], tuple[str, str]]]:
    """Lower-cased table names -> spelling, and lower-cased ``(table, column)`` -> spelling."""
    tables = {t.lower(): t for t in schema}
    columns = {(t.lower(), c.lower()): (t, c) for t, cols in schema.items() for c in cols}
    return tables, columns


def _scope_columns(tree: exp.Expr) -> Iterable[tuple[str, str]]:
    """``(table, column)`` of every column whose scope source is a base table (lower-cased names)."""
    for scope in traverse_scope(tree):
        for column in scope.columns:
            source = scope.sources.get(column.table)
            if isinstance(source, exp.Table) and column.name != "*":
                yield source.name.lower(), column.name.lower()


def _fallback_columns(tree: exp.Expr, tables: set[str],
                      columns: Mapping[tuple[str, str], tuple[str, str]]) -> Iterable[tuple[str, str]]:
    """Columns resolved without sqlglot's qualifier: by alias, else by the one query table that has the name."""
    aliases = {t.alias_or_name.lower(): t.name.lower() for t in tree.find_all(exp.Table)}
    for column in tree.find_all(exp.Column):
        name = column.name.lower()
        if column.table:
            yield aliases.get(column.table.lower(), column.table.lower()), name
            continue
        owners = [t for t in tables if (t, name) in columns]
        if len(owners) == 1:
            yield owners[0], name


def gold_links(sql: str, schema: Mapping[str, Sequence[str]], dialect: str = "sqlite") -> GoldLinks | None:
    """Tables and ``(table, column)`` pairs of ``schema`` that ``sql`` reads.

    Args:
        sql: the gold query.
        schema: column names by table name (any case; matching is case-insensitive, results use this spelling).
        dialect: sqlglot dialect of ``sql``.

    Returns:
        The :class:`GoldLinks`; None when sqlglot cannot parse ``sql`` or it reads no table of ``schema``.
        Columns come from :func:`sqlglot.optimizer.qualify.qualify` with ``schema`` (aliases and unqualified
        names resolved per scope); when qualifying fails, from aliases and unambiguous names only.
    """
    table_names, column_names = _schema_map(schema)
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return None
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    used = {t.name.lower() for t in tree.find_all(exp.Table)} - ctes
    tables = {t for t in used if t in table_names}
    if not tables:
        return None
    types_: dict[str, object] = {t.lower(): {c.lower(): "TEXT" for c in cols} for t, cols in schema.items()}
    try:
        qualified = qualify(tree.copy(), schema=types_, dialect=dialect, validate_qualify_columns=False,
                            quote_identifiers=False, identify=False)
        pairs = list(_scope_columns(qualified))
    except (SqlglotError, KeyError, ValueError):
        pairs = list(_fallback_columns(tree, tables, column_names))
    columns = {column_names[p] for p in pairs if p in column_names}
    return GoldLinks(frozenset(table_names[t] for t in tables), frozenset(columns))


def link_row(gold: GoldLinks, chosen: Iterable[str], tokens: int) -> dict[str, Any]:
    """One question's linking figures for one selection of tables.

    Args:
        gold: the gold query's links (:func:`gold_links`).
        chosen: the tables the schema text shows (case-insensitive).
        tokens: estimated tokens of the schema text.

    Returns:
        ``{"table_recall", "column_recall" (None without gold columns), "complete" (every gold table and column
        shown), "tokens", "missed_tables", "missed_columns" (``"table.column"``, sorted)}``; recalls in 0..1.
    """
    shown = {t.lower() for t in chosen}
    missed_tables = sorted(t for t in gold.tables if t.lower() not in shown)
    missed_columns = sorted(f"{t}.{c}" for t, c in gold.columns if t.lower() not in shown)
    return {
        "table_recall": 1 - len(missed_tables) / len(gold.tables),
        "column_recall": 1 - len(missed_columns) / len(gold.columns) if gold.columns else None,
        "complete": not missed_tables and not missed_columns,
        "tokens": tokens,
        "missed_tables": missed_tables,
        "missed_columns": missed_columns,
    }


def tool_context(settings: Settings, store: VectorStore, db_key: str, dialect: str = "sqlite") -> Any:
    """The minimal tool context :class:`RetrieveSchemaTool` reads: settings, store, the database's key and catalog."""
    return cast(Any, types.SimpleNamespace(settings=settings, store=store,
                                           db=types.SimpleNamespace(key=db_key, dialect=dialect),
                                           catalog=lambda: load_catalog(store, db_key)))


def linking_for_budgets(question: str, gold: GoldLinks, ctx: Any, budgets: Sequence[int]) -> dict[int, dict[str, Any]]:
    """Run the retrieve_schema tool on ``question`` at each token budget and score its tables (:func:`link_row`).

    ``k``, the core-block share and the join-path mode come from ``ctx.settings.retrieval``; each row also has
    ``"tables"`` (shown) and ``"whole"`` (every table of the database shown). Raises RuntimeError when the tool
    fails (no index).
    """
    cfg = ctx.settings.retrieval
    tool = RetrieveSchemaTool()
    catalog = load_catalog(ctx.store, ctx.db.key)
    all_tables = set(catalog.names) if catalog else set()
    rows = {}
    for budget in budgets:
        args = RetrieveSchemaArgs(query=question, k=cfg.top_k_tables, budget=budget,
                                  core_fraction=cfg.core_block_fraction, join_paths=cfg.join_paths)
        result = tool.run(args, ctx)
        if not result.ok:
            raise RuntimeError(result.error or "retrieve_schema failed")
        tables = list(result.value["tables"])
        row = link_row(gold, tables, int(result.value["tokens"]))
        row.update(tables=tables, whole=set(tables) >= all_tables)
        rows[budget] = row
    return rows


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Mean figures of :func:`link_row` rows, in percent (tokens: mean estimate).

    Returns:
        ``{"questions", "table_recall", "column_recall" (over questions with gold columns), "complete",
        "cut" (share of questions whose schema was cut), "tokens"}``; {} for no rows.
    """
    if not rows:
        return {}
    with_columns = [r["column_recall"] for r in rows if r["column_recall"] is not None]
    return {
        "questions": len(rows),
        "table_recall": round(100 * statistics.mean(r["table_recall"] for r in rows), 1),
        "column_recall": round(100 * statistics.mean(with_columns), 1) if with_columns else 100.0,
        "complete": round(100 * statistics.mean(bool(r["complete"]) for r in rows), 1),
        "cut": round(100 * statistics.mean(not r.get("whole", True) for r in rows), 1),
        "tokens": round(statistics.mean(r["tokens"] for r in rows)),
    }
