"""Follow-up questions with the real local model: a thread remembers the previous question and its SQL."""

from __future__ import annotations

from agent.context import AgentDeps
from agent.graph import build_graph
from agent.memory import open_checkpointer
from agent.runner import ask

LAST_CLOSE = ("SELECT p.PX_LST FROM EQ_MSTR m JOIN EQ_PX_D p ON p.EQ_ID = m.EQ_ID "
              "WHERE m.TICKER = '{ticker}' AND p.TRD_DT = (SELECT MAX(TRD_DT) FROM EQ_PX_D)")


def test_follow_up_for_another_company(demo_deps: AgentDeps) -> None:
    graph = build_graph(checkpointer=open_checkpointer(demo_deps.settings))
    first = ask(demo_deps, "What was Apple's closing price on the last trading day in the data?",
                graph=graph, thread_id="it-followup")
    assert first.status == "ok", first.answer
    second = ask(demo_deps, "And for Microsoft?", graph=graph, thread_id="it-followup")
    assert second.status == "ok", second.answer
    msft = demo_deps.db.run_query(LAST_CLOSE.format(ticker="MSFT")).rows[0][0]
    aapl = demo_deps.db.run_query(LAST_CLOSE.format(ticker="AAPL")).rows[0][0]
    cells = {v for row in second.rows for v in row}
    assert msft in cells and aapl not in cells, (second.sql, second.rows[:5])
    assert len(second.rows) == 1
