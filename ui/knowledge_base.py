"""Developer panel: the business-knowledge records of the database (list, edit, approve, reject).

The knowledge file (:mod:`knowledge.files`) is the single source of truth: edits are written to it at once
(atomically) and nothing is derived from it at index time, so re-indexing never undoes a review.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from agent.context import AgentDeps
from knowledge.files import KnowledgeFileError, load_knowledge, save_knowledge
from knowledge.records import KnowledgeBase, KnowledgeRecord

STATUSES = ("pending", "approved", "rejected", "all")


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.replace("\n", ",").split(",") if p.strip()]


def record_form(kb: KnowledgeBase, record: KnowledgeRecord) -> KnowledgeBase | None:
    """One record as an edit form; returns the updated knowledge base when a button was pressed, else None."""
    with st.form(f"kb-{record.id}"):
        st.caption(f"`{record.id}` · {record.type} · {record.provenance} · {record.status}"
                   + (f" · {record.note}" if record.note else ""))
        name = st.text_input("Name (the business phrase)", value=record.name, key=f"kbn-{record.id}")
        synonyms = st.text_input("Synonyms (comma-separated)", value=", ".join(record.synonyms),
                                 key=f"kbs-{record.id}")
        definition = st.text_area("Definition", value=record.definition, height=80, key=f"kbd-{record.id}")
        sql = st.text_area("SQL", value=record.sql or "", height=68, key=f"kbq-{record.id}")
        save, approve, reject = st.columns(3)
        pressed = {"pending" if record.status == "pending" else record.status: save.form_submit_button("Save"),
                   "approved": approve.form_submit_button("Approve record"),
                   "rejected": reject.form_submit_button("Reject record")}
    status = next((s for s, on in pressed.items() if on), None)
    if status is None:
        return None
    try:
        updated = KnowledgeRecord.model_validate(record.model_dump() | {
            "name": name, "synonyms": _split(synonyms), "definition": definition, "sql": sql.strip() or None,
            "status": status})
    except ValidationError as exc:
        st.error(f"Not saved: {exc.errors()[0]['msg']}")
        return None
    return kb.upsert(updated)


def knowledge_tab(deps: AgentDeps) -> None:
    """The records of the database's knowledge file, filtered by review status, each editable."""
    path = deps.settings.resolved_knowledge_path()
    if path is None:
        st.info("This database has no knowledge file; set NL2SQL_KNOWLEDGE_PATH to keep one.")
        return
    try:
        kb = load_knowledge(path)
    except KnowledgeFileError as exc:
        st.error(f"The knowledge file cannot be used: {exc}")
        return
    counts = pd.Series([r.status for r in kb.records], dtype="object").value_counts()
    st.caption(f"`{path}` · {len(kb.records)} records · " + " · ".join(f"{n} {s}" for s, n in counts.items())
               + " · propose more with `nl2sql knowledge mine --log FILE`")
    default = 0 if any(r.status == "pending" for r in kb.records) else STATUSES.index("all")
    wanted = st.selectbox("Show", STATUSES, index=default, key="kb-status")
    shown = [r for r in kb.records if wanted == "all" or r.status == wanted]
    if not shown:
        st.caption("No records with this status.")
    for record in shown[:100]:
        updated = record_form(kb, record)
        if updated is not None:
            save_knowledge(path, updated)
            st.success(f"Saved `{record.id}`.")
            st.rerun()
