"""Is a linked value a plausible entity mention, or a common word that happens to occur inside a value?

Free-text columns (titles, names, descriptions) turn ordinary words into false entities: on Chinook "Which
country has the most customers?" matched the track 'Country Feedback' and "Plot total sales per year" the track
'Plot 180', and the generator, told to use those values, filtered on them. :func:`plausible` keeps a match only
when the mention could name that value:

* a quoted mention always may;
* a mention whose words all name tables or columns of the database (``country``, ``invoice total``) is the
  schema, not a value;
* a mention made only of common English words (word frequency from ``wordfreq``: Zipf >= :data:`COMMON_ZIPF`,
  i.e. more than about 10 per million words) must match the *whole* value (same normalised form, or the name
  without legal suffix), so "Rock" still finds the genre 'Rock' and "Brazil" the country, while "country" no
  longer finds 'Country Feedback' nor "compare" 'Compadre'. Rare words (names such as "Aerosmith") keep
  partial and fuzzy matching.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from retrieval.value_matching import STOPWORDS, Mention, core_of, norm_tokens, normalize

COMMON_ZIPF = 4.0
"""Words at least this frequent (Zipf scale: log10 of frequency per billion words) count as common English."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@functools.cache
def zipf(word: str) -> float:
    """Zipf frequency of ``word`` in English (0 for unknown words); ``wordfreq`` is loaded on first use."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


def is_common_word(word: str) -> bool:
    """True for a frequent English word (:data:`COMMON_ZIPF`); digits and one-letter tokens count as common."""
    return len(word) < 2 or word.isdigit() or zipf(word) >= COMMON_ZIPF


def schema_words(names: Iterable[str]) -> frozenset[str]:
    """Normalised words of table and column names: ``InvoiceLine``/``invoice_line`` -> ``{"invoice", "line"}``."""
    words: set[str] = set()
    for name in names:
        words.update(norm_tokens(_CAMEL.sub(" ", name).replace("_", " ")))
    return frozenset(words)


def whole_value(mention: Mention, value: str) -> bool:
    """True when ``mention`` names all of ``value``, not just a word inside it.

    That is: the same normalised form (case, accents, punctuation and plural ``s`` folded) or the value without
    its legal suffix (``Apple`` for 'Apple Inc.'). Spelling variants do not count: a correctly spelled common
    word ("compare") is not a misspelling of a value ('Compadre').
    """
    tokens = norm_tokens(value)
    return mention.norm in {normalize(value), " ".join(core_of(tokens))}


FREE_TEXT_VALUES = 100
"""A column with more indexed values than this holds free text (titles, names), not a short list of categories."""
_NAMING = re.compile(r"\b(?:called|named|titled|entitled|labell?ed)\s*[\"“'‘]?\s*$", re.IGNORECASE)


def marked_as_name(question: str, mention: Mention) -> bool:
    """True when ``question`` marks ``mention`` as a name.

    Quoted, capitalised, an upper-case code, or after "called", "named", "titled" ("the track called run").
    """
    return mention.kind in ("quoted", "caps", "ticker") or bool(_NAMING.search(question[: mention.start]))


def plausible(mention: Mention, value: str, schema: frozenset[str], *, free_text: bool = False,
              question: str = "") -> bool:
    """Whether ``mention`` may refer to the stored ``value`` (see the module docstring for the rules).

    ``free_text``: the value's column holds free text (more than :data:`FREE_TEXT_VALUES` values). There a
    mention made only of common words must also be marked as a name (:func:`marked_as_name`): "How many tracks
    run past 600 seconds?" does not name the track 'Run!', while "songs of the Rock genre" still names 'Rock'
    (a short list of categories) and "the song called run" names the track.
    """
    if mention.kind == "quoted":
        return True
    words = [w for w in mention.norm.split() if w not in STOPWORDS] or mention.norm.split()
    if schema and all(w in schema for w in words):
        return False
    if all(is_common_word(w) for w in words):
        if free_text and not marked_as_name(question, mention):
            return False
        return whole_value(mention, value)
    return True
