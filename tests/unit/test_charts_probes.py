"""Chart specs (validation, fallback, Plotly rendering) and the verifier's read-only probes."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.llm import LLMProvider, UsageLog
from core.settings import Settings
from database.connection import Database
from tests.support.scripted_model import ScriptedChatModel
from tools.base import ToolCall, ToolContext, ToolResult
from tools.charts import (
    BuildChartTool,
    ChartSpec,
    figure_from_spec,
    frame_of,
    heuristic_spec,
    validate_spec,
    wants_chart,
)
from tools.probes import plan_probes, run_probes

COLUMNS = ["order_date", "amount"]
ROWS = [["2024-01-02", 10.5], ["2024-02-03", 20.0], ["2024-02-04", 7.25]]


def _chart(settings: Settings, reply: object) -> ToolResult:
    organizer = ScriptedChatModel(replies=[reply])
    ctx = ToolContext(settings, Database.from_settings(settings), None,  # type: ignore[arg-type]
                      LLMProvider(settings, {"organizer": organizer}), UsageLog())
    rows = ToolResult(ok=True, kind="rows", value={"columns": COLUMNS, "rows": ROWS})
    tool = BuildChartTool()
    call = ToolCall("Plot order amounts over time", "#E7", "build_chart", "#E6", {"#E6": rows})
    return tool.run(tool.build_args(call, ctx), ctx)


def test_valid_llm_spec_is_used(shop_settings: Settings) -> None:
    res = _chart(shop_settings, {"kind": "line", "x": "order_date", "y": "amount", "title": "Amounts"})
    assert res.ok and res.value["source"] == "llm" and res.value["spec"]["kind"] == "line"


@pytest.mark.parametrize("reply", [
    {"kind": "bar", "x": "customer", "y": "amount"},          # invented column
    {"kind": "line", "x": "amount", "y": "order_date"},       # y not numeric
    {"kind": "sankey", "x": "order_date", "y": "amount"},     # unknown kind
    "print('no code is ever run')",                           # not JSON
])
def test_invalid_specs_fall_back_to_a_heuristic(shop_settings: Settings, reply: object) -> None:
    res = _chart(shop_settings, reply)
    assert res.ok and res.value["source"] == "heuristic"
    assert res.value["spec"] == {"kind": "line", "x": "order_date", "y": "amount", "color": None, "facet": None,
                                 "title": "Plot order amounts over time"}


def test_figure_from_spec_renders_every_kind() -> None:
    for kind in ("line", "bar", "scatter", "area", "pie"):
        fig = figure_from_spec(ChartSpec(kind=kind, x="order_date", y="amount", title="t"), COLUMNS, ROWS)
        assert len(fig.data) >= 1
    fig = figure_from_spec(ChartSpec(kind="histogram", x="amount"), COLUMNS, ROWS)
    assert fig.data[0].type == "histogram"
    with pytest.raises(ValueError, match="not a column"):
        figure_from_spec(ChartSpec(kind="bar", x="nope", y="amount"), COLUMNS, ROWS)


def test_heuristics_and_chart_words() -> None:
    frame = frame_of(["country", "n"], [["Brazil", "2"], ["Sweden", "1"]])  # numbers as text are converted
    spec = heuristic_spec(frame)
    assert spec is not None and (spec.kind, spec.x, spec.y) == ("bar", "country", "n")
    assert validate_spec(spec, frame) is None
    assert heuristic_spec(frame_of(["name"], [["Ana"]])) is None
    assert wants_chart("plot that") and wants_chart("Show a bar chart of volume")
    assert not wants_chart("How many customers are from Brazil?")


def test_probes_find_the_real_spelling(shop_settings: Settings, shop_db: Path) -> None:
    db = Database.from_settings(shop_settings)
    sql = "SELECT COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.country = 'brasil'"
    probes = plan_probes(sql, "sqlite")
    assert [p.purpose for p in probes] == ["values of customers.country"]
    assert "DISTINCT" in probes[0].sql.upper()
    lines = run_probes(db, probes)
    assert "'brasil' does NOT exist" in lines[0] and lines[0].index("'Brazil'") < lines[0].index("'Sweden'")
    # a sensitive column's stored values never reach a probe line
    assert run_probes(db, probes, sensitive_patterns=["country"]) == []
    assert run_probes(db, probes, sensitive_patterns=["e_?mail"]) == lines


def test_probes_list_columns_for_unknown_column_errors(shop_settings: Settings) -> None:
    db = Database.from_settings(shop_settings)
    probes = plan_probes("SELECT revenue FROM orders", "sqlite", error="no such column: revenue")
    lines = run_probes(db, probes)
    assert lines == ["- columns of orders: id, customer_id, order_date, amount"]
    assert plan_probes("SELEC nonsense (", "sqlite") == []
