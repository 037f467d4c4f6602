"""``nl2sql mcp``: the assistant's tools over the Model Context Protocol (official ``mcp`` SDK).

IDE agents and other assistants get five tools, with the same guard and limits as the app: ``ask`` (the whole
agent: answer, SQL, rows, or a clarification / follow-up / refusal), ``run_sql`` (one read-only statement
through the guarded path: sqlglot guard, read-only connection, timeout, row cap), ``search_schema`` (two-stage
table retrieval), ``search_values`` (referential value search) and ``list_databases``. Transports: stdio (the
default, for a client that launches the command) and streamable HTTP on loopback (``--http``).

Databases are the ones the settings name (``mcp_databases``: name -> SQLAlchemy URL; by default the configured
database under its key); each gets its agent once, built on first use. The SQL that ``ask`` and ``run_sql``
execute is audited as ``users.default_user`` (:mod:`cli.audit`).
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer

from agent.context import AgentDeps
from agent.runner import ask, build_deps
from cli.audit import audit_sink
from core.llm import UsageLog
from core.settings import Settings
from database.connection import Database
from tools.audit import audit_scope, run_audited
from tools.base import ToolCall

MAX_ROWS = 200
"""Rows returned to an MCP client per call (the full result stays within the row cap on the server)."""

DepsFactory = Callable[[Settings], AgentDeps]


def databases(settings: Settings) -> dict[str, str]:
    """Name -> URL of the databases the server offers (``mcp_databases``, else the configured one)."""
    if settings.mcp_databases:
        return dict(settings.mcp_databases)
    return {Database.from_settings(settings).key: settings.database_url}


def build_server(settings: Settings, deps_factory: DepsFactory | None = None) -> MCPServer:
    """The MCP server with its five tools; ``deps_factory`` replaces :func:`agent.runner.build_deps` (tests)."""
    server = MCPServer(name="nl2sql-analyst", instructions=(
        "Answer questions about SQL databases in plain language (ask), or run read-only SQL (run_sql). "
        "Use list_databases first; search_schema and search_values help write SQL by hand."))
    offered = databases(settings)
    agents: dict[str, AgentDeps] = {}
    lock = threading.Lock()
    factory = deps_factory or (lambda s: build_deps(s))

    def deps_for(database: str | None) -> AgentDeps:
        name = database or next(iter(offered))
        if name not in offered:
            raise ValueError(f"unknown database {name!r}; known: {', '.join(offered)}")
        with lock:
            if name not in agents:
                agents[name] = factory(settings.with_database(offered[name]))
                agents[name].audit = audit_sink(settings)
            return agents[name]

    @server.tool(description="List the databases this server can question (name and SQL dialect).")
    def list_databases() -> dict[str, Any]:
        return {"databases": [{"name": n, "dialect": Database(url).dialect} for n, url in offered.items()]}

    @server.tool(name="ask", description="Answer a question about a database in plain language. Returns the answer text, "
                             "its kind (answer, clarify, follow_up, refuse), the SQL, what it computed in words "
                             "(account), how far to trust it (confidence: score, level verified, likely or "
                             "unsure, reasons), the columns whose names say nothing that it read by guess or left "
                             "unread for a question word no readable column names, the joins on links no "
                             "foreign key states, and the rows.")
    def ask_question(question: str, database: str | None = None) -> dict[str, Any]:
        out = ask(deps_for(database), question)
        return {"answer": out.answer, "kind": out.kind, "status": out.status, "sql": out.sql,
                "account": out.account, "confidence": out.confidence.model_dump() if out.confidence else None,
                "guessed_columns": out.guessed_columns, "unread_terms": out.unread_terms,
                "unread_columns": out.unread_columns, "range_conflicts": out.range_conflicts,
                "text_order": out.text_order, "unstated_joins": out.unstated_joins,
                "columns": out.columns, "rows": [[_cell(v) for v in r] for r in out.rows[:MAX_ROWS]],
                "row_count": out.total_rows, "readings": out.readings, "missing": out.missing}

    @server.tool(description="Run one read-only SQL statement (SELECT or WITH) and return its rows.")
    def run_sql(sql: str, database: str | None = None) -> dict[str, Any]:
        deps = deps_for(database)
        with audit_scope(deps.audit, settings.users.default_user):
            res = run_audited(deps.db, sql)
        if not res.ok:
            return {"ok": False, "error": res.error}
        return {"ok": True, "sql": res.sql, "columns": list(res.columns), "truncated": res.truncated,
                "rows": [[_cell(v) for v in r] for r in res.rows[:MAX_ROWS]], "row_count": len(res.rows)}

    @server.tool(description="Find the tables and columns relevant to keywords (schema DDL and join paths).")
    def search_schema(query: str, database: str | None = None) -> dict[str, Any]:
        return _run_tool(deps_for(database), "retrieve_schema", query, ("tables", "join_paths"))

    @server.tool(description="Find stored values (names, codes, tickers) that words of a question refer to.")
    def search_values(query: str, database: str | None = None) -> dict[str, Any]:
        return _run_tool(deps_for(database), "search_values", query, ("matches",))

    return server


def _run_tool(deps: AgentDeps, tool: str, query: str, keys: tuple[str, ...]) -> dict[str, Any]:
    result = deps.registry.run(ToolCall(query, "#E1", tool, query), deps.context(UsageLog()))
    if not result.ok:
        return {"ok": False, "error": result.error}
    return {"ok": True, "text": result.text, **{k: result.value.get(k) for k in keys}}


def _cell(value: Any) -> Any:
    """A JSON-friendly cell (numbers, strings, None stay; anything else becomes its text)."""
    return value if value is None or isinstance(value, (int, float, str, bool)) else str(value)


def run_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """``nl2sql mcp [--http] [--port N]``: serve until interrupted (stdio by default)."""
    server = build_server(settings.with_database(getattr(args, "database", None)))
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.port)
    else:
        server.run("stdio")
    return 0
