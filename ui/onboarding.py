"""Developer panel, *Onboarding* tab: run or resume onboarding, then review the drafts in bulk, best first.

A progress bar per step follows the run. The logic lives outside Streamlit: :class:`ProgressBoard` turns progress events into per-step fractions and
captions, :func:`selected` reads the checkbox selection, :func:`records.review.review_drafts` approves or rejects,
and :func:`retrieval.onboarding.current_queue` orders the queue (its score is documented in
:mod:`retrieval.onboarding.queue`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from agent.context import AgentDeps
from core.errors import ConfigurationError
from database.schema_reader import read_schema
from knowledge.query_log import read_log
from records.draft_edits import edit_draft, editable_text
from records.review import refresh_examples, review_drafts
from retrieval.onboarding import (
    STEPS,
    OnboardingJob,
    Progress,
    QueueItem,
    current_queue,
    load_state,
    run_onboarding,
    step_table,
)
from retrieval.onboarding.dictionary import read_dictionary
from retrieval.onboarding.examples import reviewed_examples
from ui import services
from ui.knowledge import index_with_bar
from ui.messages import explain

PAGE = 100
"""At most this many queue items are shown at once (the best ones)."""

SHORTCUTS = {"select all": "Alt+A", "clear": "Alt+N", "approve": "Alt+Y", "reject": "Alt+X", "save edit": "Alt+S"}
"""Keyboard shortcuts of the review buttons (Streamlit's ``shortcut``; Alt reads Option on a Mac)."""


class ProgressBoard:
    """Per-step progress: ``fractions[step]`` (0..1) and ``texts[step]``, redrawn through ``draw(step, f, text)``.

    Starts from the saved state (finished steps full). Each :class:`Progress` event updates its step: item
    ``j`` of ``m`` gives ``j / m``; done, skipped (already done) or incomplete gives 1.
    """

    def __init__(self, state: Mapping[str, Any], draw: Callable[[str, float, str], object] | None = None) -> None:
        """Start from ``state`` (:func:`retrieval.onboarding.load_state`); ``draw`` shows a change (optional)."""
        self.draw = draw
        self.fractions: dict[str, float] = {}
        self.texts: dict[str, str] = {}
        for step in STEPS:
            entry = state.get("steps", {}).get(step.name)
            done = entry is not None
            self.fractions[step.name] = 1.0 if done else 0.0
            self.texts[step.name] = (f"{step.name}: {entry['status']} ({entry.get('items', 0)} items)" if done
                                     else f"{step.name}: to do{' (model)' if step.needs_model else ''}")

    def __call__(self, event: Progress) -> None:
        """Apply one progress event and redraw its step."""
        if event.state == "running":
            fraction = event.item / event.items if event.items else 0.0
            text = f"{event.name}: {event.item}/{event.items} {event.label}" if event.items else f"{event.name}..."
        else:
            fraction = 1.0
            text = f"{event.name}: {'already done' if event.state == 'skipped' else event.state}"
        self.fractions[event.name], self.texts[event.name] = min(1.0, fraction), text
        if self.draw is not None:
            self.draw(event.name, self.fractions[event.name], text)


def selected(queue: list[QueueItem], state: Mapping[str, Any]) -> list[QueueItem]:
    """The items of ``queue`` whose checkbox (state key ``onb-sel-<item key>``) is ticked."""
    return [item for item in queue if state.get(f"onb-sel-{item.key}")]


def queue_frame(queue: list[QueueItem]) -> pd.DataFrame:
    """The queue as a table: score, kind, type, title, what it touches, provenance."""
    return pd.DataFrame([{"score": i.score, "kind": i.kind, "type": i.type, "draft": i.title,
                          "touches": ", ".join(i.touches[:4]), "from": i.provenance} for i in queue])


def make_job(deps: AgentDeps, log: str = "", dictionary: str = "") -> OnboardingJob:
    """The onboarding job of the panel's database (examples file and approved feedback as examples).

    ``log`` and ``dictionary``: paths the server can read ("" for none); the dictionary is checked here
    (:func:`retrieval.onboarding.dictionary.read_dictionary`) so a bad file stops before any step runs.

    Raises:
        ConfigurationError: no knowledge file can be placed for the database, or the dictionary cannot be read.
        ValueError: the query log at ``log`` cannot be read.
    """
    examples = (reviewed_examples(deps.settings.resolved_examples_path())
                + services.feedback_store().approved_examples(deps.db.key))
    statements = read_log(Path(log.strip()), deps.db.dialect) if log.strip() else None
    sheet = Path(dictionary.strip()) if dictionary.strip() else None
    if sheet is not None:
        read_dictionary(sheet)
    return OnboardingJob.from_settings(deps.settings, deps.db, deps.llms, examples=examples, log=statements,
                                       log_name=log.strip() or None, dictionary=sheet)


def onboarding_tab(deps: AgentDeps) -> None:
    """Start or resume onboarding, watch each step's bar, then approve or reject drafts in bulk."""
    st.caption(" → ".join(f"**{s.name}**{' (model)' if s.needs_model else ''}" for s in STEPS)
               + ". Drafts stay pending until approved here (or `knowledge.use_drafts` is on).")
    try:
        job = make_job(deps)
    except ConfigurationError as exc:
        st.info(str(exc))
        return
    except (OSError, ValueError) as exc:  # the examples file cannot be read
        st.error(str(exc))
        return
    state = load_state(job.state_path, deps.db.key)
    log = st.text_input("Query log to mine (optional: a .sql or .jsonl file the server can read)", key="onb-log")
    dictionary = st.text_input("Data dictionary to import (optional: .csv, .tsv, .xlsx or .yaml with table, column "
                               "and description; imported as reviewed text)", key="onb-dictionary")
    restart = st.checkbox("Start over (redo every step; reviewed drafts are kept)", key="onb-restart")
    bars = {s.name: st.progress(0.0) for s in STEPS}
    board = ProgressBoard(state, lambda name, f, text: bars[name].progress(f, text=text))
    for name in bars:
        bars[name].progress(board.fractions[name], text=board.texts[name])
    if st.button("Resume onboarding" if state["steps"] else "Start onboarding", key="onb-start", type="primary"):
        try:
            run_job = make_job(deps, log, dictionary)
            run_job.progress = board
            report = run_onboarding(run_job, restart=restart)
            if any(s.name == "dictionary" and s.status == "done" and s.items for s in report.steps):
                index_with_bar(deps, f"Indexing {deps.db.key}", "Indexing the imported data dictionary...")
            st.success(f"Onboarding finished: {len(report.queue)} drafts await review.")
        except Exception as exc:  # a database, file or model failure: shown, the finished steps are kept
            st.error(explain(f"{type(exc).__name__}: {exc}", deps.settings))
        state = load_state(job.state_path, deps.db.key)
    st.dataframe(pd.DataFrame(step_table(state)), hide_index=True, width="stretch")
    review_section(job, deps)


def review_section(job: OnboardingJob, deps: AgentDeps) -> None:
    """The ordered review queue with a checkbox per draft and bulk approve / reject."""
    try:
        queue = current_queue(job)
    except ValueError as exc:  # an invalid knowledge or enrichment file (KnowledgeFileError is a ValueError)
        st.error(f"The drafts cannot be listed: {exc}")
        return
    st.subheader(f"Review queue: {len(queue)} drafts, most valuable first")
    if not queue:
        st.caption("Nothing waiting.")
        return
    shown = queue[:PAGE]
    pick, clear, approve, reject = st.columns(4)
    if pick.button("Select all shown", key="onb-all", shortcut=SHORTCUTS["select all"]):
        st.session_state.update({f"onb-sel-{i.key}": True for i in shown})
    if clear.button("Clear selection", key="onb-none", shortcut=SHORTCUTS["clear"]):
        st.session_state.update({f"onb-sel-{i.key}": False for i in shown})
    do_approve = approve.button("Approve selected", key="onb-approve", type="primary", shortcut=SHORTCUTS["approve"])
    do_reject = reject.button("Reject selected", key="onb-reject", shortcut=SHORTCUTS["reject"])
    st.caption("Keys: " + ", ".join(f"{name} {key}" for name, key in SHORTCUTS.items()) + ".")
    for item in shown:
        st.checkbox(f"**{item.title}** · score {item.score:.0f} · {item.provenance}", key=f"onb-sel-{item.key}",
                    help=", ".join(item.touches) or None)
        st.caption(item.text[:300])
    if do_approve or do_reject:
        chosen = selected(shown, st.session_state.to_dict())
        if not chosen:
            st.warning("Select drafts first.")
            return
        status = "approved" if do_approve else "rejected"
        count = review_drafts(chosen, status, knowledge_path=job.knowledge_path, enriched_path=job.enriched_path,
                              examples_path=job.examples_path)
        if any(item.kind == "example" for item in chosen):  # approved examples join the index now
            refresh_examples(deps.store, deps.db, services.feedback_store(), job.examples_path)
        if any(item.kind == "join" or item.also for item in chosen):  # the join graph and the listing live in the index
            index_with_bar(deps, f"Indexing {deps.db.key}", "Indexing the reviewed joins...")
        for item in chosen:
            st.session_state.pop(f"onb-sel-{item.key}", None)
        st.session_state["onb-done"] = f"{count} drafts {status}."
        st.rerun()
    if st.session_state.get("onb-done"):
        st.success(st.session_state.pop("onb-done"))
    edit_section(job, deps, shown)


def edit_section(job: OnboardingJob, deps: AgentDeps, shown: list[QueueItem]) -> None:
    """Correct one draft of the queue and approve it (:func:`records.draft_edits.edit_draft`)."""
    with st.expander("Edit one draft (saved as the reviewer's text and approved)"):
        by_key = {item.key: item for item in shown}
        key = st.selectbox("Draft", list(by_key), format_func=lambda k: by_key[k].title, key="onb-edit-key")
        if key is None:
            return
        item = by_key[key]
        text = st.text_area("Text", value=editable_text(item, knowledge_path=job.knowledge_path),
                            key=f"onb-edit-text-{key}",
                            help="a join's target as TABLE.COLUMN; an example's question; otherwise the text")
        if not st.button("Save and approve", key="onb-edit-save", shortcut=SHORTCUTS["save edit"]):
            return
        known = [f"{t.name}.{c.name}" for t in read_schema(deps.db, sample_rows=0, use_enriched=False)
                 for c in t.columns] if item.kind == "join" else None
        try:
            note = edit_draft(item, text, knowledge_path=job.knowledge_path, enriched_path=job.enriched_path,
                              examples_path=job.examples_path, known_columns=known)
        except (KeyError, ValueError, OSError) as exc:
            st.error(f"Not saved: {exc}")
            return
        if item.kind == "example":
            refresh_examples(deps.store, deps.db, services.feedback_store(), job.examples_path)
        if item.kind == "join":
            index_with_bar(deps, f"Indexing {deps.db.key}", "Indexing the reviewed join...")
        st.session_state.pop(f"onb-sel-{item.key}", None)
        st.session_state["onb-done"] = note[:1].upper() + note[1:] + "."
        st.rerun()
