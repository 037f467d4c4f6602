"""Streamlit chat: ask the database in plain language; see the answer, the table and the SQL.

Run with ``streamlit run app.py`` (``make demo`` does it). The agent and its dependencies are created once per
server process (``st.cache_resource``) and shared by browser sessions; each session keeps its own conversation.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from agent.configuration import Settings
from agent.graph import AgentDeps, build_graph
from agent.runner import ask, build_deps
from tools.charts import ChartSpec, figure_from_spec

st.set_page_config(page_title="NL2SQL analyst", page_icon=":bar_chart:", layout="wide")


@st.cache_resource(show_spinner="Starting the agent (loading the local model on first run)...")
def load_agent(database_url: str | None) -> tuple[AgentDeps, Any]:
    """Dependencies and the compiled graph for one database; shared by all sessions of this process."""
    deps = build_deps(Settings().with_database(database_url))
    return deps, build_graph(deps)


def show_result(turn: dict[str, Any]) -> None:
    """Render one answered turn: text, table (when there are rows), SQL and cost."""
    out = turn["outcome"]
    if out["status"] == "error":
        st.error(out["answer"])
    else:
        st.markdown(out["answer"])
    rows, columns = out.get("rows") or [], out.get("columns") or []
    if out.get("chart") and rows:
        try:
            st.plotly_chart(figure_from_spec(ChartSpec(**out["chart"]), columns, rows), width="stretch")
        except ValueError as exc:  # a spec that does not fit the data is reported, never executed
            st.warning(f"The chart could not be drawn: {exc}")
    if rows and not (len(rows) == 1 and len(columns) == 1):
        frame = pd.DataFrame(rows, columns=columns)
        st.dataframe(frame, width="stretch", hide_index=True)
        if out.get("truncated"):
            st.caption("Only the first rows are shown (row cap reached).")
    if out.get("sql"):
        with st.expander("SQL", expanded=bool(out.get("show_sql"))):
            st.code(out["sql"], language="sql")
    if out.get("candidates"):
        with st.expander("How the SQL was chosen"):
            st.dataframe(pd.DataFrame(out["candidates"]), width="stretch", hide_index=True)
            st.json({"judge": out.get("judge"), "verifier": out.get("verifier")}, expanded=False)
    st.caption(f"{out['latency_s']} s · {out['llm_calls']} LLM calls · "
               f"{out['prompt_tokens']}+{out['completion_tokens']} tokens · plan: {out.get('plan_source')}")


def history_of(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Compact history (question, SQL, result shape) of earlier turns, for the planner."""
    return [{"question": t["question"], "sql": t["outcome"].get("sql"), "columns": t["outcome"].get("columns", []),
             "row_count": len(t["outcome"].get("rows") or [])} for t in turns]


def main() -> None:
    """The chat page."""
    database_url = st.query_params.get("database")
    st.title("NL2SQL analyst assistant")
    try:
        deps, graph = load_agent(database_url)
    except Exception as exc:  # setup problems (model, database, index) are shown, not raised
        st.error(f"The agent could not start: {exc}")
        st.stop()
    with st.sidebar:
        st.subheader("Database")
        st.code(deps.db.key)
        st.caption(f"Model: {deps.settings.generator.model} at {deps.settings.generator.base_url}")
        if st.button("New conversation"):
            st.session_state.turns = []
    turns: list[dict[str, Any]] = st.session_state.setdefault("turns", [])
    for turn in turns:
        with st.chat_message("user"):
            st.markdown(turn["question"])
        with st.chat_message("assistant"):
            show_result(turn)
    question = st.chat_input("Ask a question about the data, e.g. \"AAPL close last day?\"")
    if question:
        with st.chat_message("user"):
            st.markdown(question)
        with st.chat_message("assistant"):
            with st.spinner("Planning, retrieving schema, writing and running SQL..."):
                try:
                    outcome = ask(deps, question, history=history_of(turns), graph=graph)
                except Exception as exc:  # keep the conversation whatever happens
                    outcome = {"answer": f"Something went wrong: {exc}", "status": "error", "sql": None,
                               "rows": [], "columns": [], "latency_s": 0, "llm_calls": 0,
                               "prompt_tokens": 0, "completion_tokens": 0}
            turn = {"question": question, "outcome": outcome}
            show_result(turn)
        turns.append(turn)


main()
