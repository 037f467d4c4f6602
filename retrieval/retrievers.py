"""Semantic retrieval of relevant tables and few-shot examples for a question.

Table retrieval is two-stage: the question is matched against the short per-table description documents
(``description_index``), then the full DDL + sample-row documents of the winners are fetched by id from
``schemas_index``. Scores are cosine similarities in [-1, 1] (higher is more relevant).
"""

from __future__ import annotations

from dataclasses import dataclass

from retrieval.documents import table_doc_id
from retrieval.store import DESCRIPTION_INDEX, EXAMPLES_INDEX, SCHEMAS_INDEX, Hit, VectorStore


@dataclass(frozen=True)
class TableHit:
    """A retrieved table: its name, cosine similarity to the question, and its schema document (DDL + rows)."""

    name: str
    score: float
    schema_document: str


@dataclass(frozen=True)
class ExampleHit:
    """A retrieved few-shot example and the cosine similarity of its question to the asked one."""

    question: str
    sql: str
    score: float


def _table_name(hit: Hit, db_key: str) -> str:
    name = hit.metadata.get("table")
    return str(name) if name is not None else hit.id.removeprefix(f"{db_key}:")


def retrieve_tables(store: VectorStore, db_key: str, question: str, k: int) -> list[TableHit]:
    """The ``k`` tables of database ``db_key`` most relevant to ``question``, best first.

    When the database has at most ``k`` tables, all of them are returned (still ranked; any the vector search
    did not return are appended with score 0.0). A table without a schema document falls back to its
    description document.

    Returns:
        Up to ``k`` :class:`TableHit`; empty when ``k <= 0`` or the database is not indexed.
    """
    if k <= 0:
        return []
    where = {"db": db_key}
    total = store.count(DESCRIPTION_INDEX, where)
    if total == 0:
        return []
    hits = store.query(DESCRIPTION_INDEX, question, min(k, total), where=where)
    if total <= k and len(hits) < total:
        seen = {h.id for h in hits}
        hits += [
            Hit(h.id, h.document, h.metadata, 1.0)
            for h in store.get(DESCRIPTION_INDEX, where)
            if h.id not in seen
        ]

    names = [_table_name(h, db_key) for h in hits]
    schema_docs = {
        h.id: h.document for h in store.get(SCHEMAS_INDEX, ids=[table_doc_id(db_key, n) for n in names])
    }
    return [
        TableHit(
            name=name,
            score=hit.score,
            schema_document=schema_docs.get(table_doc_id(db_key, name), hit.document),
        )
        for name, hit in zip(names, hits, strict=True)
    ]


def retrieve_examples(store: VectorStore, db_key: str, question: str, k: int) -> list[ExampleHit]:
    """The ``k`` few-shot examples of ``db_key`` whose questions are most similar to ``question``, best first.

    Returns:
        Up to ``k`` :class:`ExampleHit`; empty when ``k <= 0`` or there are none.
    """
    if k <= 0:
        return []
    hits = store.query(EXAMPLES_INDEX, question, k, where={"db": db_key})
    return [
        ExampleHit(
            question=str(h.metadata.get("question") or h.document),
            sql=str(h.metadata.get("sql") or ""),
            score=h.score,
        )
        for h in hits
    ]
