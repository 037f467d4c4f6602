"""Retrieval of relevant tables and few-shot examples for a question.

Table retrieval is two-stage. Stage 1 ranks the database's tables: ``"dense"`` by cosine similarity of the
question to the per-table description documents (``description_index``); ``"hybrid"`` (default) fuses that
ranking with a BM25 ranking over identifier-aware tokens (:mod:`retrieval.hybrid`) by reciprocal rank fusion
(Cormack et al. 2009). Stage 2 attaches each winner's DDL + sample-rows document (``schemas_index``) and,
optionally, the bridge tables needed to join the winners along foreign keys (:mod:`database.joins`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from database.joins import bridge_tables
from retrieval.hybrid import RRF_K, TableCatalog, load_catalog, rrf_fuse
from retrieval.store import DESCRIPTION_INDEX, EXAMPLES_INDEX, VectorStore

Mode = Literal["dense", "hybrid"]

CANDIDATE_DEPTH = 50
"""Each stage-1 ranking (dense, BM25) looks at least this deep before fusion."""

DEFAULT_EXAMPLES_K = 5
"""Default number of few-shot examples returned by :func:`retrieve_examples`."""


@dataclass(frozen=True)
class TableHit:
    """A retrieved table and its schema document (DDL + sample rows).

    ``score`` is the fused RRF score in hybrid mode (about 0.016-0.033 for top ranks) or the cosine similarity
    in dense mode; ``dense_score`` is the cosine similarity (None when outside the dense candidates),
    ``lexical_score`` the BM25 score (None when no query term matched); ``bridge`` marks a table added only to
    join others (score 0).
    """

    name: str
    score: float
    schema_document: str
    bridge: bool = False
    dense_score: float | None = None
    lexical_score: float | None = None


@dataclass(frozen=True)
class ExampleHit:
    """A retrieved few-shot example and the cosine similarity of its question to the asked one."""

    question: str
    sql: str
    score: float
    source: str | None = None


def rank_tables(
    store: VectorStore, catalog: TableCatalog, question: str, k: int, *, mode: Mode = "hybrid"
) -> list[TableHit]:
    """Stage 1 + schema documents over an already loaded ``catalog``; see :func:`retrieve_tables`."""
    if k <= 0 or not catalog.names:
        return []
    total = len(catalog.names)
    depth = min(total, max(k, CANDIDATE_DEPTH))
    dense_hits = store.query(DESCRIPTION_INDEX, question, depth, where={"db": catalog.db_key})
    prefix = f"{catalog.db_key}:"
    dense = {str(h.metadata.get("table") or h.id.removeprefix(prefix)): h.score for h in dense_hits}
    lexical: dict[str, float] = {}
    if mode == "hybrid":
        lexical = dict(catalog.lexical_ranking(question, depth))
        ranked = rrf_fuse([list(dense), list(lexical)], k=RRF_K)
    elif mode == "dense":
        ranked = list(dense.items())
    else:
        raise ValueError(f"mode must be 'dense' or 'hybrid', not {mode!r}")
    if total <= k:  # small database: every table, the unranked ones last
        seen = {n for n, _ in ranked}
        ranked += [(n, 0.0) for n in catalog.names if n not in seen]
    return [
        TableHit(name, score, catalog.schema_doc(name), dense_score=dense.get(name),
                 lexical_score=lexical.get(name))
        for name, score in ranked[:k]
    ]


def retrieve_tables(
    store: VectorStore,
    db_key: str,
    question: str,
    k: int,
    *,
    mode: Mode = "hybrid",
    with_bridges: bool = False,
) -> list[TableHit]:
    """The ``k`` tables of database ``db_key`` most relevant to ``question``, best first.

    When the database has at most ``k`` tables, all of them are returned (still ranked; any the rankings
    missed are appended with score 0.0). A table without a schema document falls back to its description.

    Args:
        store: the vector store holding the table indexes.
        db_key: the database's key (:attr:`database.connection.Database.key`).
        question: the user's question.
        k: how many tables to return.
        mode: ``"hybrid"`` (dense + BM25, RRF) or ``"dense"`` (cosine similarity only).
        with_bridges: also append (``bridge=True``, after the ``k`` ranked tables) the tables needed to join
            them along foreign keys (:func:`database.joins.bridge_tables`).

    Returns:
        Up to ``k`` :class:`TableHit` (plus bridges); empty when ``k <= 0`` or the database is not indexed.

    Raises:
        ValueError: unknown ``mode``.
    """
    catalog = load_catalog(store, db_key) if k > 0 else None
    if catalog is None:
        return []
    hits = rank_tables(store, catalog, question, k, mode=mode)
    if with_bridges:
        bridges = bridge_tables([h.name for h in hits], catalog.graph)
        hits += [TableHit(b, 0.0, catalog.schema_doc(b), bridge=True) for b in bridges]
    return hits


def retrieve_examples(
    store: VectorStore, db_key: str, question: str, k: int = DEFAULT_EXAMPLES_K
) -> list[ExampleHit]:
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
            source=str(h.metadata["source"]) if h.metadata.get("source") else None,
        )
        for h in hits
    ]
