"""Drawing one answered turn: text, table, chart, SQL, how it was chosen, cost, and feedback.

The table is sortable with a CSV download; the feedback is the thumbs up/down widget.
"""

from __future__ import annotations

import re
from typing import Literal

import pandas as pd
import streamlit as st

from agent.context import AgentDeps
from agent.outcome import Outcome
from core.settings import Settings
from knowledge.files import KnowledgeFileError, propose_synonym
from records.feedback import FeedbackStore, send_to_langsmith
from records.review import ReviewError, approve_feedback
from tools.charts import ChartSpec, figure_from_spec
from tools.term_check import TermCheck
from ui.messages import explain


def tracing_enabled() -> bool:
    """True when LangSmith tracing is configured (``LANGSMITH_TRACING`` and an API key, langsmith's rule)."""
    from langsmith.utils import tracing_is_enabled

    return bool(tracing_is_enabled())


def show_turn(out: Outcome, settings: Settings, key: str) -> None:
    """Render one stored outcome of :func:`agent.runner.ask`; ``key`` makes widget keys unique per turn."""
    if out.status == "error":
        st.error(explain(out.answer, settings))
    elif out.kind == "clarify":
        st.markdown("This question can be read in more than one way. Which one do you mean?")
        for i, reading in enumerate(out.readings):
            if st.button(reading, key=f"reading-{key}-{i}"):
                st.session_state["pending_question"] = reading  # asked in the same thread by the chat page
                st.rerun()
    elif out.kind == "follow_up":
        st.info(out.answer or "")
    elif out.kind == "refuse":
        st.warning(out.answer or "")
    else:
        st.markdown(out.answer or "")
        confidence_badge(out)
    rows, columns = out.rows, out.columns
    if out.chart and rows:
        try:
            st.plotly_chart(figure_from_spec(ChartSpec(**out.chart), columns, rows), width="stretch",
                            key=f"chart-{key}")
        except ValueError as exc:  # a spec that does not fit the data is reported, never executed
            st.warning(f"The chart could not be drawn: {exc}")
    if rows and not (len(rows) == 1 and len(columns) == 1):
        frame = pd.DataFrame(rows, columns=columns)
        st.dataframe(frame, width="stretch", hide_index=True, key=f"table-{key}")
        total = out.total_rows
        note = " (row cap reached: only the first rows)" if out.truncated else ""
        left, right = st.columns([3, 1])
        left.caption(f"{total} rows × {len(columns)} columns{note}. Click a column header to sort.")
        right.download_button("Download CSV", frame.to_csv(index=False).encode(), file_name="result.csv",
                              mime="text/csv", key=f"csv-{key}")
    if out.sql:
        with st.expander("SQL", expanded=out.show_sql):
            st.code(out.sql, language="sql", wrap_lines=True)
    if out.account:
        st.caption("What was computed:  \n" + "  \n".join(plain_markdown(line) for line in out.account))
    if out.definitions:
        st.caption("Definitions used: " + "; ".join(out.definitions))
    linked = used_links(out)
    if linked:
        st.caption("Read from stored values (the column's name says nothing): " + "; ".join(linked))
    for i, check in enumerate(out.term_checks):
        term_check_widget(TermCheck(**check), settings, f"{key}-{i}")
    others = other_readings(out)
    if others:
        with st.expander("Other readings the candidates gave"):
            for sql in others:
                st.code(sql, language="sql", wrap_lines=True)
    if out.candidates:
        with st.expander("How the SQL was chosen"):
            st.dataframe(pd.DataFrame(out.candidates), width="stretch", hide_index=True)
            st.json({"judge": out.judge, "verifier": out.verifier}, expanded=False)
    st.caption(f"{out.latency_s} s · {out.llm_calls} LLM calls · "
               f"{out.prompt_tokens}+{out.completion_tokens} tokens ({out.cached_tokens} cached) · "
               f"plan: {out.plan_source or '-'}")


def used_links(out: Outcome) -> list[str]:
    """``"'age' is HEAD.c10"`` for each opaque-column link whose column the executed SQL reads (word match)."""
    sql = out.sql or ""
    return [f"'{k['term']}' is {k['table']}.{k['column']}" for k in out.column_links
            if re.search(rf"(?<!\w){re.escape(str(k['column']))}(?!\w)", sql, re.I)]


BADGE_COLORS: dict[str, Literal["green", "orange", "red"]] = {"verified": "green", "likely": "orange",
                                                              "unsure": "red"}
BADGE_ICONS = {"verified": ":material/verified:", "likely": ":material/help:", "unsure": ":material/warning:"}


def confidence_badge(out: Outcome) -> None:
    """The answer's confidence level as a colored badge (its score on hover) with its reasons in a caption."""
    conf = out.confidence
    if conf is None:
        return
    st.badge(conf.level, color=BADGE_COLORS[conf.level], icon=BADGE_ICONS[conf.level],
             help=f"Estimated chance the result is right: {conf.score:.0%}")
    if conf.reasons:
        st.caption("Confidence: " + "; ".join(plain_markdown(r) for r in conf.reasons))
    if out.guessed_columns:
        st.caption("Read by guess from stored values (no name or description says what they hold): "
                   + ", ".join(f"`{ref}`" for ref in out.guessed_columns)
                   + ". A description approved in the developer panel's Onboarding review replaces the guess.")
    if out.unread_terms:
        st.caption("No readable column of the tables read names "
                   + ", ".join(f"\"{plain_markdown(t)}\"" for t in out.unread_terms)
                   + "; the answer reads none of their columns whose names say nothing ("
                   + ", ".join(f"`{ref}`" for ref in out.unread_columns)
                   + "). If one of them holds it, say so in the question or describe the column in the developer "
                   "panel's Onboarding review.")
    if out.range_conflicts:
        st.caption("Outside the stored values: " + "; ".join(plain_markdown(r) for r in out.range_conflicts)
                   + ". Such a filter keeps every row or none; check that the number belongs to that column.")
    for line in out.text_order:
        st.caption("Ordered as text: " + plain_markdown(line) + ".")
    if out.unstated_joins:
        st.caption("Joined on " + ("links" if len(out.unstated_joins) > 1 else "a link")
                   + " no foreign key of the database states: "
                   + ", ".join(f"`{line}`" for line in out.unstated_joins)
                   + ". Check that these columns mean the same thing; a join approved in the developer panel's "
                   "Onboarding review, or a `references` entry of the metadata file, becomes a stated key.")


def other_readings(out: Outcome, limit: int = 2) -> list[str]:
    """Up to ``limit`` SQL texts of candidates that returned rows (status ok) with SQL other than the answer's.

    Each SQL text is listed once (their results may still equal the answer's: candidates keep no result
    signature); [] unless the answer's confidence level is unsure.
    """
    if out.confidence is None or out.confidence.level != "unsure":
        return []
    seen = {out.sql}
    found: list[str] = []
    for cand in out.candidates:
        sql = cand.get("sql")
        if cand.get("status") == "ok" and sql and sql not in seen and len(found) < limit:
            seen.add(sql)
            found.append(str(sql))
    return found


def plain_markdown(text: str) -> str:
    """``text`` with the Markdown characters Streamlit would format (backslash, ``*_`$[]<>#~|``) escaped."""
    return re.sub(r"([\\`*_$\[\]<>#~|])", r"\\\1", text)


def feedback_widget(out: Outcome, deps: AgentDeps, store: FeedbackStore, key: str, user: str | None = None) -> None:
    """Thumbs up/down with an optional comment for one answer, stored at the first click as ``user``'s.

    Only ``user``'s own feedback on the answer is shown (all feedback when None). There is nothing to submit. A thumbs-up is approved as an example at once when ``auto_approve_feedback``
    is on and its SQL runs.
    """
    run_id = out.run_id
    if not run_id or not out.question:
        return
    existing = store.find(run_id=run_id, limit=1, user=user)
    if not existing:
        choice = st.feedback("thumbs", key=f"fb-{key}")
        if choice is None:
            return
        record = store.record(out, "up" if choice == 1 else "down", user=user)
        sent = send_to_langsmith(record, enabled=tracing_enabled())
        if sent:
            record = store.update(record.id, langsmith=sent)
        if record.status == "pending" and deps.settings.auto_approve_feedback:
            try:
                record, _ = approve_feedback(deps.store, deps.db, store, record.id,
                                             examples_path=deps.settings.resolved_examples_path())
            except ReviewError as exc:
                st.warning(f"Kept for review: {exc}")
        existing = [record]
    record = existing[0]
    label = {"pending": "proposed as an example, waiting for review", "approved": "added to the examples",
             "review": "sent to the review list", "rejected": "reviewed", "resolved": "reviewed"}
    thumb = ":material/thumb_up:" if record.rating == "up" else ":material/thumb_down:"
    st.caption(f"{thumb} Thanks, feedback saved ({label.get(record.status, record.status)}).")
    if record.comment:
        st.caption(f"Comment: {record.comment}")
        return
    with st.form(f"comment-{key}", border=False, clear_on_submit=True):
        text = st.text_input("Comment (optional)", key=f"fbtext-{key}", placeholder="What was right or wrong?")
        if st.form_submit_button("Save comment") and text.strip():
            record = store.update(record.id, comment=text.strip())
            send_to_langsmith(record, enabled=tracing_enabled(), comment_only=True)
            st.rerun()


def term_check_widget(check: TermCheck, settings: Settings, key: str) -> None:
    """Ask which offered column means ``check.term``; the choice is saved as a pending synonym record.

    Shown under an answer whose question used a word no documented column accounts for. Without a knowledge
    file path (a non-SQLite database with no ``knowledge_path``) the choice cannot be stored and a note says so.
    """
    if not check.options:
        st.caption(f"No column seems to hold '{check.term}': the answer uses the closest data it found.")
        return
    labels = [f"{o.table}.{o.column}" + (f"  (e.g. {', '.join(o.samples)})" if o.samples else "") for o in check.options]
    left, right = st.columns([3, 1])
    pick = left.selectbox(f"Which column means '{check.term}'?", range(len(labels)), format_func=lambda i: labels[i],
                          key=f"term-{key}")
    if right.button("Save for review", key=f"term-save-{key}"):
        path = settings.resolved_knowledge_path()
        option = check.options[int(pick)]
        if path is None:
            st.warning("This database has no knowledge file path (set knowledge_path) to keep the choice.")
            return
        try:
            record_id = propose_synonym(path, check.term, option.table, option.column)
        except (KnowledgeFileError, ValueError, OSError) as exc:
            st.warning(f"The choice could not be saved: {exc}")
            return
        st.success(f"Saved as the pending synonym record {record_id}; a reviewer approves it in the knowledge page.")
