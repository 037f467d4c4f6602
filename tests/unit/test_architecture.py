"""The house rules: imports point down the layers without circles, and a new tool is one module plus one
registry line (the plan types, validation, planner prompt and runtime pick it up from its declaration)."""

from __future__ import annotations

import ast
from pathlib import Path

from importlinter.cli import lint_imports
from pydantic import BaseModel

from agent.plan import draft_model
from agent.runner import ask, build_deps
from core.settings import Settings
from retrieval.store import ChromaStore
from tests.support.scripted_model import ScriptedChatModel
from tools.base import Tool, ToolCall, ToolContext, ToolResult
from tools.registry import ToolRegistry, default_registry

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("core", "database", "retrieval", "rewrites", "prompts", "tools", "agent", "records", "eval", "ui", "cli")


def test_import_contracts_hold() -> None:
    """Layers and acyclic siblings as declared in pyproject.toml ([tool.importlinter])."""
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0


def test_no_command_line_code_in_library_modules() -> None:
    """argparse and print() live in cli/ (and eval's own report printing), never in the layers below."""
    offenders = []
    for package in ("core", "database", "retrieval", "rewrites", "prompts", "tools", "agent", "records"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                    if "argparse" in names:
                        offenders.append(f"{path.relative_to(ROOT)}: imports argparse")
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: print()")
    assert offenders == []


class CountRowsArgs(BaseModel):
    """Arguments of the example tool: table names from the schema step."""

    tables: list[str]


class CountRowsTool(Tool[CountRowsArgs]):
    """A tool written the way a new one would be: declaration plus build_args and run."""

    name = "count_rows"
    description = "count the rows of each retrieved table (input: the retrieve_schema id)"
    Args = CountRowsArgs
    result_kind = "text"
    requires = ("retrieve_schema",)
    flag = "n"

    def build_args(self, call: ToolCall, ctx: ToolContext) -> CountRowsArgs:
        """Table names of the referenced schema results."""
        return CountRowsArgs(tables=[t for r in call.referenced("schema") for t in r.value.get("tables", [])])

    def run(self, args: CountRowsArgs, ctx: ToolContext) -> ToolResult:
        """One ``table: n`` line per table."""
        lines = []
        for table in args.tables:
            res = ctx.db.run_query(f'SELECT COUNT(*) FROM "{table}"')
            lines.append(f"{table}: {res.rows[0][0] if res.ok else res.error}")
        return ToolResult(ok=True, kind="text", text="\n".join(lines))


def test_a_new_tool_is_one_module_plus_one_registry_line(shop_settings: Settings, shop_store: ChromaStore) -> None:
    tools = [default_registry().get(n) for n in default_registry().names]
    registry = ToolRegistry([tools[0], CountRowsTool(), *tools[1:]])  # the one line, after retrieve_schema
    assert "- count_rows: count the rows" in registry.describe(registry.enabled_names(shop_settings))
    enum = draft_model(tuple(registry.planned_names())).model_json_schema()["$defs"]["DraftStep"]["properties"]
    assert "count_rows" in enum["tool"]["enum"]
    assert registry.flags(shop_settings)["n"] == "count_rows"
    compact = {"models": {"planner": ScriptedChatModel(replies=[{"n": 1}]),
                          "generator": ScriptedChatModel(replies=[{"sql": "SELECT COUNT(*) AS n FROM customers"}]),
                          "organizer": ScriptedChatModel(replies=[{"text": "There are 3 customers."}])}}
    deps = build_deps(shop_settings, llm_overrides=compact["models"], store=shop_store)  # type: ignore[arg-type]
    deps.registry = registry
    out = ask(deps, "How many customers?")
    assert out.plan_source == "planner", out.plan_error
    assert [s["tool"] for s in out.plan][:8] == ["retrieve_schema", "count_rows", "retrieve_examples",
                                                 "search_values", "lookup_knowledge", "check_question", "generate_sql",
                                                 "execute_sql"]
    assert "customers: 3" in next(t["output"] for t in out.trace if t.get("tool") == "count_rows")
    shop_settings = shop_settings.model_copy(update={"plan_format": "full"})
    plan = {"steps": [
        {"tool": "retrieve_schema", "input": "customers"},
        {"tool": "count_rows", "input": "#E1"},
        {"tool": "generate_sql", "input": "How many customers? #E1 #E2"},
        {"tool": "execute_sql", "input": "#E3"},
    ]}
    models = {"planner": ScriptedChatModel(replies=[plan]),
              "generator": ScriptedChatModel(replies=[{"reasoning": "", "sql": "SELECT COUNT(*) AS n FROM customers"}]),
              "organizer": ScriptedChatModel(replies=[{"text": "There are 3 customers."}])}
    deps = build_deps(shop_settings, llm_overrides=models, store=shop_store)  # type: ignore[arg-type]
    deps.registry = registry
    out = ask(deps, "How many customers?")
    assert out.plan_source == "planner", out.plan_error
    step = next(t for t in out.trace if t.get("tool") == "count_rows")
    assert step["ok"] and "customers: 3" in step["output"]
    assert out.rows == [[3]]
    bad = {"steps": [{"tool": "count_rows", "input": "x"}, {"tool": "generate_sql", "input": "#E1"},
                     {"tool": "execute_sql", "input": "#E2"}]}
    models["planner"] = ScriptedChatModel(replies=[bad])
    models["generator"] = ScriptedChatModel(replies=[{"reasoning": "", "sql": "SELECT COUNT(*) AS n FROM customers"}])
    deps = build_deps(shop_settings, llm_overrides=models, store=shop_store)  # type: ignore[arg-type]
    deps.registry = registry
    rejected = ask(deps, "How many customers?")
    assert rejected.plan_source == "fallback" and "retrieve_schema" in (rejected.plan_error or "")
