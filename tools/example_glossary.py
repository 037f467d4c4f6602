"""What the approved examples say a column named ``c7`` holds: question words aligned to opaque columns.

A warehouse column named ``c7`` says nothing, and the small model guesses its meaning from a few stored values
(tools.opaque_columns), often wrongly. The approved few-shot examples of the same database already answer the
question for the columns they read: "List the names of editors who are older than 25" with
``SELECT NM FROM EDTR WHERE c7 > 25`` says that ``EDTR.c7`` is the age. Only the few examples most similar to a
question reach its prompt; the rest of that evidence is lost.

:func:`opaque_glossary` collects it for the whole database, model-free: for each indexed example whose SQL reads
exactly one undocumented opaque column (tools.opaque_reads.guessed_columns) and whose question has exactly one
run of words no readable name of the database accounts for (tools.question_terms.unnamed_terms), that run is
counted for that column. :func:`render_glossary` lists the counts after the schema, so every candidate (the
whole-schema and plain ones too) reads them as documentation quoted from approved examples. This is workload
mining in the spirit of TailorSQL (hints mined from a database's past queries) and RubikSQL (a knowledge base built
from query logs), restricted to the one thing names cannot tell.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Iterable, Sequence

from database.connection import Database
from knowledge.lookup import normalise
from retrieval.store import EXAMPLES_INDEX, VectorStore
from tools.opaque_columns import documented_tables
from tools.opaque_reads import guessed_columns
from tools.question_terms import unnamed_terms

__all__ = ["HEADER", "MAX_TERMS", "Glossary", "align_example", "glossary_from", "guessed_without_examples",
           "opaque_glossary", "render_glossary"]

MAX_TERMS = 3
"""Question words listed per column (the most frequent first)."""
HEADER = "Columns with names that say nothing, and the question words approved examples used them for:\n"

Glossary = dict[str, list[tuple[str, int]]]
"""``TABLE.column`` -> ``[(question words, examples), ...]``, most frequent first (at most :data:`MAX_TERMS`)."""

_CACHE: dict[tuple[str, bool, str], Glossary] = {}
_LOCK = threading.Lock()


def align_example(db: Database, use_drafts: bool, question: str, sql: str) -> tuple[str, str] | None:
    """``(TABLE.column, words)`` when the example reads one undocumented opaque column and names one unnamed term.

    The term is :func:`tools.question_terms.unnamed_terms` of ``question`` over every table of ``db`` (a word a
    readable name anywhere accounts for says nothing about the opaque column). None for every other example (no
    or several such columns, no or several terms, SQL that does not parse): with two of each the pairing is a
    guess, which this glossary exists to avoid.
    """
    columns = guessed_columns(db, use_drafts, sql)
    if len(columns) != 1:
        return None
    try:
        tables = documented_tables(db, use_drafts)
    except Exception:  # noqa: BLE001 - an unreadable schema aligns nothing
        return None
    terms = unnamed_terms(question, tables)
    return (columns[0], terms[0]) if len(terms) == 1 else None


def glossary_from(db: Database, use_drafts: bool, examples: Iterable[tuple[str, str]]) -> Glossary:
    """The glossary of ``examples`` (``(question, sql)`` pairs) over ``db``: see :func:`align_example`.

    Words are counted by their folded form ("ages" and "age" together) and shown in their most frequent spelling;
    columns come in ``TABLE.column`` order, so the rendered section is stable for a prompt cache.
    """
    counts: dict[str, Counter[str]] = {}
    spellings: dict[tuple[str, str], Counter[str]] = {}
    for question, sql in examples:
        found = align_example(db, use_drafts, question, sql)
        if found is None:
            continue
        ref, term = found
        key = " ".join(normalise(term)) or term.lower()
        counts.setdefault(ref, Counter())[key] += 1
        spellings.setdefault((ref, key), Counter())[term] += 1
    return {ref: [(spellings[(ref, key)].most_common(1)[0][0], n) for key, n in c.most_common(MAX_TERMS)]
            for ref, c in sorted(counts.items())}


def opaque_glossary(db: Database, store: VectorStore | None, use_drafts: bool) -> Glossary:
    """The glossary of the examples indexed for ``db`` in ``store`` ({} without a store, examples or findings).

    Cached per database, drafts setting and the set of indexed example ids, so an approved example counts from
    the next question on. A store that cannot be read gives {}.
    """
    if store is None:
        return {}
    try:
        hits = store.get(EXAMPLES_INDEX, where={"db": db.key})
    except Exception:  # noqa: BLE001 - the glossary is a courtesy; the question goes on without it
        return {}
    if not hits:
        return {}
    stamp = hashlib.sha1("\n".join(sorted(h.id for h in hits)).encode("utf-8")).hexdigest()
    key = (db.url, use_drafts, stamp)  # the URL: two files may share a stem (db.key)
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    pairs = [(str(h.metadata.get("question") or ""), str(h.metadata.get("sql") or "")) for h in hits]
    found = glossary_from(db, use_drafts, [(q, s) for q, s in pairs if q and s])
    with _LOCK:
        _CACHE[key] = found
    return found


def render_glossary(glossary: Glossary, tables: Sequence[str] | None = None) -> str:
    """The prompt section for the columns of ``tables`` (every table when None); '' when there is none.

    One line per column, in the glossary's order: ``- EDTR.c7: "age" (4 examples), "years" (1 example)``.
    """
    wanted = {t.lower() for t in tables} if tables is not None else None
    lines = []
    for ref, terms in glossary.items():
        if wanted is not None and ref.rsplit(".", 1)[0].lower() not in wanted:
            continue
        shown = ", ".join(f'"{term}" ({n} example{"" if n == 1 else "s"})' for term, n in terms)
        lines.append(f"- {ref}: {shown}")
    return HEADER + "\n".join(lines) if lines else ""


def guessed_without_examples(db: Database, store: VectorStore | None, use_drafts: bool, sql: str) -> list[str]:
    """:func:`tools.opaque_reads.guessed_columns` of ``sql`` less the columns approved examples explain.

    A column of :func:`opaque_glossary` was read by approved examples of this database for the question words the
    glossary lists, so what it holds is not guessed from its stored values alone. On the abbreviated wide copies
    with examples (recorded runs, 2026-12-05 and 2026-12-06, five runs over 188 distinct questions) the answers
    held back only for such columns, with a score above the verified threshold, were right 67 times in 68.
    ``TABLE.column`` strings, in the query's order; [] for SQL that does not parse.
    """
    guessed = guessed_columns(db, use_drafts, sql)
    if not guessed:
        return []
    explained = opaque_glossary(db, store, use_drafts)
    return [ref for ref in guessed if ref not in explained]
