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
