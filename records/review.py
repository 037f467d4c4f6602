"""Review actions of the developer panel: feedback-born examples, the examples file, enriched descriptions.

Feedback-born examples can be approved, edited or rejected; the examples file can be edited; LLM-enriched
descriptions are reviewed; the drafts of the onboarding review queue are approved or rejected in bulk.

The examples store's source of truth stays outside Chroma (the versioned JSONL file plus approved feedback), so
every action here writes that source first and then re-syncs the ``examples_index``
(:func:`retrieval.examples_store.sync_examples`: only new or changed examples are embedded). An edit made only in
Chroma would be undone by the next sync.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.outcome import Outcome
from database.connection import Database
from database.descriptions import dump_enriched, load_enriched, write_atomic
from knowledge.files import load_knowledge, save_knowledge
from knowledge.records import Status
from records.feedback import Feedback, FeedbackStore
from retrieval.examples_store import (
    ExamplesReport,
    load_examples_file,
    normalize_question,
    normalize_sql,
    sync_examples,
)
from retrieval.onboarding import QueueItem
from retrieval.store import VectorStore


class ReviewError(ValueError):
    """A review action was refused; the message says why (nothing was changed)."""


def check_sql(db: Database, sql: str) -> str | None:
    """None when ``sql`` passes the read-only guard and runs (``row_cap=1``), else the error text."""
    try:
        result = db.run_query(sql, row_cap=1)
    except Exception as exc:  # guard refusals and driver errors alike
        return f"{type(exc).__name__}: {exc}"
    return None if result.ok else str(result.error)


def refresh_examples(store: VectorStore, db: Database, feedback: FeedbackStore,
                     examples_path: Path | None) -> ExamplesReport:
    """Make ``db``'s indexed examples the file's plus the approved feedback (see module docstring)."""
    return sync_examples(store, db, path=examples_path, feedback=feedback.approved_examples(db.key))


def approve_feedback(store: VectorStore, db: Database, feedback: FeedbackStore, feedback_id: int, *,
                     examples_path: Path | None, question: str | None = None,
                     sql: str | None = None) -> tuple[Feedback, ExamplesReport]:
    """Approve one record as a few-shot example (optionally with an edited question/SQL) and re-sync.

    Raises:
        KeyError: unknown record.
        ReviewError: empty question/SQL, or the SQL is refused by the guard or fails to run; the record is
            left as it was.
    """
    record = feedback.get(feedback_id)
    if record is None:
        raise KeyError(f"no feedback record {feedback_id}")
    new_question = (question if question is not None else record.question).strip()
    new_sql = (sql if sql is not None else record.sql or "").strip()
    if not new_question or not new_sql:
        raise ReviewError("an example needs both a question and SQL")
    problem = check_sql(db, new_sql)
    if problem:
        raise ReviewError(f"the SQL does not run, so it cannot become an example: {problem}")
    updated = feedback.update(feedback_id, status="approved", question=new_question, sql=new_sql)
    return updated, refresh_examples(store, db, feedback, examples_path)


def set_feedback_status(store: VectorStore, db: Database, feedback: FeedbackStore, feedback_id: int,
                        status: str, *, examples_path: Path | None) -> Feedback:
    """Reject, resolve or re-queue a record.

    When it was an approved example, the index is re-synced so the example leaves it. Raises KeyError /
    ValueError as :meth:`FeedbackStore.update`.
    """
    before = feedback.get(feedback_id)
    updated = feedback.update(feedback_id, status=status)
    if before is not None and before.status == "approved" and status != "approved":
        refresh_examples(store, db, feedback, examples_path)
    return updated


def edit_examples_file(path: Path, question: str, sql: str, *, new_question: str | None = None,
                       new_sql: str | None = None, retire: bool = False, dialect: str = "sqlite") -> int:
    """Change the example(s) of the JSONL file equal to (``question``, ``sql``) after normalization.

    They get new text, or ``status: retired`` when ``retire`` (kept in the file for history, never indexed).
    The file is rewritten atomically; comments and blank lines are kept. Returns how many lines changed
    (0: not found).

    Raises:
        OSError / ValueError: the file cannot be read or is malformed.
    """
    load_examples_file(path)  # validates the whole file before anything is written
    key = (normalize_question(question), normalize_sql(sql, dialect))
    out, changed = [], 0
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if text and not text.startswith("#"):
            obj = json.loads(text)
            if (normalize_question(obj["question"]), normalize_sql(obj["sql"], dialect)) == key:
                obj["question"] = (new_question or obj["question"]).strip()
                obj["sql"] = (new_sql or obj["sql"]).strip()
                if retire:
                    obj["status"] = "retired"
                line, changed = json.dumps(obj, ensure_ascii=False), changed + 1
        out.append(line)
    if changed:
        write_atomic(Path(path), "\n".join(out) + "\n")
    return changed


def enrichment_queue(path: Path | None, status: str = "pending") -> list[dict[str, Any]]:
    """Entries of an enrichment YAML with review ``status``; [] when there is no file.

    Each entry is ``{"table", "column" (None for the table summary), "text", "status", "model",
    "generated"}``.
    """
    if path is None or not Path(path).exists():
        return []
    out = []
    for table, spec in load_enriched(Path(path)).get("tables", {}).items():
        entries = [(None, spec.get("description"))] + list((spec.get("columns") or {}).items())
        out += [{"table": table, "column": col, **entry} for col, entry in entries
                if entry and entry["status"] == status]
    return out


def review_enrichment(path: Path, table: str, column: str | None, status: str, text: str | None = None) -> None:
    """Set one enriched entry's review status (approved, edited, rejected, pending), with edited text.

    ``status`` becomes "edited" when the text changes. Written atomically.

    Raises:
        KeyError: unknown table, column or entry. ValueError: unknown status.
    """
    if status not in ("pending", "approved", "edited", "rejected"):
        raise ValueError(f"unknown review status {status!r}")
    data = load_enriched(Path(path))
    spec = data["tables"][table]
    entry = spec["description"] if column is None else spec["columns"][column]
    if entry is None:
        raise KeyError(f"no enriched entry for {table}.{column}")
    if text is not None and " ".join(text.split()) != entry["text"]:
        entry["text"], status = " ".join(text.split()), "edited"
    entry["status"] = status
    write_atomic(Path(path), dump_enriched(data))


def review_reference(path: Path, table: str, column: str, status: str) -> None:
    """Set the review status of one candidate join (a ``references`` entry) of the enrichment file.

    An approved join is a foreign key at the next indexing; a rejected one is never inferred again
    (:func:`database.descriptions.merge_enriched`, :func:`database.descriptions.rejected_references`). Written
    atomically.

    Raises:
        KeyError: unknown table or column. ValueError: unknown status or a malformed file.
    """
    if status not in ("pending", "approved", "rejected"):
        raise ValueError(f"unknown review status {status!r}")
    data = load_enriched(Path(path))
    data["tables"][table]["references"][column]["status"] = status
    write_atomic(Path(path), dump_enriched(data))


def edit_example(store: VectorStore, db: Database, feedback: FeedbackStore, examples_path: Path | None,
                 metadata: dict[str, Any], *, question: str | None = None, sql: str | None = None,
                 delete: bool = False) -> ExamplesReport:
    """Edit or delete one indexed example at its source, then re-sync the index.

    ``metadata`` is the Chroma record's metadata (``question``, ``sql``, ``source``, ``example_id``). A
    feedback-born example (``example_id`` ``fb-N``) is updated in the feedback store (deleting rejects it); a
    file example is rewritten in the examples file (deleting marks it ``retired``).

    Raises:
        ReviewError: the new SQL does not run, or the example's source cannot be found.
    """
    old_q, old_sql = str(metadata.get("question") or ""), str(metadata.get("sql") or "")
    new_q, new_sql = (question or old_q).strip(), (sql or old_sql).strip()
    if not delete:
        problem = check_sql(db, new_sql)
        if problem:
            raise ReviewError(f"the SQL does not run: {problem}")
    sources = str(metadata.get("source") or "").split("+")
    example_id = str(metadata.get("example_id") or "")
    touched = False
    if "feedback" in sources and example_id.startswith("fb-"):
        fid = int(example_id.removeprefix("fb-"))
        if delete:
            feedback.update(fid, status="rejected")
        else:
            feedback.update(fid, question=new_q, sql=new_sql)
        touched = True
    if "file" in sources or not touched:
        if examples_path is None:
            raise ReviewError("this example comes from an examples file, but none is configured")
        if not edit_examples_file(examples_path, old_q, old_sql, new_question=new_q, new_sql=new_sql,
                                  retire=delete, dialect=db.dialect):
            raise ReviewError(f"the example was not found in {examples_path}")
    return refresh_examples(store, db, feedback, examples_path)


def add_example(store: VectorStore, db: Database, feedback: FeedbackStore, examples_path: Path | None,
                question: str, sql: str) -> tuple[Feedback, ExamplesReport]:
    """Add a hand-written example (kept as an approved feedback record, so it survives re-indexing).

    Raises:
        ReviewError: empty text or SQL that does not run (nothing is stored then).
    """
    if not question.strip() or not sql.strip():
        raise ReviewError("an example needs both a question and SQL")
    problem = check_sql(db, sql.strip())
    if problem:
        raise ReviewError(f"the SQL does not run: {problem}")
    added = Outcome(question=question, sql=sql.strip(), database=db.key, status="ok")
    record = feedback.record(added, "up", comment="added in the developer panel")
    return approve_feedback(store, db, feedback, record.id, examples_path=examples_path)


def save_document(store: VectorStore, collection: str, record_id: str, document: str,
                  metadata: dict[str, Any]) -> None:
    """Replace one record's document (re-embedded by the store) and mark it ``edited``.

    Its content hash is kept, so the edit stays until the underlying table changes and is re-indexed.

    Raises:
        ReviewError: empty document.
    """
    if not document.strip():
        raise ReviewError("the document is empty; delete the record instead")
    store.upsert(collection, [record_id], [document.strip()], [{**metadata, "edited": True}])


def set_example_status(path: Path, ids: set[str], status: str) -> int:
    """Give the examples of ``path`` whose ``id`` is in ``ids`` the review ``status``; returns how many changed.

    Other lines (comments included) are written back unchanged, in one atomic write.

    Raises:
        OSError / ValueError: the file cannot be read or is malformed.
    """
    load_examples_file(path)  # validates the whole file before anything is written
    out, changed = [], 0
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if text and not text.startswith("#"):
            obj = json.loads(text)
            if str(obj.get("id") or "") in ids and obj.get("status") != status:
                obj["status"] = status
                line, changed = json.dumps(obj, ensure_ascii=False), changed + 1
        out.append(line)
    if changed:
        write_atomic(Path(path), "\n".join(out) + "\n")
    return changed


def review_drafts(items: Sequence[QueueItem], status: str, *, knowledge_path: Path | None,
                  enriched_path: Path | None, examples_path: Path | None = None) -> int:
    """Approve or reject drafts of the onboarding review queue in bulk, at their sources; returns how many.

    Records get ``status`` in the knowledge file (one atomic save, :meth:`KnowledgeBase.set_status`);
    descriptions through :func:`review_enrichment` and candidate joins through :func:`review_reference`, with the
    joins an item carries in ``also`` (re-index afterwards: the join graph lives in the index); examples drafted
    from the log in the examples file
    (:func:`set_example_status`; re-sync the examples index afterwards, :func:`refresh_examples`). Items already
    gone from their file are skipped.

    Raises:
        ValueError: ``status`` is not "approved" or "rejected"; an invalid knowledge or enrichment file.
    """
    if status not in ("approved", "rejected"):
        raise ValueError(f"drafts are approved or rejected, not {status!r}")
    done = 0
    records = [i for i in items if i.kind == "record" and i.record_id]
    if records and knowledge_path is not None:
        kb = load_knowledge(knowledge_path)
        new: Status = "approved" if status == "approved" else "rejected"
        for item in records:
            if kb.get(str(item.record_id)) is not None:
                kb, done = kb.set_status(str(item.record_id), new), done + 1
        save_knowledge(knowledge_path, kb)
    for item in items:
        if item.kind in ("description", "join") and enriched_path is not None and item.table is not None:
            try:
                if item.kind == "join":
                    review_reference(enriched_path, item.table, str(item.column), status)
                else:
                    review_enrichment(enriched_path, item.table, item.column, status)
                done += 1
            except KeyError:
                continue
        for key in item.also if enriched_path is not None else []:  # a join stated by a record: decided with it
            table, _, column = key.removeprefix("join:").partition(".")
            try:
                review_reference(enriched_path, table, column, status)  # type: ignore[arg-type]
            except KeyError:
                continue
    examples = {str(i.record_id) for i in items if i.kind == "example" and i.record_id}
    if examples and examples_path is not None:
        done += set_example_status(examples_path, examples, status)
    return done
