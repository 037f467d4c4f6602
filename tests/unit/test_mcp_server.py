"""The MCP server through the official SDK's in-process client: tools, the guard, ask with a scripted model."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from mcp import Client

from agent.context import AgentDeps
from agent.runner import build_deps
from cli.mcp_server import build_server
from core.settings import Settings
from retrieval.store import ChromaStore
from tests.support.scripted_model import ScriptedChatModel
from tests.unit.test_agent import COUNT_SQL


def _server(settings: Settings, store: ChromaStore) -> Any:
    def factory(s: Settings) -> AgentDeps:
        models = {"generator": ScriptedChatModel(replies=[{"sql": COUNT_SQL}]),
                  "organizer": ScriptedChatModel(replies=[{"text": "x"}]), "planner": ScriptedChatModel(replies=[{}])}
        return build_deps(s, llm_overrides=models, store=store)  # type: ignore[arg-type]
    return build_server(settings, deps_factory=factory)


def _run(coro: Any) -> Any:
    """Run ``coro`` on a fresh event loop in its own thread (other tests may leave a loop in this one)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _call(server: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        async with Client(server) as client:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result
            return dict(result.structured_content or {})
    return dict(_run(go()))


def test_tools_are_listed(shop_settings: Settings, shop_store: ChromaStore) -> None:
    async def names() -> list[str]:
        async with Client(_server(shop_settings, shop_store)) as client:
            return [t.name for t in (await client.list_tools()).tools]
    assert sorted(_run(names())) == ["ask", "list_databases", "run_sql", "search_schema", "search_values"]


def test_run_sql_is_read_only_and_capped(shop_settings: Settings, shop_store: ChromaStore) -> None:
    server = _server(shop_settings, shop_store)
    ok = _call(server, "run_sql", {"sql": "SELECT name FROM customers ORDER BY id"})
    assert ok["ok"] and ok["rows"] == [["Ana"], ["Bo"], ["Caio"]]
    refused = _call(server, "run_sql", {"sql": "DELETE FROM customers"})
    assert not refused["ok"] and "DELETE" in refused["error"]
    unknown = _run(_raw(server, "run_sql", {"sql": "SELECT 1", "database": "nope"}))
    assert unknown.is_error


async def _raw(server: Any, tool: str, args: dict[str, Any]) -> Any:
    async with Client(server) as client:
        return await client.call_tool(tool, args)


def test_ask_search_and_list(shop_settings: Settings, shop_store: ChromaStore) -> None:
    server = _server(shop_settings, shop_store)
    answer = _call(server, "ask", {"question": "How many customers are from Brazil?"})
    assert answer["kind"] == "answer" and answer["rows"] == [[2]] and answer["sql"]
    assert answer["account"][-1].startswith("Shows count of rows")  # what was computed, in words
    assert answer["guessed_columns"] == answer["unread_terms"] == answer["unread_columns"] == []  # readable names
    assert answer["confidence"]["level"] in ("verified", "likely", "unsure") and answer["confidence"]["reasons"]
    schema = _call(server, "search_schema", {"query": "customers country"})
    assert "customers" in schema["tables"]
    values = _call(server, "search_values", {"query": "customers from Brazil"})
    assert any(m["value"] == "Brazil" for m in values["matches"])
    listed = _call(server, "list_databases", {})
    assert listed["databases"] == [{"name": "shop", "dialect": "sqlite"}]


def test_stdio_transport_serves_the_tools(shop_settings: Settings, shop_store: ChromaStore) -> None:
    """``nl2sql mcp`` as a subprocess over stdio, the way an IDE launches it."""
    import os
    import sys

    from mcp import StdioServerParameters

    from core.settings import PROJECT_ROOT

    env = {**os.environ, "NL2SQL_LOCAL_LLM__AUTO_START": "false",
           "NL2SQL_RETRIEVAL__CHROMA_PATH": str(shop_settings.retrieval.chroma_path),
           "NL2SQL_STATE_DIR": str(shop_settings.state_dir)}
    params = StdioServerParameters(command=sys.executable, cwd=str(PROJECT_ROOT), env=env,
                                   args=["-m", "cli.main", "mcp", "--database", shop_settings.database_url])

    async def go() -> tuple[list[str], dict[str, Any]]:
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("run_sql", {"sql": "SELECT COUNT(*) FROM orders"})
            return names, dict(result.structured_content or {})

    names, counted = _run(go())
    assert "ask" in names and counted["rows"] == [[3]]
