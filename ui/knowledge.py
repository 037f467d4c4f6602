"""Developer panel, part 2: the vector collections, the review queues and index rebuilds.

Documents of the vector collections can be browsed, searched, edited and deleted.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from agent.context import AgentDeps
from database.descriptions import default_enriched_path
from records.review import (
    ReviewError,
    add_example,
    approve_feedback,
    edit_example,
    enrichment_queue,
    review_enrichment,
    save_document,
    set_feedback_status,
)
from records.review_order import VERIFIED_WRONG, order_review_queue, review_marker
from retrieval.hybrid import load_catalog
from retrieval.indexing import IndexReport, index_database, load_examples
from retrieval.store import COLLECTIONS, EXAMPLES_INDEX, Hit, db_filter
from ui import services

PAGE = 200


def collections_tab(deps: AgentDeps) -> None:
    """Browse or search one collection of this database, then edit or delete a record."""
    left, right = st.columns([1, 2])
    name = left.selectbox("Collection", COLLECTIONS, index=COLLECTIONS.index(EXAMPLES_INDEX), key="col-name")
    query = right.text_input("Search (semantic; empty = browse)", key="col-query")
    where = db_filter(deps.db.key)
    hits = deps.store.query(name, query, 20, where) if query.strip() else deps.store.get(name, where)[:PAGE]
    total = deps.store.count(name, where)
    st.caption(f"{total} records of `{deps.db.key}` in `{name}`; showing {len(hits)}.")
    if hits:
        rows = [{"id": h.id, "score": round(h.score, 3) if h.distance is not None else None,
                 "document": h.document[:160], **{k: h.metadata.get(k) for k in ("table", "source", "status")}}
                for h in hits]
        st.dataframe(pd.DataFrame(rows), width="stretch", hide_index=True)
        by_id = {h.id: h for h in hits}
        # keyed by the search, so a new search opens its best hit rather than keeping an earlier pick
        rid = st.selectbox("Record", list(by_id), key=f"col-record-{name}-{query.strip()}")
        hit = by_id[rid]
        if name == EXAMPLES_INDEX:
            edit_example_form(deps, hit.metadata, rid)
        else:
            edit_document_form(deps, name, hit, rid)
    if name == EXAMPLES_INDEX:
        with st.expander("Add an example"), st.form("add-example", clear_on_submit=True):
            q = st.text_input("Question")
            sql = st.text_area("SQL", height=100)
            if st.form_submit_button("Add"):
                try:
                    _, report = add_example(deps.store, deps.db, services.feedback_store(),
                                            deps.settings.resolved_examples_path(), q, sql)
                    st.success(f"Added; {report.indexed} examples indexed ({report.embedded} embedded).")
                except ReviewError as exc:
                    st.error(str(exc))


def edit_example_form(deps: AgentDeps, meta: dict[str, Any], rid: str) -> None:
    """Edit or delete an example at its source (file or feedback), then re-sync (re-embeds on save)."""
    with st.form(f"ex-{rid}"):
        q = st.text_input("Question", value=str(meta.get("question") or ""))
        sql = st.text_area("SQL", value=str(meta.get("sql") or ""), height=120)
        st.caption(f"source: {meta.get('source')} · id: {meta.get('example_id') or rid}")
        save, delete = st.columns(2)
        do_save = save.form_submit_button("Save (re-embed)")
        do_delete = delete.form_submit_button("Delete")
    if do_save or do_delete:
        try:
            report = edit_example(deps.store, deps.db, services.feedback_store(),
                                  deps.settings.resolved_examples_path(), meta, question=q, sql=sql,
                                  delete=do_delete)
            st.success(f"{'Deleted' if do_delete else 'Saved'}; {report.indexed} examples indexed.")
        except (ReviewError, OSError, ValueError) as exc:
            st.error(str(exc))


def edit_document_form(deps: AgentDeps, name: str, hit: Hit, rid: str) -> None:
    """Edit a table description, schema chunk or value record; saving re-embeds it."""
    with st.form(f"doc-{rid}"):
        text = st.text_area("Document", value=hit.document, height=220)
        meta = st.text_area("Metadata (JSON)", value=json.dumps(hit.metadata, indent=1), height=120)
        save, delete = st.columns(2)
        do_save = save.form_submit_button("Save (re-embed)")
        do_delete = delete.form_submit_button("Delete")
    try:
        if do_save:
            save_document(deps.store, name, rid, text, json.loads(meta))
            st.success("Saved and re-embedded. The edit lasts until this table's schema changes.")
        elif do_delete:
            deps.store.delete(name, ids=[rid])
            st.success("Deleted. A rebuild of the indexes restores it.")
    except (ReviewError, ValueError) as exc:
        st.error(str(exc))


def review_tab(deps: AgentDeps) -> None:
    """Queues: feedback-born examples, thumbs-down answers (verified ones first), enriched descriptions."""
    fb, path = services.feedback_store(), deps.settings.resolved_examples_path()
    st.subheader("Proposed examples (thumbs up)")
    pending = fb.find(status="pending", database=deps.db.key)
    if not pending:
        st.caption("Nothing waiting.")
    for rec in pending:
        with st.form(f"pending-{rec.id}"):
            q = st.text_input("Question", value=rec.question, key=f"pq-{rec.id}")
            sql = st.text_area("SQL", value=rec.sql or "", height=100, key=f"ps-{rec.id}")
            st.caption(f"#{rec.id} · rows {rec.row_count} · digest {rec.result_digest} · {rec.comment or ''}")
            ok, no = st.columns(2)
            approve, reject = ok.form_submit_button("Approve"), no.form_submit_button("Reject")
        try:
            if approve:
                _, report = approve_feedback(deps.store, deps.db, fb, rec.id, examples_path=path, question=q, sql=sql)
                st.success(f"Approved; {report.indexed} examples indexed.")
                st.rerun()
            elif reject:
                set_feedback_status(deps.store, deps.db, fb, rec.id, "rejected", examples_path=path)
                st.rerun()
        except ReviewError as exc:
            st.error(str(exc))
    st.subheader("Wrong answers (thumbs down)")
    review = order_review_queue(fb.find(status="review", database=deps.db.key))
    if not review:
        st.caption("Nothing to review.")
    for rec in review:  # verified answers marked wrong first: the confidence was sure and wrong
        marker = review_marker(rec)
        label = f"#{rec.id} {rec.question[:80]}"
        with st.expander(f":red[{VERIFIED_WRONG}] · {label}" if marker else label, expanded=marker is not None):
            if marker:
                st.warning(marker, icon=":material/report:")
            st.code(rec.sql or "(no SQL)", language="sql")
            st.caption(f"comment: {rec.comment or '-'} · confidence: {rec.confidence_level or '-'} · "
                       f"run {rec.run_id}")
            if st.button("Mark resolved", key=f"resolve-{rec.id}"):
                set_feedback_status(deps.store, deps.db, fb, rec.id, "resolved", examples_path=path)
                st.rerun()
    enrichment_review(deps)


def enrichment_review(deps: AgentDeps) -> None:
    """Pending LLM-written table and column descriptions: approve, edit or reject."""
    st.subheader("Enriched descriptions")
    path = default_enriched_path(deps.db, deps.settings.state_dir)
    queue = enrichment_queue(path)
    if not queue:
        st.caption("No pending descriptions (run `nl2sql enrich` to generate some).")
    for i, entry in enumerate(queue[:50]):
        target = entry["table"] + (f".{entry['column']}" if entry["column"] else "")
        with st.form(f"enr-{i}-{target}"):
            text = st.text_area(target, value=entry["text"], height=80)
            st.caption(f"{entry.get('model')} · {entry.get('generated')}")
            a, r = st.columns(2)
            approve, reject = a.form_submit_button("Approve"), r.form_submit_button("Reject")
        if (approve or reject) and path is not None:
            review_enrichment(path, entry["table"], entry["column"], "approved" if approve else "rejected",
                              text if approve else None)
            st.rerun()


class StreamlitBar:
    """A tqdm-like progress object (``total``, ``update(n)``) drawing a Streamlit progress bar."""

    def __init__(self, label: str) -> None:
        """Draw an empty bar captioned ``label``."""
        self.total, self.n, self.label = 1, 0, label
        self.widget = st.progress(0.0, text=label)

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` documents."""
        self.n += n
        self.widget.progress(min(1.0, self.n / max(1, self.total)), text=f"{self.label}: {self.n}/{self.total}")


def index_with_bar(deps: AgentDeps, label: str, note: str) -> tuple[IndexReport, StreamlitBar]:
    """Index ``deps.db`` (the settings' examples, the approved feedback) under a progress bar captioned ``label``."""
    path = deps.settings.resolved_examples_path()
    bar = StreamlitBar(label)
    with st.spinner(note):
        report = index_database(deps.db, deps.store, deps.settings, progress=False, bar=bar,
                                examples=load_examples(path) if path else None,
                                feedback=services.feedback_store().approved_examples(deps.db.key))
    return report, bar


def index_if_missing(deps: AgentDeps) -> bool:
    """Index ``deps.db`` with a progress bar when it has no index yet (a database's first visit); True when it did.

    The same index as the Rebuild button. Raises what :func:`retrieval.indexing.index_database` raises.
    """
    if load_catalog(deps.store, deps.db.key) is not None:
        return False
    _, bar = index_with_bar(deps, f"Indexing {deps.db.key} for its first question",
                             "First question on this database: reading the schema, embedding documents and values...")
    bar.widget.empty()
    return True


def indexes_tab(deps: AgentDeps) -> None:
    """Counts per collection and a rebuild (incremental: only changed documents are embedded)."""
    where = db_filter(deps.db.key)
    st.dataframe(pd.DataFrame([{"collection": c, "records": deps.store.count(c, where)} for c in COLLECTIONS]),
                 hide_index=True)
    if st.button("Rebuild indexes", icon=":material/refresh:"):
        report, bar = index_with_bar(deps, f"Indexing {deps.db.key}",
                                      "Reading the schema, embedding documents and values...")
        bar.widget.progress(1.0, text="Done")
        st.success(report.summary())
        services.reset_agents()
