"""The chat page: questions in, answers out.

With a live status of the plan steps, durable conversations (reopen any past one) and feedback on every
answer.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import streamlit as st

from agent.context import AgentDeps
from agent.graph import AgentGraph
from agent.outcome import Outcome
from agent.runner import ask
from records.runs import new_thread_id
from ui import identity, services
from ui.knowledge import index_if_missing
from ui.messages import explain
from ui.render import feedback_widget, show_turn


def step_line(record: dict[str, Any]) -> str:
    """One status line for a node's trace record: what ran, how long, ok or not."""
    mark = ":material/check:" if record.get("ok") else ":material/error:"
    seconds = f"{record.get('latency_s', 0):.1f} s"
    if record.get("node") == "plan":
        steps = ", ".join(f"{s['id']} {s['tool']}" for s in record.get("steps", []))
        return f"{mark} Planned ({record.get('source')}, {seconds}): {steps}"
    if record.get("node") == "solve":
        return f"{mark} Answer written ({seconds})"
    error = f": {record['error']}" if record.get("error") else ""
    return f"{mark} {record.get('step')} {record.get('tool')} ({seconds}){error}"


def turns_started() -> bool:
    """True once this browser session has asked a question (the warm-up note is then no longer shown)."""
    return bool(st.session_state.get("asked"))


def warm_up_note() -> None:
    """The model's prompt preparation as a live line while it runs; gone once it ends.

    The page and the question box are usable at once (``make demo`` no longer prepares the model before the page
    starts); a question asked meanwhile waits for the model, and the line says so. While the preparation runs the
    line is a Streamlit fragment redrawn every 2 seconds on its own, so it leaves without a rerun of the page;
    when nothing is being prepared no fragment is drawn at all.
    """
    if services.warm_up_running():
        _live_warm_up_note()


@st.fragment(run_every=2.0)
def _live_warm_up_note() -> None:
    status = services.warm_up_status()
    if services.warm_up_running():
        waiting = " Your question waits for it and is answered next." if turns_started() else (
            " You can type your question now: it is answered as soon as the model is ready.")
        st.caption(f"{status}{waiting}")


def current_thread() -> str:
    """This browser session's conversation id (a new one on first visit)."""
    if "thread_id" not in st.session_state:
        st.session_state.thread_id = new_thread_id()
    thread_id: str = st.session_state.thread_id
    return thread_id


def open_thread(thread_id: str) -> None:
    """Switch this browser session to ``thread_id`` (a widget callback: runs before the page is drawn)."""
    st.session_state.thread_id = thread_id


def sidebar(database: str, user: str | None = None) -> None:
    """New conversation, and the list of ``user``'s past conversations of this database to reopen.

    Drawn last, so a question just answered is listed.
    """
    with st.sidebar:
        st.button("New conversation", icon=":material/add:", width="stretch", on_click=open_thread,
                  args=(new_thread_id(),))
        st.subheader("Conversations")
        threads = services.run_store().threads(database=database, limit=30, user=user)
        if not threads:
            st.caption("No conversations yet.")
        for t in threads:
            when = datetime.fromtimestamp(t["updated"]).strftime("%d %b %H:%M")
            current = t["id"] == st.session_state.get("thread_id")
            label = f"{'▸ ' if current else ''}{t['title'][:48]} · {t['turns']} · {when}"
            st.button(label, key=f"thread-{t['id']}", width="stretch", type="tertiary", on_click=open_thread,
                      args=(t["id"],))


def answer(question: str, deps: AgentDeps, graph: AgentGraph, thread_id: str, user: str | None = None) -> Outcome:
    """Run one turn for ``user`` with a live status of its steps; always returns an outcome (errors included)."""
    started = time.perf_counter()
    with st.status("Planning...", expanded=True) as status:
        plan: list[dict[str, Any]] = []
        done: set[str] = set()

        def on_event(record: dict[str, Any]) -> None:
            """Write the finished node's line and name the step that runs next."""
            if record.get("node") == "plan":
                plan[:] = record.get("steps", [])
            elif record.get("node") == "run_step":
                done.add(str(record.get("step")))
            status.write(step_line(record))
            nxt = next((s for s in plan if s["id"] not in done), None)
            elapsed = f"{time.perf_counter() - started:.0f} s"
            status.update(label=f"Running {nxt['id']} {nxt['tool']}... ({elapsed})" if nxt
                          else f"Writing the answer... ({elapsed})")

        try:
            out = ask(deps, question, graph=graph, thread_id=thread_id, on_event=on_event, user=user)
        except Exception as exc:  # never lose the conversation: the failure becomes the turn's answer
            out = Outcome.failure(f"{type(exc).__name__}: {exc}", question=question, database=deps.db.key,
                                  thread_id=thread_id, started=started)
        failed = out.status == "error"
        status.update(label=f"{'Failed' if failed else 'Done'} in {out.latency_s:.1f} s",
                      state="error" if failed else "complete", expanded=False)
    return out


def chat_page() -> None:
    """The analyst's page."""
    cfg = services.settings()
    me = identity.current_identity(cfg).user
    st.title("Ask your data")
    try:
        deps, graph = services.load_agent()
    except Exception as exc:  # setup problems (model, database, index) are explained, not raised
        st.error(f"The assistant could not start: {explain(f'{type(exc).__name__}: {exc}', cfg)}")
        st.stop()
    try:
        index_if_missing(deps)
    except Exception as exc:  # an index that cannot be built is explained, not raised
        st.error(f"The database could not be indexed: {explain(f'{type(exc).__name__}: {exc}', cfg)}")
        st.stop()
    st.caption(f"Database `{deps.db.key}` · generator `{cfg.generator.model}` ({cfg.generation_profile()} profile)")
    warning = cfg.profile_warning()
    if warning:
        st.warning(warning)
    warm_up_note()
    thread_id = current_thread()
    runs, feedback = services.run_store(), services.feedback_store()
    turns = runs.thread_runs(thread_id, user=me)
    question = st.chat_input("Ask a question about the data") or st.session_state.pop("pending_question", None)
    if not turns and not question:
        st.info("Ask a question in plain language, for example *“What was Apple's closing price on the last "
                "trading day?”* or *“Plot the daily close of MSFT in September 2025”*. Follow-ups continue the "
                "conversation.")
    for i, out in enumerate(turns):
        with st.chat_message("user"):
            st.markdown(out.question)
        with st.chat_message("assistant"):
            show_turn(out, cfg, key=out.run_id or str(i))
            feedback_widget(out, deps, feedback, key=out.run_id or str(i), user=me)
    if question:
        with st.chat_message("user"):
            st.markdown(question)
        with st.chat_message("assistant"):
            st.session_state.asked = True
            out = answer(question, deps, graph, thread_id, me)
            try:
                runs.save_run(out, user=me)
            except Exception as exc:  # the answer is still shown; the failure to store it is reported
                st.warning(f"This answer could not be saved to the conversation history: {exc}")
            show_turn(out, cfg, key=out.run_id)
            feedback_widget(out, deps, feedback, key=out.run_id, user=me)
    sidebar(deps.db.key, me)
