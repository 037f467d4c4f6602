"""Which knowledge records a question needs, and the definitions block that shows them to the model.

Matching is lexical over each record's name and synonyms: an Aho-Corasick automaton (``pyahocorasick``) over
normalised token strings finds every phrase in one pass, whatever its case, plural or possessive form
("Market caps", "Apple's market cap" both contain ``market cap``). A multi-word phrase also matches when most of
its words occur in the question in any order ("return of each month" for ``monthly return`` does not; "price
in dollars, closing" for ``closing price`` does). The selected records are rendered within a token budget per
record type (TailorSQL budgets its hint documents per kind the same way) in a fixed order (type, then
file order), so the block is identical every time a question is asked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import ahocorasick

from knowledge.records import TYPES, KnowledgeRecord
from knowledge.view_sql import ViewError, view_columns

DEFAULT_BUDGETS: dict[str, int] = {"view": 120, "rule": 180, "metric": 240, "term": 200, "enum": 70, "synonym": 70}
"""Prompt tokens per record type in the definitions block (880 at most; on the local 2-core model every
uncached prompt token costs ~14 ms, and this block changes with the question)."""

PARTIAL_SHARE = 0.75
"""A phrase of 2+ words matches out of order when at least this share of its words is in the question."""

HEADER = "Business definitions for this database (apply them where the question uses these words):\n"

_WORD = re.compile(r"[^\W_]+")
STOPWORDS = frozenset({"a", "an", "the", "of", "in", "on", "for", "to", "by", "and", "or", "per", "at", "s",
                       "is", "are", "was", "were", "be", "me", "my", "it", "its", "with", "from", "as"})
"""Function words left out of a phrase's content words (and of a reading's distinguishing words)."""


def _fold(token: str) -> str:
    """Plural folding shared by phrases and questions (``prices`` -> ``price``, ``companies`` -> ``company``)."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def normalise(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` with possessives dropped and plurals folded."""
    text = re.sub(r"['’]s\b", "", text.lower())
    return [_fold(t) for t in _WORD.findall(text)]


@dataclass(frozen=True)
class Match:
    """``record_id`` matched because ``phrase`` occurs in the question (``exact``: contiguous, in order)."""

    record_id: str
    phrase: str
    exact: bool


class KnowledgeMatcher:
    """Finds the records whose name or synonyms occur in a question (build once per knowledge base)."""

    def __init__(self, records: Sequence[KnowledgeRecord]) -> None:
        """Index every phrase of ``records`` (phrases that normalise to nothing are skipped)."""
        self._records = list(records)
        self._automaton = ahocorasick.Automaton()
        self._phrases: list[tuple[str, str, set[str]]] = []
        keys: dict[str, list[tuple[str, str]]] = {}
        for record in self._records:
            for phrase in record.phrases:
                tokens = normalise(phrase)
                if tokens:
                    keys.setdefault(f" {' '.join(tokens)} ", []).append((record.id, phrase))
                    content = {t for t in tokens if t not in STOPWORDS}
                    if len(content) >= 2:
                        self._phrases.append((record.id, phrase, content))
        for key, owners in keys.items():
            self._automaton.add_word(key, owners)
        if keys:
            self._automaton.make_automaton()
        self._empty = not keys

    def match(self, question: str) -> list[Match]:
        """Every record matched by ``question``, exact matches first, each record once (first phrase wins)."""
        tokens = normalise(question)
        found: dict[str, Match] = {}
        if not self._empty and tokens:
            for _, owners in self._automaton.iter(f" {' '.join(tokens)} "):
                for record_id, phrase in owners:
                    found.setdefault(record_id, Match(record_id, phrase, True))
        words = set(tokens)
        for record_id, phrase, content in self._phrases:
            if record_id not in found and len(content & words) >= PARTIAL_SHARE * len(content):
                found[record_id] = Match(record_id, phrase, False)
        return sorted(found.values(), key=lambda m: not m.exact)


def estimate_tokens(text: str) -> int:
    """Approximate prompt tokens of ``text`` (~3.5 characters per token)."""
    return int(len(text) / 3.5) + 1


def render_record(record: KnowledgeRecord) -> str:
    """One definitions line: ``- metric "market cap" (USD): definition SQL: ... Needs: ...``.

    A view is shown as the table it stands for, ``- view daily_return(EQ_ID, ...): definition. Read it like a
    table.`` (its SQL is expanded into the query later, :mod:`knowledge.views`).
    """
    if record.type == "view":
        try:
            columns = ", ".join(view_columns(record.sql or ""))
        except ViewError:
            columns = "..."
        return (f"- view {record.name}({columns}): {' '.join(record.definition.split())}. "
                f"Read it like a table (FROM {record.name}) instead of recomputing it.")
    head = f'- {record.type} "{record.name}"' + (f" ({record.unit})" if record.unit else "")
    parts = [f"{head}: {' '.join(record.definition.split())}"]
    if record.sql:
        parts.append(f"SQL: {' '.join(record.sql.split())}")
    if record.filters:
        parts.append(f"Needs: {'; '.join(record.filters)}")
    if record.values:
        parts.append("Codes: " + ", ".join(f"{k} = {v}" for k, v in record.values.items()))
    if record.type == "synonym":
        parts.append(f"Also called: {', '.join(record.synonyms)}")
    return " ".join(parts)


def select_records(records: Sequence[KnowledgeRecord], matches: Sequence[Match],
                   budgets: Mapping[str, int] | None = None) -> list[KnowledgeRecord]:
    """The matched records that fit their type's budget, in rendering order (type order, then file order).

    Within a type, exact matches are taken before partial ones, each while its line fits the budget.
    """
    limits: dict[str, int] = dict(DEFAULT_BUDGETS if budgets is None else budgets)
    by_id = {r.id: r for r in records}
    used: dict[str, int] = {}
    chosen: set[str] = set()
    for match in matches:  # exact first (see KnowledgeMatcher.match)
        record = by_id.get(match.record_id)
        if record is None:
            continue
        cost = estimate_tokens(render_record(record))
        if used.get(record.type, 0) + cost <= limits.get(record.type, 0):
            used[record.type] = used.get(record.type, 0) + cost
            chosen.add(record.id)
    order = {t: i for i, t in enumerate(TYPES)}
    position = {r.id: i for i, r in enumerate(records)}
    return sorted((by_id[i] for i in chosen), key=lambda r: (order[r.type], position[r.id]))


def definitions_block(records: Sequence[KnowledgeRecord]) -> str:
    """The block the generator reads ('' when there is nothing to say): header, one line per record."""
    if not records:
        return ""
    return HEADER + "\n".join(render_record(r) for r in records) + "\n\n"


def cited(records: Sequence[KnowledgeRecord], sql: str) -> list[str]:
    """Names of the shown records the final ``sql`` visibly applies (a column, table or SQL fragment of theirs).

    Rules and enums count when one of their columns or tables appears; a record without any is cited when
    shown (it can only have shaped the query through its wording).
    """
    text = sql.lower()
    names = []
    for record in records:
        marks = [c.rsplit(".", 1)[-1].lower() for c in record.columns] + [t.lower() for t in record.tables]
        if record.type == "view":
            marks = [record.name.lower()]
        if not marks or any(re.search(rf"\b{re.escape(m)}\b", text) for m in marks):
            names.append(record.name)
    return names
