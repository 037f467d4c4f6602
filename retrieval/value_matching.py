"""Text side of referential search: value normalisation, mention extraction and fuzzy candidate scoring.

Used by :mod:`retrieval.values`. Nothing here touches the database, the vector store or an LLM.

* :func:`normalize` / :func:`core_of`: case-folded, accent-free, punctuation-free token forms of a value
  (``"Nestlé S.A."`` -> ``"nestle s a"``, core ``"nestle"``: trailing legal suffixes such as Inc., plc, N.V.
  and Holdings removed), with a light plural fold (``"francs"`` -> ``"franc"``).
* :func:`extract_mentions`: quoted strings, capitalised spans, upper-case tickers and 1-4 word n-grams of a
  question (without stopwords at their edges), each with its character span.
* :class:`CandidateList`: the in-memory list of one database's values, scored against a mention with rapidfuzz
  (``process.extract`` with ``fuzz.WRatio``, scores 0-100); upper-case ticker-like mentions are matched
  exactly (value, legal-suffix-free core, first word, or initials of a multi-word value) instead.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

FUZZY_MIN = 80.0
"""rapidfuzz WRatio cut-off (0-100) for a fuzzy candidate."""
RARE_DF = 3
"""A partial match must share a word that occurs in at most this many distinct values (else it is generic)."""
NEAR_EQUAL = 90.0
"""``fuzz.ratio`` (0-100) at which a whole mention counts as a spelling variant of a value."""

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _words("""
a about above after against all also am an and any are as at be been before being below between both but by
can could did do does doing down during each few for from further get give had has have having he her here
hers how i if in into is it its itself just last latest least less list many me more most much my near new
no nor not now of off on once only or other our out over own per please same she should show since so some
such than that the their them then there these they this those through to too top under until up upon us
very vs versus was we were what whats when where which while who whom whose why will with within would you
your every first next current currently today yesterday right day days tell find display name names value
values number total average""")
"""English function words and question words never at the edge of an n-gram mention."""

LEGAL_SUFFIXES = _words("""
inc incorporated corp corporation co company cos plc se sa ag nv bv ltd limited llc lp holding holdings group
groep the spa ab asa oyj kk com""")
"""Words dropped from the end (and "the" from the start) of a value to form its core name."""

_TOKEN = re.compile(r"[^\W_]+(?:[.'’\-][^\W_]+)*|&")
_SLASHED = re.compile(r"(?<![\w/])[^\W_]+(?:/[^\W_]+)+(?![\w/])")
_BOUNDARY = re.compile(r"[,;:!?()\[\]{}\"“”/|\n]|\.(?:\s|$)")
_QUOTED = re.compile(r"""(?:^|(?<=[\s(\[]))(["“'‘])(.+?)(["”'’])(?=$|[\s,.;:!?)\]])""")
_TICKER = re.compile(r"^[A-Z][A-Z0-9]{1,5}$")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)


def fold(text: str) -> str:
    """Case-folded text without accents (NFKD, combining marks dropped)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def _stem(token: str) -> str:
    return token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith("ss") else token


def norm_tokens(text: str) -> list[str]:
    """Normalised word tokens of ``text``.

    Folded, possessive 's removed, split on non-alphanumerics, plural ``s`` folded (``"Apple's francs"`` ->
    ``["apple", "franc"]``).
    """
    words = re.split(r"[^0-9a-z]+", _POSSESSIVE.sub("", fold(text)).replace("'s ", " "))
    return [_stem(w) for w in words if w]


def normalize(text: str) -> str:
    """``" ".join(norm_tokens(text))``: the form values and mentions are compared in."""
    return " ".join(norm_tokens(text))


def core_of(tokens: Sequence[str]) -> list[str]:
    """``tokens`` without a leading "the" and trailing legal suffixes / single letters (never emptied)."""
    core = list(tokens)
    if len(core) > 1 and core[0] == "the":
        core = core[1:]
    while len(core) > 1 and (core[-1] in LEGAL_SUFFIXES or len(core[-1]) == 1):
        core.pop()
    return core


def acronym(value: str) -> str | None:
    """Initials of a value of three or more capitalised words.

    ``"New York Stock Exchange"`` -> ``"NYSE"``; two-word values such as person names get none.
    """
    words = [w for w in re.split(r"[\s&\-]+", value) if w and w[0].isalpha()]
    if len(words) < 3 or not all(w[0].isupper() for w in words):
        return None
    return "".join(w[0] for w in words)


@dataclass(frozen=True)
class Mention:
    """A span of the question that may name a database value.

    ``text`` is the raw span (possessive 's removed), ``start``/``end`` its character offsets in the question,
    ``kind`` one of "quoted", "caps" (capitalised span), "ticker" (upper-case code, matched exactly) or
    "ngram", ``norm`` its :func:`normalize` form and ``n_words`` its word count.
    """

    text: str
    start: int
    end: int
    kind: str
    norm: str
    n_words: int

    def overlaps(self, other: Mention) -> bool:
        """True when the two character spans intersect."""
        return self.start < other.end and other.start < self.end


def _make(question: str, start: int, end: int, kind: str, n_words: int) -> Mention | None:
    raw = question[start:end]
    stripped = _POSSESSIVE.sub("", raw)
    end -= len(raw) - len(stripped)
    norm = normalize(stripped)
    return Mention(stripped, start, end, kind, norm, n_words) if norm else None


def extract_mentions(question: str, max_words: int = 4) -> list[Mention]:
    """Candidate mentions of ``question``, without duplicates (same span), in order of appearance.

    Sources: quoted strings; slash-joined words as a whole ("AC/DC"); every 1..``max_words`` word n-gram
    inside one clause (clauses end at , ; : ? ! ( ) quotes, slashes, line breaks and sentence periods) whose
    first and last words are not stopwords and that is not only numbers; capitalised spans (also longer than
    ``max_words``). Upper-case codes of 2-6 characters become ``kind="ticker"`` unless the whole question is
    written in capitals.
    """
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(question)]
    clause, clauses = 0, []
    for i, (start, _end, _text) in enumerate(tokens):
        if i and _BOUNDARY.search(question[tokens[i - 1][1] : start]):
            clause += 1
        clauses.append(clause)
    alpha = [t for _s, _e, t in tokens if t[0].isalpha()]
    shouting = len(alpha) > 2 and sum(t.isupper() for t in alpha) > len(alpha) / 2
    found: dict[tuple[int, int], Mention] = {}

    def add(mention: Mention | None) -> None:
        if mention is not None and (mention.start, mention.end) not in found:
            found[(mention.start, mention.end)] = mention

    for q in _QUOTED.finditer(question):
        add(_make(question, q.start(2), q.end(2), "quoted", len(q.group(2).split())))
    for q in _SLASHED.finditer(question):  # "AC/DC" as a whole, besides "AC" and "DC"
        add(_make(question, q.start(), q.end(), "caps" if q.group()[0].isupper() else "ngram",
                  q.group().count("/") + 1))

    def edge_ok(i: int) -> bool:
        text = _POSSESSIVE.sub("", tokens[i][2])
        if text == "&":
            return False
        if fold(text) not in STOPWORDS or (_TICKER.match(text) and not shouting):
            return True
        return text[0].isupper() and i > 0 and clauses[i - 1] == clauses[i]  # "New" in "... New York"

    def capitalised(text: str) -> bool:
        return text[0].isupper() or text[0].isdigit() or text == "&" or text in ("of", "and", "de")

    for i in range(len(tokens)):
        j = i
        while j < len(tokens) and clauses[j] == clauses[i] and capitalised(tokens[j][2]):
            j += 1
        while j > i and not (edge_ok(j - 1) and tokens[j - 1][2][0].isupper()):
            j -= 1  # a capitalised span ends on a capitalised non-stopword
        if j - i > max_words and edge_ok(i) and tokens[i][2][0].isupper():
            add(_make(question, tokens[i][0], tokens[j - 1][1], "caps", j - i))
        for n in range(1, max_words + 1):
            k = i + n - 1
            if k >= len(tokens) or clauses[k] != clauses[i]:
                break
            words = [t for _s, _e, t in tokens[i : k + 1]]
            if not (edge_ok(i) and edge_ok(k)) or all(w.isdigit() for w in words):
                continue
            lone_stopword = fold(words[0]) in STOPWORDS and not _TICKER.match(words[0])
            if n == 1 and (len(words[0]) < 2 or lone_stopword):
                continue
            kind = "caps" if all(capitalised(w) for w in words) and words[0][0].isupper() else "ngram"
            if n == 1 and _TICKER.match(_POSSESSIVE.sub("", words[0])) and not shouting:
                kind = "ticker"
            add(_make(question, tokens[i][0], tokens[k][1], kind, n))
    return sorted(found.values(), key=lambda m: (m.start, m.end))


class CandidateList:
    """The values of one database prepared for fuzzy matching (built once, then cached by the caller).

    Args:
        values: the raw value of each entry; entry ``i`` of the caller's list is ``values[i]`` (the same text
            may appear several times: one entry per table column holding it).
    """

    def __init__(self, values: Sequence[str]) -> None:
        """Build the lookups of ``values`` (see the class docstring)."""
        self.values = list(values)
        by_choice: dict[str, list[int]] = defaultdict(list)
        weight: dict[str, float] = {}
        self.exact: dict[str, list[tuple[int, float]]] = defaultdict(list)
        self.first_word: dict[str, list[int]] = defaultdict(list)
        self.acronyms: dict[str, list[int]] = defaultdict(list)
        df: Counter[str] = Counter()
        seen_norms: set[str] = set()
        for i, value in enumerate(self.values):
            tokens = norm_tokens(value)
            if not tokens:
                continue
            full, core = " ".join(tokens), " ".join(core_of(tokens))
            by_choice[full].append(i)
            weight[full] = 1.0
            self.exact[full].append((i, 100.0))
            if core != full:
                by_choice[core].append(i)
                weight.setdefault(core, 0.97)
                self.exact[core].append((i, 97.0))
            short = acronym(value)
            if short and normalize(short) != full:
                self.acronyms[normalize(short)].append(i)
            self.first_word[tokens[0]].append(i)
            if full not in seen_norms:
                seen_norms.add(full)
                df.update(set(tokens))
        self.choices = list(by_choice)
        self.choice_entries = [by_choice[c] for c in self.choices]
        self.choice_weight = [weight[c] for c in self.choices]
        self.df = df

    def __len__(self) -> int:
        """Number of entries."""
        return len(self.values)

    def anchored(self, mention: Mention) -> bool:
        """True when at least half of the mention's words are capitalised or occur in some value."""
        words = mention.text.split()
        known = sum(1 for w in words if w[:1].isupper() or any(t in self.df for t in norm_tokens(w)))
        return 2 * known >= len(words)

    def _adjust(self, mention: Mention, choice: str, raw: float) -> float | None:
        """Score of a non-exact rapidfuzz hit, or None when the match is generic.

        A spelling variant of the whole value keeps ``raw`` (capped at 95). Otherwise the mention must share
        a rare word with the value (alphabetic, not a legal suffix, in at most :data:`RARE_DF` values); each
        mention word missing from the value costs 6 points, and missing the first word of the value's core
        name (without covering all of it) costs 12: "Toyota" keeps "Toyota Motor Corporation", but "cap" is
        not "US Large Cap 50" and "stadium" is not "Bayview Stadium".
        """
        if fuzz.ratio(mention.norm, choice) >= NEAR_EQUAL:
            return min(raw, 95.0)
        words = choice.split()
        tokens = [t for t in mention.norm.split() if t not in STOPWORDS]
        hit_tokens, hit_words = set(), set()
        for token in tokens:
            for word in words:
                similar = min(len(token), len(word)) >= 5 and fuzz.ratio(token, word) >= FUZZY_MIN
                if token == word or similar:
                    hit_tokens.add(token)
                    hit_words.add(word)
        if not any(self.df[w] <= RARE_DF and w not in LEGAL_SUFFIXES and not w.isdigit() for w in hit_words):
            return None
        score = min(raw, 95.0) - 6.0 * (len(tokens) - len(hit_tokens))
        core = core_of(words)
        if core[0] not in hit_words and len(hit_words) < len(core):
            score -= 12.0
        return score

    def score(self, mention: Mention, limit: int = 10) -> dict[int, float]:
        """Scores (0-100) of the entries matching ``mention``: ``{entry index: score}``.

        Tickers: exact value 100, exact core name 97, initials of a 3+ word value 92, first word 90. Other
        mentions: exact 100 (core 97); otherwise the ``limit`` best rapidfuzz ``WRatio`` matches at or above
        :data:`FUZZY_MIN`, adjusted by :meth:`_adjust` (capped at 95, penalties, generic matches dropped),
        times 0.97 for a core-name match.
        """
        scores: dict[int, float] = {}

        def put(i: int, s: float) -> None:
            scores[i] = max(scores.get(i, 0.0), s)

        key = mention.norm
        for i, s in self.exact.get(key, []):
            put(i, s)
        if mention.kind == "ticker":
            for i in self.acronyms.get(key, []):
                put(i, 92.0)
            if len(key) >= 3:
                for i in self.first_word.get(key, []):
                    put(i, 90.0)
            return scores
        if len(key) < 3:
            return scores
        hits = process.extract(key, self.choices, scorer=fuzz.WRatio, score_cutoff=FUZZY_MIN, limit=limit)
        for choice, raw, ci in hits:
            adjusted = None if choice == key else self._adjust(mention, choice, float(raw))
            if adjusted is not None:
                for i in self.choice_entries[ci]:
                    put(i, adjusted * self.choice_weight[ci])
        return scores
