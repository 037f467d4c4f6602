"""Proper names stored in masked (personal) columns, for the answerability check.

Values of sensitive columns (``retrieval.sensitive_patterns``: names, e-mails, addresses...) never reach
prompts or the value index (:mod:`database.masking`), so a person's name in a question ("Who is Jane
Peacock's manager?") is found nowhere the answerability check looks, and a 1.5B model asked about the
"uncovered" words refuses. :func:`stored_in_masked_columns` looks such capitalised words up in the masked text
columns themselves, read-only, without sending any value anywhere: only whether the word occurs.
:func:`stored_as_values` does the same for capitalised words that are (words of) indexed values the value
linker did not resolve ("North Carolina" for 'NorthCarolina').
"""

from __future__ import annotations

import re

from database.masking import is_sensitive
from database.schema_reader import quote_identifier, read_schema
from knowledge.lookup import normalise
from retrieval.value_index import load_values
from rewrites.literals import fold
from tools.base import ToolContext

MAX_COLUMNS = 24
"""At most this many masked text columns are searched (a LIKE scan each)."""
MAX_WORDS = 3
"""At most this many capitalised words are looked up per question."""

_TEXT = re.compile(r"char|text|clob|string|name", re.IGNORECASE)
_COLUMNS: dict[str, list[tuple[str, str]]] = {}


def capitalised(question: str, words: list[str]) -> list[str]:
    """The folded ``words`` written with a capital letter in ``question`` other than as its first word."""
    tokens = re.findall(r"[^\W_]+", question)
    caps = {normalise(t)[0] for t in tokens[1:] if t[:1].isupper() and normalise(t)}
    return [w for w in words if w in caps]


def masked_text_columns(ctx: ToolContext) -> list[tuple[str, str]]:
    """``[(table, column)]`` of the database's sensitive text columns, at most :data:`MAX_COLUMNS`.

    Read once per database; [] when the schema cannot be read.
    """
    key = ctx.db.key
    if key not in _COLUMNS:
        patterns = ctx.settings.retrieval.sensitive_patterns
        try:
            tables = read_schema(ctx.db, sample_rows=0, use_enriched=False)
        except Exception:  # a schema that cannot be read means no names to find, never a failed question
            tables = []
        found = [(t.name, c.name) for t in tables for c in t.columns
                 if is_sensitive(c.name, patterns) and _TEXT.search(c.type or "text")]
        _COLUMNS[key] = found[:MAX_COLUMNS]
    return _COLUMNS[key]


def stored_in_masked_columns(ctx: ToolContext, question: str, uncovered: list[str]) -> set[str]:
    """The capitalised ``uncovered`` words that occur in some masked text column (case-insensitive ``LIKE``).

    Each lookup is one guarded read-only query through ``ctx.db.run_query``; failures count as not found.
    """
    words = capitalised(question, uncovered)[:MAX_WORDS]
    found: set[str] = set()
    if not words:
        return found
    dialect = ctx.db.dialect
    for table, column in masked_text_columns(ctx):
        col, tab = quote_identifier(column, dialect), quote_identifier(table, dialect)
        for word in [w for w in words if w not in found]:
            literal = word.replace("'", "''")
            res = ctx.db.run_query(f"SELECT 1 FROM {tab} WHERE LOWER({col}) LIKE '%{literal}%'", row_cap=1)
            if res.ok and res.rows:
                found.add(word)
        if len(found) == len(words):
            break
    return found


_VALUE_WORDS: dict[tuple[str, tuple[int, str | None]], frozenset[str]] = {}


def _value_words(ctx: ToolContext) -> frozenset[str]:
    """Folded indexed values and their folded words (cached per database and index snapshot)."""
    if ctx.store is None:
        return frozenset()
    data = load_values(ctx.store, ctx.db.key)
    key = (ctx.db.key, data.signature)
    if key not in _VALUE_WORDS:
        words = {fold(e.value) for e in data.entries}
        words |= {fold(t) for e in data.entries for t in re.findall(r"[^\W_]+", e.value)}
        _VALUE_WORDS[key] = frozenset(w for w in words if len(w) >= 3)
    return _VALUE_WORDS[key]


def stored_as_values(ctx: ToolContext, question: str, uncovered: list[str]) -> set[str]:
    """The capitalised ``uncovered`` words that are stored values, or a word of one, in the value index.

    A word run together with its neighbour counts too: "North Carolina" for a stored 'NorthCarolina'.
    Such a word names data the database holds (a state, a city, a product) even when the value linker did
    not resolve it, so it is no evidence of a missing concept. No query runs; [] without a value index.
    """
    words = set(capitalised(question, uncovered))
    if not words:
        return set()
    stored = _value_words(ctx)
    tokens = re.findall(r"[^\W_]+", question)
    found: set[str] = set()
    for i, token in enumerate(tokens):
        norm = normalise(token)
        if not norm or norm[0] not in words:
            continue
        joined = [fold(token)]
        if i + 1 < len(tokens):
            joined.append(fold(token + tokens[i + 1]))
        if i > 0:
            joined.append(fold(tokens[i - 1] + token))
        if any(j in stored for j in joined):
            found.add(norm[0])
    return found
