"""Guarded read-only SQL execution tool."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.base import Tool, ToolCall, ToolContext, ToolResult

PREVIEW_ROWS = 10


class ExecuteSQLArgs(BaseModel):
    """One SQL statement (checked by the guard before it runs)."""

    sql: str = Field(min_length=1, max_length=20000)


class ExecuteSQLTool(Tool[ExecuteSQLArgs]):
    """Runs SQL through :meth:`retrieval.database.Database.run_query` (guard, read-only, timeout, row cap).

    Returns ``kind="rows"`` with ``value = {"sql", "columns", "rows", "truncated", "row_count"}``; database
    errors come back as ``ok=False`` results carrying the database's message.
    """

    name = "execute_sql"
    description = "run the SQL written by a generate_sql step, read-only (input: that step's id)"
    Args = ExecuteSQLArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> ExecuteSQLArgs:
        """SQL = the referenced generate_sql result; otherwise the literal input (manual runs)."""
        sql_results = call.referenced("sql")
        if sql_results:
            return ExecuteSQLArgs(sql=str(sql_results[-1].value["sql"]))
        if any(not r.ok for r in call.refs.values()):
            raise ValueError("the SQL to execute was not produced (an earlier step failed)")
        return ExecuteSQLArgs(sql=call.input)

    def run(self, args: ExecuteSQLArgs, ctx: ToolContext) -> ToolResult:
        """Execute and package the rows; the ``text`` shows a preview of at most 10 rows."""
        res = ctx.db.run_query(args.sql)
        if not res.ok:
            return ToolResult(ok=False, kind="error", text=f"ERROR: {res.error}", error=res.error,
                              value={"sql": args.sql})
        return ToolResult(
            ok=True,
            kind="rows",
            text=res.preview(PREVIEW_ROWS),
            value={
                "sql": res.sql,
                "columns": list(res.columns),
                "rows": [list(r) for r in res.rows],
                "truncated": res.truncated,
                "row_count": len(res.rows),
            },
        )
