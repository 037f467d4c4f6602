"""Word coverage for the answerability check: which words of a question the database accounts for.

A question word is *covered* when the database's documents (table and column names, their documentation and
sample values), the business definitions or the linked values contain it, when it is a question or analysis
word (:data:`GENERIC`), or when it is a common English word. What is left, the *uncovered* words, may name data
the database does not hold ("Apple's price-to-earnings ratio" on a prices database). Two refinements keep
typos and word forms from looking like missing data:

* a word that shares its stem-like prefix with a vocabulary word is covered ("nation" ~ ``nationality``,
  "arrival" ~ ``date_arrived``, "Asian" ~ the value 'Asia'): :func:`prefix_covered`;
* a word no English or French word list knows (a typo: "alphaetical", "cartool") is never uncovered.

:func:`can_name_data` then says whether a word may be the name of missing data (a noun, or a word the
lexicon does not know such as an acronym), as opposed to a verb or adjective form ("founded", "departing",
"corresponding", "rarest"), using lemminflect's English lexicon.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

from knowledge.lookup import normalise
from knowledge.records import KnowledgeRecord
from retrieval.hybrid import TableCatalog
from retrieval.term_expansion import TermExpander
from tools.base import ToolContext

FRENCH_MARKERS = frozenset({"le", "la", "les", "de", "du", "des", "est", "quel", "quelle", "quels", "une", "un",
                            "dans", "sur", "pour", "par", "au", "aux", "été", "était", "combien", "où", "en", "et",
                            "d", "l", "à", "se", "sa", "son", "ses", "avec", "leur", "leurs", "affiche", "elle"})
"""Function words that mark a question as French."""
FRENCH_ZIPF = 3.0
"""In a French question, French words at least this frequent count as covered."""

_CODE = re.compile(r"^[a-z]*\d[a-z\d]*$")

_GENERIC_TEXT = """
what which who whom whose when where why how many much show list give tell find get display plot chart draw
top bottom best worst highest lowest largest biggest smallest least most more less greater fewer average mean
median total sum count number amount overall each every per all any both either between among across during
over under above below before after since until versus compare compared comparison difference change changed
trend growth grew rise rose fall fell increase decrease ranking ranked rank order sorted sort ascending
descending first last next previous latest earliest recent current currently today now ago daily weekly
monthly yearly annual quarterly day days week weeks month months year years quarter date dates time period
value values percent percentage rate figure figures data record records row rows table detail details name
names also please there their them those these this that with without within into from onto upon like unlike
same different other another only just exactly about around approximately roughly nearly almost whole
breakdown distribution share split group grouped performing performed perform performance does did done
have has had dataset database gained gain lost loss
alphabetical alphabetically reverse reversed corresponding respective respectively ordered ordering listed
substring contain contains containing letter letters character characters word words string strings starting
beginning ending begins ends rare rarest common commonest frequent frequently popular
minimum maximum min max distinct unique id ids identifier identifiers code codes type types kind kinds category
categories status own owns owned having held hold holds whose full
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec
avg num nbr qty pct amt cnt tot yr yrs mo mos wk wks hr hrs sec secs mins ytd mtd qtd yoy mom info stat stats
"""
GENERIC = frozenset(normalise(_GENERIC_TEXT))
"""Question and analysis words that never name data by themselves (folded like questions are)."""

TYPO_ZIPF = 1.0
"""A word rarer than this in English and French (wordfreq Zipf scale) is taken as a typo or a token, not a word."""
LEGIBLE_ZIPF = 3.0
"""A name part at least this frequent in English (wordfreq Zipf scale) is a word, not a code."""
MIN_PREFIX = 5
"""Letters two words must share at the start to be forms of one word (four when the shorter word has four)."""


def vocabulary(ctx: ToolContext, records: list[KnowledgeRecord], schema_text: str, mentions: list[str]) -> set[str]:
    """Every folded word of the database's documents (catalog), ``schema_text``, ``records`` and ``mentions``."""
    words = set(normalise(schema_text)) | set(normalise(" ".join(mentions)))
    catalog = ctx.catalog() if ctx.store is not None else None
    if catalog is not None:
        for name in catalog.names:
            words |= set(normalise(f"{name.replace('_', ' ')} {catalog.descriptions.get(name, '')} "
                                   f"{catalog.schema_doc(name).replace('_', ' ')}"))
    for r in records:
        words |= set(normalise(" ".join([*r.phrases, r.definition, *r.values.values(), *r.values])))
    return words


def prefix_covered(word: str, vocabulary: set[str]) -> bool:
    """True when ``word`` and a ``vocabulary`` word look like forms of one word.

    They share a prefix of at least ``max(MIN_PREFIX, shorter length - 2)`` letters, or the shorter has four
    letters and is the other's prefix ("asia"/"asian"). "nation"/"nationality", "arrival"/"arrived" and
    "departure"/"departed" match; "ratio"/"rating" and "earning"/"early" do not. Cost: one pass over the
    vocabulary (a few thousand words).
    """
    for other in vocabulary:
        if other[:3] != word[:3]:
            continue
        shorter = min(len(word), len(other))
        common = len(os.path.commonprefix([word, other]))
        if common >= max(MIN_PREFIX, shorter - 2) or (shorter == 4 and common == 4):
            return True
    return False


def written_forms(question: str) -> dict[str, str]:
    """Each folded word of ``question`` (:func:`knowledge.lookup.normalise`) -> the word as written, lower-cased.

    The folding is for matching ("coaches" -> "coache"); what is shown to the analyst is the written word.
    """
    return {normalise(w)[0]: w for w in re.findall(r"[^\W_]+", question.lower()) if normalise(w)}


_NEGATED = re.compile(r"n['\u2019]t\b", re.IGNORECASE)


def uncovered_terms(question: str, vocabulary: set[str], common_zipf: float,
                    names: TermExpander | None = None) -> list[str]:
    """Content words of ``question`` that nothing in the database accounts for.

    A word (3+ letters, folded by :func:`knowledge.lookup.normalise`) is uncovered when it is neither in
    ``vocabulary`` (nor a form of a vocabulary word, :func:`prefix_covered`, nor half of two adjacent
    question words a stored value runs together: "North Carolina" ~ 'NorthCarolina'), nor abbreviated by a part of
    a table or column name held by ``names`` (the catalog's :class:`retrieval.term_expansion.TermExpander`, the
    rule lexical table search uses: ``FLR`` for "floor", ``GVRNR`` for "governor"), nor in :data:`GENERIC`, nor an
    English word at least ``common_zipf`` frequent (wordfreq; French: half a point more), nor so rare in both
    languages (under :data:`TYPO_ZIPF`) that it is a typo; codes and numbers are skipped. A question written in
    French (two or more of :data:`FRENCH_MARKERS`) is checked against an English schema, so there any ordinary
    French word (Zipf >= :data:`FRENCH_ZIPF`) counts as covered: French questions are answered rather than
    refused, at the price of missing some French refusals.
    """
    from wordfreq import zipf_frequency

    question = _NEGATED.sub(" not", question)  # "don't" is "do not", not the word "don"
    raw = written_forms(question)
    tokens = normalise(question)
    joined = {w for a, b in zip(tokens, tokens[1:], strict=False) if a + b in vocabulary for w in (a, b)}
    french = is_french(question)
    out = []
    for word in dict.fromkeys(tokens):
        if len(word) < 3 or _CODE.match(word) or word in GENERIC or word in vocabulary or word in joined:
            continue
        forms = {word, raw.get(word, word)}
        english = max(zipf_frequency(f, "en") for f in forms)
        french_zipf = max(zipf_frequency(f, "fr") for f in forms)
        if english >= common_zipf or french_zipf >= (FRENCH_ZIPF if french else common_zipf + 0.5):
            continue
        if max(english, french_zipf) < TYPO_ZIPF or prefix_covered(word, vocabulary | GENERIC):
            continue
        if names is not None and names.expand([raw.get(word, word), word]):
            continue
        out.append(word)
    return out


def is_french(question: str) -> bool:
    """True when ``question`` has two or more of :data:`FRENCH_MARKERS` (French function words)."""
    words = {w for w in re.findall(r"[^\W_]+", question.lower())}
    return len(FRENCH_MARKERS.intersection(words)) >= 2


_QUOTED_TEXT = re.compile(r'"([^"]+)"|\u201c([^\u201d]+)\u201d|(?<!\w)\'([^\']+)\'(?!\w)')


def quoted_words(question: str) -> set[str]:
    """The folded words of ``question`` written inside quotation marks (``"Universal Music Group"``, 'rem').

    Quoted text is a value the analyst typed, not the name of what a column holds: no column "means" it.
    """
    spans = [next(g for g in m.groups() if g) for m in _QUOTED_TEXT.finditer(question)]
    return set(normalise(" ".join(spans))) if spans else set()


def can_name_data(word: str, *, french: bool = False) -> bool:
    """True when ``word`` can be a noun (lemminflect's English lexicon) or is not in the lexicon (acronyms).

    "earnings", "ratio", "rating", "ESG" can name missing data; "founded", "departing", "corresponding" and
    "rarest" (only verb or adjective forms) cannot: a refusal that rests on them alone is overruled. In a French
    question (``french``) a word the English lexicon does not know ("immatriculée") is not trusted either: the
    lexicon cannot tell its part of speech, and French questions are answered rather than refused.
    """
    from lemminflect import getAllLemmas

    lemmas: dict[str, Any] = getAllLemmas(word.lower())
    return "NOUN" in lemmas or "PROPN" in lemmas or (not lemmas and not french)


_PROFILE_WORDS = frozenset({"distinct", "null", "nulls", "all", "values", "always"})
"""Words of the profile and value hints (:mod:`retrieval.documents`, :mod:`retrieval.opaque_hints`)."""
_QUOTED = re.compile(r"'(?:[^']|'')*'")
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _is_word(token: str) -> bool:
    from wordfreq import zipf_frequency

    return token.lower() == "id" or (len(token) >= 3 and zipf_frequency(token.lower(), "en") >= LEGIBLE_ZIPF)


def column_is_legible(name: str, comment: str) -> bool:
    """True when a column's name is made of English words ("country_name", "UnitPrice") or it is documented.

    Name parts of one or two letters ("no", "px") are ignored, but a name needs at least one word ("id" or
    three letters or more), and every such part must be a word (Zipf >= :data:`LEGIBLE_ZIPF`): "TRD_DT", "px_lst",
    "DAEND" are not legible. ``comment`` is the column's comment in the schema document; the profile hints in it
    (value ranges, "9 distinct: 'USD',...", "values 26 to 60", "e.g. 'Oslo'") do not count as documentation, words
    do ("Last (closing) price").
    """
    parts = [p for p in _NAME_PARTS.findall(name.replace("_", " ")) if not p.isdigit()]
    words = [p for p in parts if len(p) >= 3 or p.lower() == "id"]
    if words and all(_is_word(p) for p in words):
        return True
    text = _QUOTED.sub(" ", comment)
    return any(_is_word(w) for w in re.findall(r"[A-Za-z]{4,}", text) if w.lower() not in _PROFILE_WORDS)


@functools.lru_cache(maxsize=64)
def _legibility(schemas: tuple[tuple[str, tuple[str, ...], str], ...]) -> float:
    total = legible = 0
    for _table, columns, doc in schemas:
        lines = doc.splitlines()
        for column in columns:
            line = next((ln for ln in lines if re.match(rf'\s*"?{re.escape(column)}"?\s', ln, re.I)), "")
            total += 1
            legible += column_is_legible(column, line.split("--", 1)[1] if "--" in line else "")
    return legible / total if total else 1.0


def schema_legibility(catalog: TableCatalog) -> float:
    """Share (0-1) of the catalog's columns that are legible (:func:`column_is_legible`); 1.0 without columns.

    An uncovered word is evidence of missing data only when the schema says what it holds: on a database of
    terse codes without documentation ("PX_VOL", "DAEND"), "volume" or "delisted" are found nowhere although
    the data is there. Cached per catalog content.
    """
    return _legibility(tuple((t, tuple(catalog.columns.get(t, [])), catalog.schema_doc(t)) for t in catalog.names))


_NAME_STOP = frozenset({"in", "of", "the", "and", "for", "to", "by", "on", "at", "has", "have", "ref", "tbl", "id",
                        "is", "x", "a", "an", "per", "with"})
"""Table-name words that never decide whether a question names the table (``Ref_Template_Types``)."""


def table_name_words(table: str) -> list[str]:
    """Words of a table name, split at ``_``, digits and camelCase and folded.

    Single letters and :data:`_NAME_STOP` words are left out.
    """
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", table).replace("_", " ")
    return [w for w in normalise(re.sub(r"\d+", " ", spaced)) if w not in _NAME_STOP and len(w) > 1]


def question_names_table(question: str, table: str) -> bool:
    """True when every word of ``table``'s name occurs in ``question`` in some form.

    A name word matches a question word when they are equal after folding (plurals, possessives) or share a
    prefix of at least ``min(5, shorter length)`` letters with the shorter one four letters or more
    ("enrolment" ~ "enrolled", "ship" ~ "ships"); a run-together word ("countrylanguage") matches when the
    question has both parts ("country", "languages"). A name with no words (codes only) counts as named, so callers
    that prune unnamed tables leave it alone. Used by dangling-join pruning (:mod:`rewrites.dangling`):
    "singers" names ``singer`` but not ``singer_in_concert``.
    """
    words = table_name_words(table)
    asked = set(normalise(question))
    compact = re.sub(r"[^\w]+", "", question.lower())
    return all(_word_in(w, asked) or (len(w) >= 8 and w in compact) or _compound_in(w, asked) for w in words)


def _compound_in(word: str, asked: set[str]) -> bool:
    """True when ``word`` is two words of ``asked`` run together, in some form ("countrylanguage")."""
    return any(_word_in(word[:i], asked) and _word_in(word[i:], asked) for i in range(4, len(word) - 3))


def _word_in(word: str, asked: set[str]) -> bool:
    """True when ``word`` equals or shares a long enough prefix with a word of ``asked``."""
    if word in asked:
        return True
    for other in asked:
        shorter = min(len(word), len(other))
        if shorter >= 4 and len(os.path.commonprefix([word, other])) >= min(5, shorter):
            return True
    return False
