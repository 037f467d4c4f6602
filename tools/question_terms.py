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
    greatest biggest fewest fewer top bottom first last order ordered ordering sort sorted ascending descending alphabetical
    alphabetically distinct unique different respectively corresponding record records row rows table value
    values data information info detail details result results kind sort all including include includes they
    them he she his her him its one ones someone anyone everyone something anything whom yourself some several
    few various certain particular specific full entire two three four five six seven eight nine ten once twice common commonly
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

NAME_QUALIFIERS: dict[str, tuple[str, ...]] = {"first": ("forename", "given"), "last": ("surname", "family"),
                                               "middle": ()}
"""Ordinals that name a kind of name ("first and last name"), with the words of a column that holds that kind
(``forename``, ``surname``): content words right before "name", question words elsewhere ("the first 5 rows")."""

DIMENSIONS: dict[str, tuple[str, ...]] = {
    "young": ("age", "birth", "born"), "old": ("age", "birth", "born"), "tall": ("height",),
    "short": ("height", "length", "duration"), "long": ("length", "duration"), "heavy": ("weight",),
    "light": ("weight",), "expensive": ("price", "cost"), "cheap": ("price", "cost"), "recent": ("date", "year"),
    "late": ("date", "year"), "early": ("date", "year"), "fast": ("speed",), "slow": ("speed",)}
"""Adjectives that measure along one dimension, and the nouns a column for it is named with: "youngest" is
accounted for by a readable ``AGE`` or ``BIRTH_DT``."""

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’]*")
_NEGATION = re.compile(r"n['’]t$", re.I)
"""A negated verb ("didn't", "don't"): never the name of data."""
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'|“[^”]*”")


def opaque_columns(tables: list[TableInfo]) -> list[tuple[TableInfo, str]]:
    """``(table, column name)`` of every undocumented column of ``tables`` whose name is opaque, in order."""
    return [(t, c.name) for t in tables for c in t.columns
            if is_opaque_name(c.name) and not (c.comment or "").strip()]


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
    be nouns (:func:`tools.coverage.can_name_data`: "received", "followed") are skipped too, except an adjective
    right before a content word ("available rooms"; of comparatives and superlatives only a dimension's:
    "tallest entrepreneur", not "busiest airport"), accounted for also by a readable
    column of its dimension (:data:`DIMENSIONS`: "youngest" by ``AGE``); and "first", "last" or "middle" before
    "name" (:data:`NAME_QUALIFIERS`) are content words, accounted for by a column that is that kind of name
    (``FNM``, ``FST_NM``, ``LNAME``, ``forename``), which then accounts for the "name" after it too. A run is kept
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

    compact = [(tail, not opaque_named or t in named_tables) for t in tables for c in t.columns
               if not is_opaque_name(c.name) for tail in _tails(c.name)]

    def named(word: str) -> bool:
        if any(same_word(p, word) for p in table_words):
            return True
        if word in NAME_QUALIFIERS:  # "first" of "first name": FNAME, FNM, FST_NM, forename
            return any(near and _kind_of_name(name, word) for name, near in compact) or any(
                same_word(p, kind) for parts, near in columns if near for p in parts for kind in NAME_QUALIFIERS[word])
        for parts, near in columns:
            if not near and word in ATTRIBUTE_WORDS:
                continue  # "name" of another table's NM says nothing about the named table's c3
            if any(same_word(p, word) for p in parts) and (word not in ATTRIBUTE_WORDS or all(
                    any(same_word(p, a) or p == a for a in asked) for p in parts
                    if len(p) > 2 and p != word and not _attribute(p))):
                return True
        return False

    words = [(normalise(token) or [""])[0] for token, _ in tokens]
    gaps = [i > 0 and re.search(r"[,;:.?!]", text[tokens[i - 1][1]:start]) is not None
            for i, (_, start) in enumerate(tokens)]
    kinds = [_kind(token, word, i) for i, ((token, _), word) in enumerate(zip(tokens, words, strict=True))]
    for i in range(len(tokens)):
        if kinds[i] == "modifier" and i + 1 < len(tokens) and kinds[i + 1] == "content" and not gaps[i + 1]:
            kinds[i] = "content"  # "oppose rate", "tallest entrepreneur": the word that tells look-alikes apart
        elif words[i] in NAME_QUALIFIERS and _qualifies_name(words[i + 1:]):
            kinds[i] = "content"  # "first name": "first" is not an ordinal here
    runs: list[list[tuple[str, bool]]] = [[]]  # adjacent content words, each with "a name accounts for it"
    for i, (token, _) in enumerate(tokens):
        if gaps[i] and runs[-1]:
            runs.append([])
        if kinds[i] != "content":
            if runs[-1]:
                runs.append([])
            continue
        dimension = DIMENSIONS.get(_adjective(token), ()) if not can_name_data(token) else ()
        kind_named = words[i] == "name" and len(runs[-1]) == 1 and words[i - 1] in NAME_QUALIFIERS and runs[-1][0][1]
        runs[-1].append((token.lower(), kind_named or any(named(w) for w in dimension) or named(words[i])))
    unnamed = list(dict.fromkeys(w for run in runs for w, known in run if not known))
    close = synonyms(unnamed) if synonyms is not None and unnamed else set()
    terms = [" ".join(w for w, _ in run) for run in runs if any(not known and w not in close for w, known in run)]
    return list(dict.fromkeys(terms))[:MAX_TERMS]




def _kind(token: str, word: str, index: int) -> str:
    """``skip``, ``content`` (a word that can name data) or ``modifier`` (a verb or adjective that can only qualify one).

    Skipped: words of two letters, :data:`QUESTION_WORDS`, capitalised words after the first, negated verbs. A
    word that cannot be a noun (:func:`tools.coverage.can_name_data`) is a modifier: it counts only right before
    a content word (:func:`unnamed_terms`).
    """
    if len(word) < 3 or word in QUESTION_WORDS or (index > 0 and token[0].isupper()) or _NEGATION.search(token):
        return "skip"
    if can_name_data(token):
        return "content"
    adjective = _adjective(token)  # "available"; of degrees only a dimension's ("tallest", not "busiest")
    return "modifier" if adjective and (adjective == token.lower() or adjective in DIMENSIONS) else "skip"


def _adjective(token: str) -> str:
    """The adjective ``token`` is a form of ("young" for "youngest"), or '' when it can be anything else too.

    lemminflect's English lexicon decides: "tallest" and "available" are only adjectives; "about", "higher" and
    "affecting" can be adverbs or verbs, and are skipped.
    """
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(token.lower())
    return next(iter(lemmas["ADJ"]), "") if set(lemmas) == {"ADJ"} else ""


def _tails(name: str) -> list[str]:
    """The name's last one, two and three parts joined (``CSTMR_FRST_NM`` -> ``nm``, ``frstnm``, ``cstmrfrstnm``)."""
    parts = split_words(name)
    return ["".join(parts[-n:]) for n in range(1, min(3, len(parts)) + 1)]


def _kind_of_name(name: str, qualifier: str) -> bool:
    """True when the folded column name ``name`` (parts joined: ``fnm``, ``lname``, ``firstname``) is that kind of name."""
    if name in (qualifier[0] + "nm", qualifier[0] + "name"):
        return True
    return name.startswith(qualifier[0]) and name.endswith(("nm", "name")) and (
        abbreviates(name, qualifier + "name") or name[:-2 if name.endswith("nm") else -4] == qualifier)


def _qualifies_name(rest: Sequence[str]) -> bool:
    """True when the folded words after a :data:`NAME_QUALIFIERS` word lead to "name" ("and last name")."""
    for word in rest:
        if word in ("name", "names"):
            return True
        if word not in NAME_QUALIFIERS and word not in ("and", "or"):
            return False
    return False


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
