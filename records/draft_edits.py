"""Edit one draft of the onboarding review queue at its source, approving it with the reviewer's text.

The queue (:mod:`retrieval.onboarding.queue`) is approved and rejected in bulk by
:func:`records.review.review_drafts`; a draft that is nearly right is corrected here instead, so a reviewer never
has to leave the queue:

- a description (enrichment file): the new text, status ``edited`` (:func:`records.review.review_enrichment`);
- a record (knowledge file): the new definition, status ``approved``, provenance ``human``; the record is
  validated again, so an edit cannot leave an invalid record behind;
- a candidate join (enrichment file): the new target ``TABLE.COLUMN`` (checked against the database's columns
  when they are given), status ``approved``;
- an example drafted from the log (examples file): the new question, status ``approved``.

Every write is atomic; an edit that fails leaves the file as it was (an example's question and its status are
two writes: if the second fails, the example keeps its new question and stays pending).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from pydantic import ValidationError

from database.descriptions import dump_enriched, load_enriched, write_atomic
from knowledge.files import load_knowledge, save_knowledge
from records.review import edit_examples_file, review_enrichment, set_example_status
from retrieval.onboarding.queue import QueueItem

__all__ = ["edit_draft", "editable_text"]


def editable_text(item: QueueItem, *, knowledge_path: Path | None) -> str:
    """The part of ``item`` a reviewer edits, as it stands.

    A description's text, a record's definition, a join's target ``TABLE.COLUMN``, an example's question; "" when
    the record is gone from its file.
    """
    if item.kind == "record" and knowledge_path is not None and knowledge_path.is_file():
        record = load_knowledge(knowledge_path).get(str(item.record_id))
        return record.definition if record is not None else ""
    if item.kind == "join":
        return item.title.rpartition(" -> ")[2]
    if item.kind == "example":
        return item.title.removeprefix("example ")
    return item.text


def _columns(known: Collection[str] | None) -> dict[str, str]:
    return {name.lower(): name for name in known or ()}


def edit_draft(item: QueueItem, text: str, *, knowledge_path: Path | None, enriched_path: Path | None,
               examples_path: Path | None = None, known_columns: Collection[str] | None = None) -> str:
    """Replace the editable part of ``item`` (:func:`editable_text`) with ``text`` and approve it.

    ``known_columns`` are the database's ``TABLE.COLUMN`` names; a join's new target must be one of them (any
    ``TABLE.COLUMN`` when None). Returns a one-line confirmation.

    Raises:
        ValueError: empty text, a target that is not a column, an edit that makes the record invalid, or a
            draft whose file is missing or malformed.
        KeyError: the draft is gone from its file.
    """
    text = " ".join(text.split())
    if not text:
        raise ValueError("the edited text is empty")
    if item.kind == "description" and enriched_path is not None and item.table is not None:
        review_enrichment(enriched_path, item.table, item.column, "approved", text=text)
        return f"description of {item.table}{'.' + item.column if item.column else ''} saved as edited"
    if item.kind == "join" and enriched_path is not None and item.table is not None and item.column:
        columns = _columns(known_columns)
        target = columns.get(text.lower(), text) if known_columns is not None else text
        if "." not in target or (known_columns is not None and target.lower() not in columns):
            raise ValueError(f"{text!r} is not a column of the database (write TABLE.COLUMN)")
        data = load_enriched(enriched_path)
        ref = data["tables"][item.table]["references"][item.column]
        ref.update(target=target, status="approved")
        write_atomic(enriched_path, dump_enriched(data))
        return f"join {item.table}.{item.column} -> {target} approved"
    if item.kind == "record" and knowledge_path is not None:
        kb = load_knowledge(knowledge_path)
        record = kb.get(str(item.record_id))
        if record is None:
            raise KeyError(f"no knowledge record {item.record_id!r}")
        try:
            edited = type(record).model_validate({**record.model_dump(), "definition": text, "status": "approved",
                                                  "provenance": "human"})
        except ValidationError as exc:
            raise ValueError(f"the edited record is not valid: {exc.errors()[0]['msg']}") from exc
        save_knowledge(knowledge_path, kb.upsert(edited))
        return f"record {record.id} saved and approved"
    if item.kind == "example" and examples_path is not None and item.record_id:
        if not edit_examples_file(examples_path, editable_text(item, knowledge_path=None), item.text,
                                  new_question=text):
            raise KeyError(f"no example {item.record_id!r}")
        set_example_status(examples_path, {str(item.record_id)}, "approved")
        return f"example {item.record_id} saved and approved"
    raise ValueError(f"{item.key} cannot be edited here: its file is not configured")
