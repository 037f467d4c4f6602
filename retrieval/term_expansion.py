"""Question words matched to the cryptic name parts that may abbreviate them (``customer`` -> ``cust``, ``cstmr``).

Warehouse schemas shorten names by a few generic habits: a prefix (``CUST``, ``ADDR``), the consonant skeleton
(``STDNT``, ``DTNTN``, ``RGN``) or a mix (``PMT``, ``DEPT``). All keep the start of the word and then some of
its consonants in order, so :func:`abbreviates` tests exactly that, for parts of three letters or more (two
letters - ``nm``, ``cd``, ``st`` - fit too many words to be evidence). No dictionary of abbreviations is used: the
check is the same for every schema and every language written in Latin letters.

:class:`TermExpander` holds a database's identifier parts (table and column names split into words) indexed by
first letter, and maps a question's words to the parts that abbreviate them, so lexical table search
(:mod:`retrieval.hybrid`) can count ``DTNTN`` as a hit for "detention".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

MIN_PART = 3
"""Shortest name part that may count as an abbreviation (letters)."""

VOWELS = frozenset("aeiou")


def abbreviates(part: str, word: str) -> bool:
    """True when the name part ``part`` can abbreviate ``word`` (case-insensitive).

    That is a prefix of the word ("cust" / "customer", "rev" / "revenue"), or a start of the word followed by
    consonants taken in order from its rest: a consonant skeleton ("stdnt" / "student", "qty" / "quantity",
    "pmt" / "payment") or a prefix of three letters or more and consonants ("dept" / "department", "acct" /
    "account"). Abbreviations drop vowels, so a part keeping one after a shorter shared start is not taken
    ("dir" is not "different", "cat" not "contract"). Parts shorter than :data:`MIN_PART` letters and parts not
    shorter than the word never count.
    """
    part, word = part.lower(), word.lower()
    if len(part) < MIN_PART or len(part) >= len(word) or part[0] != word[0]:
        return False
    shared = next((i for i, (a, b) in enumerate(zip(part, word, strict=False)) if a != b), len(part))
    if shared == len(part):
        return True
    rest = part[shared:]
    if any(ch in VOWELS for ch in rest) or (shared < MIN_PART and any(ch in VOWELS for ch in part[1:shared])):
        return False
    letters = iter(word[shared:])
    return all(ch in letters for ch in rest)


class TermExpander:
    """A database's identifier parts, searchable by the words they may abbreviate.

    Args:
        parts: lower-cased name parts (e.g. the BM25 tokens of every table and column name); parts that are not
            purely alphabetic (``c17``, ``t_03``) or shorter than :data:`MIN_PART` letters are ignored.
    """

    def __init__(self, parts: Iterable[str]) -> None:
        """Index ``parts`` by first letter (sorted, so expansion order is stable)."""
        by_letter: dict[str, set[str]] = defaultdict(set)
        for part in parts:
            if len(part) >= MIN_PART and part.isalpha():
                by_letter[part[0].lower()].add(part.lower())
        self._by_letter = {letter: sorted(found) for letter, found in by_letter.items()}
        self._held = {part for found in by_letter.values() for part in found}

    def __len__(self) -> int:
        """Number of distinct parts held."""
        return sum(len(parts) for parts in self._by_letter.values())

    def expand(self, words: Iterable[str]) -> dict[str, str]:
        """``{part: word}``: each held part that abbreviates one of ``words`` (:func:`abbreviates`).

        A part that is itself one of ``words`` is not returned, and a word that is itself a held part is not
        expanded (the schema spells it out). The first word a part abbreviates is kept. ``words``: BM25 tokens;
        only alphabetic ones are considered, lower-cased.
        """
        words = list(dict.fromkeys(w.lower() for w in words if w.isalpha()))
        found: dict[str, str] = {}
        given = set(words)
        for word in words:
            if word in self._held:  # the schema spells it out: no need to guess its abbreviations
                continue
            for part in self._by_letter.get(word[:1], ()):
                if part not in given and part not in found and abbreviates(part, word):
                    found[part] = word
        return found
