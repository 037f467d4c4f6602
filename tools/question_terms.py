"""Which words of a question no readable table or column name accounts for (the terms opaque-column linking asks about).

A schema with columns named like ``c10`` leaves some question words without a column whose name says them
("age" over ``HEAD(NM, BORN_ST, c10)``); :mod:`tools.opaque_columns` asks the model which opaque column holds each
such word. A word counts as named when a name part is the word, a form of it or its abbreviation
(:func:`unnamed_terms`), or - when the caller passes ``synonyms`` - when its embedding is close to a readable
name's words ("altitude" for ``elevation``, "aerodrome" for ``airports``:
:func:`retrieval.term_similarity.similar_words`), so a synonym of a readable name is not offered an opaque
column it does not mean.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import sqlglot
from sqlglot import exp

from database.schema_types import TableInfo
from knowledge.abbreviations import EXPANSIONS, expand_name, is_opaque_name, split_words
from knowledge.lookup import normalise
from retrieval.term_expansion import abbreviates
from tools.coverage import can_name_data

Synonyms = Callable[[Sequence[str]], set[str]]
"""Given question words no name accounts for by spelling, those that are synonyms of a readable name."""

MAX_TERMS = 4
"""Question words asked about in one call (the first ones in the question)."""

QUESTION_WORDS = frozenset(normalise(
    """what which who whom whose when where why how many much show list give tell find return get display each
    every all any both either per for the and or of in on at to from by with without into than that this these
    those there their them it its is are was were be been being do does did done have has had not no yes more
    less most least than over under above below between among also only just please same different other
    another number numbers count total sum average mean maximum minimum max min highest lowest largest smallest
    greatest biggest top bottom first last order ordered ordering sort sorted ascending descending alphabetical
    alphabetically distinct unique different respectively corresponding record records row rows table value
    values data information info detail details result results kind sort all including include includes they
    them he she his her him its one ones someone anyone everyone something anything whom yourself some several
    few various full entire two three four five six seven eight nine ten once twice common commonly
    frequent frequently often popular usual usually rare rarely substring contain contains containing"""))
"""Words that ask, count, order or match text and never name a column by themselves (folded as questions are):
spelled-out numbers and multiples ("two or more", "twice"), frequency ("the most common"), text
matching ("names that contain the substring")."""

ATTRIBUTE_WORDS = frozenset(normalise(
    """name id code type kind category date time year month day number count status description detail value
    amount total flag key level title"""))
"""Words many columns end with (``SPNSR_NM``, ``ORD_DT``): such a column accounts for one only when the rest of
its name is in the question too; any other word of a column's name accounts for the word by itself
(``BKS_AVLBL`` for "availability")."""

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’]*")
_NEGATION = re.compile(r"n['’]t$", re.I)
"""A negated verb ("didn't", "don't"): never the name of data."""
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'|“[^”]*”")


def opaque_columns(tables: list[TableInfo]) -> list[tuple[TableInfo, str]]:
    """``(table, column name)`` of every undocumented column of ``tables`` whose name is opaque, in order."""
    return [(t, c.name) for t in tables for c in t.columns
            if is_opaque_name(c.name) and not (c.comment or "").strip()]


def is_key_column(table: TableInfo, column: str) -> bool:
    """True when ``column`` of ``table`` is an identifier (a name part ``id``) or in its primary or a foreign key.

    Keys hold no question word's data, so they are never offered as the column a word or a written name meant.
    """
    low = column.lower()
    return ("id" in split_words(column) or low in {c.lower() for c in table.primary_key}
            or any(low in {c.lower() for c in fk.columns} for fk in table.foreign_keys)
            or bool((found := table.column(column)) and found.primary_key))


def reads_opaque_column(sql: str, dialect: str) -> bool:
    """True when the query reads a column whose name is opaque (``c10``; :func:`is_opaque_name`).

    ``sql`` is one SELECT in ``dialect`` (sqlglot's name, e.g. ``sqlite``); an unparsable query reads none.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return False
    return any(is_opaque_name(col.name) for col in tree.find_all(exp.Column))


def name_words(name: str) -> list[str]:
    """The folded words a reader takes from an identifier (``SPNSR_NM`` -> spnsr, nm, name).

    Its parts, plus the expansion of the whole name or else of each part that has one.
    """
    words = [w for w in split_words(name) if not w.isdigit()]
    reading = expand_name(name) or " ".join(EXPANSIONS[w] for w in words if w in EXPANSIONS)
    return words + normalise(reading)


def same_word(part: str, word: str) -> bool:
    """True when the name part ``part`` is ``word``, a form of it (shared start) or its abbreviation."""
    if part == word:
        return True
    shorter = min(len(part), len(word))
    if shorter >= 4 and part[:max(4, shorter - 2)] == word[:max(4, shorter - 2)]:
        return True
    return abbreviates(part, word) or abbreviates(part, f"{word}s")  # BKS for "bike": the plural's skeleton


def _attribute(part: str) -> bool:
    """True when a name part is an attribute word or abbreviates one (``TYP``, ``code``).

    Such parts of a column's name need not be in the question for the rest of the name to account for a word
    ("policy type" for ``PLCY_TYP_CD``).
    """
    return part in ATTRIBUTE_WORDS or EXPANSIONS.get(part, "") in ATTRIBUTE_WORDS


def unnamed_terms(question: str, tables: list[TableInfo], synonyms: Synonyms | None = None) -> list[str]:
    """Runs of adjacent content words of the question with a word no readable name of ``tables`` accounts for.

    Skipped: words in quotes (values), capitalised words after the first (names of things), numbers, negated
    verbs ("didn't"),
    :data:`QUESTION_WORDS`, words of two letters. A word is accounted for by a table whose name has it, or by a
    readable column whose name has it (:func:`same_word`) - for :data:`ATTRIBUTE_WORDS` only when every other
    word of that column's name that is not an attribute word itself is in the question too and, when a table the question names has an opaque
    column, the column is in such a table (``COACH.NM`` does not account for "names of players" when ``PLYR``
    has a column ``c3``; a word of its own, like "hometown", is accounted for by ``PPL.HMTWN`` wherever the
    question's tables are). Words that cannot
    be nouns (:func:`tools.coverage.can_name_data`: "received", "followed") are skipped too. A run is kept
    whole ("manager name" when only "manager" is accounted for), for context. With ``synonyms``, the words no
    name accounts for by spelling are passed to it once, and those it returns count as accounted for too (a
    synonym of a readable name: :func:`readable_phrases`). Returns at most
    :data:`MAX_TERMS` terms, in question order (e.g. ``["age"]`` for "List
    the name, born state and age of the heads" over ``HEAD(NM, BORN_ST, c10)``).
    """
    text = _QUOTED.sub(" , ", question)
    tokens = [(m.group(), m.start()) for m in _TOKEN.finditer(text)]
    asked = set(normalise(text))
    table_words = [w for t in tables for w in name_words(t.name)]
    named_tables = [t for t in tables if any(same_word(p, a) for p in name_words(t.name) for a in asked)]
    opaque_named = any(opaque_columns([t]) for t in named_tables)
    columns = [(name_words(c.name), not opaque_named or t in named_tables) for t in tables for c in t.columns
               if not is_opaque_name(c.name)]

    def named(word: str) -> bool:
        if any(same_word(p, word) for p in table_words):
            return True
        for parts, near in columns:
            if not near and word in ATTRIBUTE_WORDS:
                continue  # "name" of another table's NM says nothing about the named table's c3
            if any(same_word(p, word) for p in parts) and (word not in ATTRIBUTE_WORDS or all(
                    any(same_word(p, a) or p == a for a in asked) for p in parts
                    if len(p) > 2 and p != word and not _attribute(p))):
                return True
        return False

    runs: list[list[tuple[str, bool]]] = [[]]  # adjacent content words, each with "a name accounts for it"
    for i, (token, start) in enumerate(tokens):
        folded = normalise(token)
        word = folded[0] if folded else ""
        gap = i > 0 and re.search(r"[,;:.?!]", text[tokens[i - 1][1]:start]) is not None
        if gap and runs[-1]:
            runs.append([])
        if (len(word) < 3 or word in QUESTION_WORDS or (i > 0 and token[0].isupper())
                or _NEGATION.search(token) or not can_name_data(token)):
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append((token.lower(), named(word)))
    unnamed = list(dict.fromkeys(w for run in runs for w, known in run if not known))
    close = synonyms(unnamed) if synonyms is not None and unnamed else set()
    terms = [" ".join(w for w, _ in run) for run in runs if any(not known and w not in close for w, known in run)]
    return list(dict.fromkeys(terms))[:MAX_TERMS]




def readable_phrases(tables: list[TableInfo]) -> list[str]:
    """What a reader takes from the readable names of ``tables``, abbreviations expanded.

    Each table's words, and each readable column's words alone and after its table's (``"head born state"`` for
    ``HEAD.BORN_ST``).
    Opaque columns are left out (their names hold no words); the phrases are what a question word is compared to
    by embedding similarity (:data:`Synonyms`).
    """
    def words(name: str) -> str:
        parts = [w for w in split_words(name) if not w.isdigit()]
        return expand_name(name) or " ".join(EXPANSIONS.get(w, w) for w in parts)

    phrases: list[str] = []
    for table in tables:
        phrases.append(words(table.name))
        for column in table.columns:
            if not is_opaque_name(column.name):
                phrases += [words(column.name), f"{words(table.name)} {words(column.name)}"]
    return list(dict.fromkeys(p.strip() for p in phrases if p.strip()))
