"""Nearest schema name of a question word, by embedding similarity (for the answerability check).

A question may name a column by another word: "gender" for a column ``Sex``, "teach" for a table
``course_arrange`` whose columns say ``Teacher_ID``, "enrolled" for ``student_enrolment``. Lexical coverage
misses these, and a word the database seems not to know is evidence for refusing the question. Embedding the
word and every table and column name (snake_case and CamelCase split into words, each column with its table)
and taking the best cosine similarity tells a synonym of a schema name from a concept the database lacks
("earnings", "CEO", "tempo"). Same idea as schema linking by embedding similarity (e.g. RESDSQL's and CodeS's
schema-item classifiers use learned similarity; here the retrieval model already loaded, all-MiniLM-L6-v2).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from retrieval.hybrid import TableCatalog
from retrieval.term_expansion import abbreviates

Embed = Callable[[list[str]], Any]
"""A Chroma-style embedding function: a list of texts -> a list of vectors."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_CACHE: dict[tuple[str, str | None, int], tuple[list[str], np.ndarray]] = {}
_LOCK = threading.Lock()


def split_identifier(name: str) -> str:
    """``"student_enrolment"`` -> ``"student enrolment"``, ``"DestAirport"`` -> ``"dest airport"``."""
    return " ".join(_CAMEL.sub(" ", name).replace("_", " ").replace("-", " ").split()).lower()


def schema_phrases(catalog: TableCatalog) -> list[str]:
    """Every table name and every ``"<table> <column>"`` / ``"<column>"`` phrase of ``catalog``, de-duplicated."""
    phrases: list[str] = []
    for table in catalog.names:
        phrases.append(split_identifier(table))
        for column in catalog.columns.get(table, []):
            phrases.append(split_identifier(column))
            phrases.append(f"{split_identifier(table)} {split_identifier(column)}")
    return list(dict.fromkeys(p for p in phrases if p))


def _unit(vectors: Any) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.where(norms == 0, 1, norms))


def nearest_schema_names(words: Sequence[str], catalog: TableCatalog, embed: Embed) -> dict[str, tuple[str, float]]:
    """``{word: (closest schema phrase, cosine similarity)}`` for each of ``words`` ({} without any phrase).

    The phrase embeddings are computed once per database snapshot (cached in the process). Raises whatever
    ``embed`` raises (e.g. a missing embedding model).
    """
    if not words:
        return {}
    key = (catalog.db_key, catalog.snapshot, id(embed))
    with _LOCK:
        cached = _CACHE.get(key) if catalog.snapshot is not None else None
    if cached is None:
        phrases = schema_phrases(catalog)
        cached = (phrases, _unit(embed(phrases)) if phrases else np.zeros((0, 1), dtype=np.float32))
        if catalog.snapshot is not None:
            with _LOCK:
                _CACHE[key] = cached
    phrases, matrix = cached
    if not phrases:
        return {}
    sims = _unit(embed(list(words))) @ matrix.T
    return {w: (phrases[int(row.argmax())], round(float(row.max()), 4)) for w, row in zip(words, sims, strict=True)}


_PHRASES: dict[tuple[int, tuple[str, ...]], np.ndarray] = {}
_MAX_PHRASE_SETS = 64


def similar_words(words: Sequence[str], phrases: Sequence[str], embed: Embed, threshold: float) -> set[str]:
    """Those of ``words`` whose embedding is at least ``threshold`` similar (cosine) to one of ``phrases``.

    For telling a synonym of a readable schema name ("altitude" / "airports elevation") from a word no name
    says. The phrase vectors are cached per phrase list (the same tables give the same list); empty ``words``
    or ``phrases``, or a ``threshold`` above 1, give an empty set without embedding anything. Raises whatever
    ``embed`` raises.
    """
    if not words or not phrases or threshold > 1:
        return set()
    key = (id(embed), tuple(phrases))
    with _LOCK:
        matrix = _PHRASES.get(key)
    if matrix is None:
        matrix = _unit(embed(list(phrases)))
        with _LOCK:
            if len(_PHRASES) >= _MAX_PHRASE_SETS:
                _PHRASES.clear()
            _PHRASES[key] = matrix
    best = (_unit(embed(list(words))) @ matrix.T).max(axis=1)
    return {w for w, sim in zip(words, best, strict=True) if float(sim) >= threshold}


def rank_columns(word: str, catalog: TableCatalog, embed: Embed, *, tables: Sequence[str] = (),
                 k: int = 3) -> list[tuple[str, str, float]]:
    """The ``k`` columns most likely to hold what ``word`` names: ``[(table, column, score)]``, best first.

    ``score`` (0-1) is the larger of the cosine similarity of ``word`` to ``"<table> <column>"`` (names split
    into words) and 0.8 when a part of the column's name abbreviates ``word``
    (:func:`retrieval.term_expansion.abbreviates`: ``t_fed_rev`` for "revenue"). Only ``tables`` are searched
    when given (else every table). Used to ask the analyst which column means a word the schema does not
    document, instead of declaring the data missing.
    Raises whatever ``embed`` raises.
    """
    wanted = {t.lower() for t in tables}
    pairs = [(t, c) for t in catalog.names if not wanted or t.lower() in wanted for c in catalog.columns.get(t, [])]
    if not pairs or not word:
        return []
    phrases = [f"{split_identifier(t)} {split_identifier(c)}" for t, c in pairs]
    sims = (_unit(embed([word])) @ _unit(embed(phrases)).T)[0]
    scored = []
    for (table, column), sim in zip(pairs, sims, strict=True):
        parts = re.split(r"[\s]+", split_identifier(column))
        abbreviation = 0.8 if any(abbreviates(p, word) for p in parts) else 0.0
        scored.append((table, column, round(max(float(sim), abbreviation), 4)))
    scored.sort(key=lambda item: -item[2])
    return scored[:k]
