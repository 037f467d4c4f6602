"""Naming rules: the warehouse form of a word or identifier, and the names a new name never takes.

The dictionary of abbreviations (:data:`ABBREVIATIONS`) and :func:`split_words` live in
:mod:`knowledge.abbreviations` (the product reads such names back) and are re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sqlglot.dialects.sqlite import SQLite
from sqlglot.parser import Parser
from sqlglot.tokens import Tokenizer

from knowledge.abbreviations import ABBREVIATIONS as ABBREVIATIONS
from knowledge.abbreviations import split_words as split_words

_SQLITE_KEYWORD_TEXT = """
ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE
CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME
CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE
EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP
GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN
KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER
OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES REGEXP REINDEX
RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN
TIES TO TRANSACTION TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH
WITHOUT ROWID OID _ROWID_
"""
SQLITE_KEYWORDS = frozenset(_SQLITE_KEYWORD_TEXT.split())
"""SQLite's keywords (https://sqlite.org/lang_keywords.html) and its implicit rowid column names."""

_SINGLE_WORD = re.compile(r"[A-Z_][A-Z0-9_]*")
RESERVED = frozenset(
    SQLITE_KEYWORDS
    | {k.upper() for k in (*Tokenizer.KEYWORDS, *SQLite.Tokenizer.KEYWORDS) if _SINGLE_WORD.fullmatch(k.upper())}
    | {k.upper() for k in (*Parser.FUNCTIONS, *SQLite.Parser.FUNCTIONS)})
"""Names a renamed table or column never takes: SQLite's keywords, sqlglot's keywords and function names."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VOWELS = set("aeiou")


def is_reserved(name: str) -> bool:
    """True when ``name`` is an SQL keyword or function name, or not a plain unquoted identifier."""
    return not _IDENTIFIER.fullmatch(name) or name.upper() in RESERVED


_EXPANSIONS = {form.lower(): word for word, forms in sorted(ABBREVIATIONS.items()) for form in forms}
"""An abbreviation the source already uses -> its dictionary word (``dept`` -> ``department``)."""


def _dictionary_word(word: str) -> str | None:
    """The dictionary word ``word`` is, or is the plural or an abbreviation of (``departments``, ``dept``)."""
    forms = [word]
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("s"):
        forms.append(word[:-1])
    found = next((f for f in forms if f in ABBREVIATIONS), None)
    return found or _EXPANSIONS.get(word)


def _drop_vowels(word: str) -> str:
    """``salary`` -> ``slry``: the first letter, then the consonants (doubles once), at most six letters."""
    out = word[0]
    for ch in word[1:]:
        if ch not in _VOWELS and ch != out[-1]:
            out += ch
    return out[:6]


def abbreviate_word(word: str, variants: dict[str, str] | None = None) -> str:
    """The warehouse form of one lower-case word (upper case).

    ``variants`` picks, per dictionary word, which of its abbreviations to use (default: the first). Numbers
    and words of at most four letters stay; other words lose their vowels.
    """
    key = _dictionary_word(word)
    if key is not None:
        return (variants or {}).get(key, ABBREVIATIONS[key][0])
    if word.isdigit() or len(word) <= 4:
        return word.upper()
    return _drop_vowels(word).upper()


def abbreviate_name(name: str, variants: dict[str, str] | None = None) -> str:
    """The warehouse form of an identifier (``customer_name`` -> ``CUST_NM``; not checked against keywords)."""
    words = split_words(name) or ["x"]
    out = "_".join(abbreviate_word(w, variants) for w in words)
    return out if not out[0].isdigit() else f"N{out}"


def _claim(candidates: Iterable[str], original: str, taken: dict[str, str]) -> str:
    """The first candidate neither reserved nor given to another original name, else one with a suffix.

    ``taken`` maps each new name given so far (upper case) to its original name (lower case); the choice is
    added to it. One original name may keep one new name in several tables (a shared key stays shared), but
    two different original names never share one, so no unqualified column becomes ambiguous.
    """
    def free(name: str) -> bool:
        return not is_reserved(name) and taken.get(name.upper(), original.lower()) == original.lower()

    options = list(candidates)
    chosen = next((name for name in options if free(name)), None)
    n = 2
    while chosen is None:
        chosen = f"{options[0].rstrip('_')}_{n}" if free(f"{options[0].rstrip('_')}_{n}") else None
        n += 1
    taken[chosen.upper()] = original.lower()
    return chosen
