"""Developer panel, part 1: the local trace of every run, and the tool bench (run one tool by hand)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
import streamlit as st

from agent.context import AgentDeps
from core.llm import UsageLog
from tools.manual import run_tool
from ui import services
from ui.render import tracing_enabled


def langsmith_link(run_id: str) -> str | None:
    """The LangSmith URL of ``run_id`` when tracing is configured and the run is found, else None."""
    if not tracing_enabled():
        return None
    try:
        from langsmith import Client

        client = Client()
        return str(client.get_run_url(run=client.read_run(run_id)))
    except Exception:  # not uploaded yet, no access, or offline: no link
        return None


def steps_frame(trace: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per node visit: node, step, tool, input, output, latency, LLM calls, tokens, error."""
    cols = ["node", "step", "tool", "input", "output", "latency_s", "llm_calls", "prompt_tokens",
            "cached_tokens", "completion_tokens", "ok", "error"]
    return pd.DataFrame([{c: r.get(c) for c in cols} for r in trace], columns=cols)


def traces_tab() -> None:
    """Search the stored runs and inspect one: plan, steps with inputs and outputs, LLM calls, answer."""
    store = services.run_store()
    left, right = st.columns([3, 1])
    search = left.text_input("Search questions", key="trace-search")
    status = right.selectbox("Status", ["any", "ok", "empty", "error"], key="trace-status")
    runs = store.runs(search=search or None, status=None if status == "any" else status)
    if not runs:
        st.info("No runs recorded yet: ask something on the chat page.")
        return
    frame = pd.DataFrame(runs)
    frame["created"] = [datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S") for t in frame["created"]]
    st.dataframe(frame.drop(columns=["thread_id"]), width="stretch", hide_index=True)
    labels = {r["run_id"]: f"{datetime.fromtimestamp(r['created']):%H:%M:%S} · {r['question'][:70]}" for r in runs}
    run_id = st.selectbox("Run", list(labels), format_func=labels.__getitem__, key="trace-run")
    out = store.get_run(run_id) if run_id else None
    if not out:
        return
    st.markdown(f"**{out['question']}** → {out.get('status')} in {out.get('latency_s')} s, "
                f"{out.get('llm_calls')} LLM calls, {out.get('prompt_tokens')}+{out.get('completion_tokens')} "
                f"tokens · run `{run_id}` · thread `{out.get('thread_id')}`")
    link = langsmith_link(run_id)
    if link:
        st.link_button("Open in LangSmith", link)
    st.subheader("Plan")
    st.dataframe(pd.DataFrame(out.get("plan") or []), width="stretch", hide_index=True)
    st.subheader("Steps")
    st.dataframe(steps_frame(out.get("trace") or []), width="stretch", hide_index=True)
    st.subheader("LLM calls")
    st.dataframe(pd.DataFrame(out.get("usage") or []), width="stretch", hide_index=True)
    with st.expander("Answer and SQL"):
        st.markdown(out.get("answer") or "")
        if out.get("sql"):
            st.code(out["sql"], language="sql")
    with st.expander("Raw record (JSON)"):
        st.json(out, expanded=False)


def tools_tab(deps: AgentDeps) -> None:
    """Run one worker tool with custom input; prerequisites supply its ``#E`` references."""
    names = deps.registry.names
    with st.form("tool-bench"):
        tool = st.selectbox("Tool", names, key="bench-tool")
        question = st.text_input("Question", key="bench-question",
                                 placeholder="The analyst's question the tool sees")
        tool_input = st.text_area("Input", key="bench-input", height=90,
                                  placeholder="Step input, e.g. keywords for retrieve_schema or SQL for execute_sql")
        prereq = st.multiselect("Run first (passed as #E1..#Ek references)", names, key="bench-prereq")
        go = st.form_submit_button("Run tool")
    if not go:
        return
    if not question.strip() and not tool_input.strip():
        st.warning("Give a question or an input.")
        return
    with st.spinner(f"Running {tool}..."):
        run = run_tool(deps.registry, deps.context(UsageLog()), tool, question.strip() or tool_input.strip(), tool_input,
                       prereq)
    for step_id, name, result in run.steps:
        title = f"{step_id} {name}: {'ok' if result.ok else 'failed'} ({result.latency_s:.2f} s, {result.kind})"
        with st.expander(title, expanded=name == tool and step_id == run.steps[-1][0]):
            if result.error:
                st.error(result.error)
            st.text(result.text[:8000])
            st.json(result.value, expanded=False)
    if run.usage:
        st.dataframe(pd.DataFrame(run.usage), width="stretch", hide_index=True)
