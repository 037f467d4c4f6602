"""Whether a question states the parameters a knowledge record requires: a period, a date, a column value.

A knowledge record can declare ``requires``: the parameters every question using it must give, after BAR-SQL's
mandatory constraints. A return needs a period, an index's constituents need the index. When a question uses
the record without one, the right reply is a follow-up question naming the parameter, not a guess. Three kinds:

- ``period``: a time span - a year, a month, a quarter or half, a date range, "since ...", "last 30 days",
  "year-to-date", "this year"...;
- ``date``: a point in time - an ISO or written date, a period (which ends on a date), or "latest", "current",
  "today", "now", "as of" (this database's latest day);
- ``value:TABLE.COLUMN`` (alternatives joined by ``|``): one of that column's stored values, found by value
  linking or written in the question.

English and French wordings are recognised (the demo's analysts write either).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from knowledge.lookup import normalise

MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
          "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|"
          "janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre|"
          "decembre")
_PERIOD = re.compile(
    rf"\b(?:(?:19|20)\d\d|q[1-4]|h[12]|{MONTHS}|ytd|year[- ]to[- ]date|month[- ]to[- ]date|since|depuis|"
    r"between|entre|from .+ to|du .+ au|(?:last|past|previous|next|derniers?|dernières?)\s+\d*\s*"
    r"(?:days?|weeks?|months?|quarters?|years?|jours?|semaines?|mois|trimestres?|ans?|années?)|"
    r"(?:this|that|last|current|previous|cette|l'|ce|cet)\s*(?:year|month|quarter|week|année|annee|mois|"
    r"trimestre|semaine)|so far|over time|first half|second half|weekly|monthly|yearly|annual|quarterly|"
    r"premier semestre|second semestre|d'une année|depuis le début)\b",
    re.IGNORECASE)
_DATE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|latest|last trading day|last day|current|currently|"
    r"today|now|as of|most recent|right now|aujourd'hui|actuel(?:le)?|dernier jour|derni[eè]re séance|"
    r"au \d{1,2})\b",
    re.IGNORECASE)
PARAMETER_NAMES = {"period": "the period (e.g. a year, a month or a date range)",
                   "date": "the date"}


def has_period(question: str) -> bool:
    """True when ``question`` states a time span (see the module docstring)."""
    return bool(_PERIOD.search(question))


def has_date(question: str) -> bool:
    """True when ``question`` states a point in time, or a period (which ends on a date)."""
    return bool(_DATE.search(question)) or has_period(question)


def value_columns(requirement: str) -> list[tuple[str, str]]:
    """``"value:indices.index_name|indices.index_code"`` -> ``[("indices", "index_name"), ...]`` (as written)."""
    out = []
    for part in requirement.removeprefix("value:").split("|"):
        table, _, column = part.strip().rpartition(".")
        if table and column:
            out.append((table, column))
    return out


def mentions_value(question: str, values: Iterable[str]) -> bool:
    """True when one of ``values`` (3+ characters) is written in ``question`` as whole words, ignoring case."""
    text = question.lower()
    for value in values:
        v = str(value).strip().lower()
        if len(v) >= 3 and re.search(rf"(?<!\w){re.escape(v)}(?!\w)", text):
            return True
    return False


def describe(requirement: str) -> str:
    """A reader-facing name of a requirement (``"the period (...)"``, ``"a value of indices.index_name"``)."""
    if requirement in PARAMETER_NAMES:
        return PARAMETER_NAMES[requirement]
    cols = value_columns(requirement)
    return "which " + " or ".join(f"{c.replace('_', ' ')} ({t})" for t, c in cols) if cols else requirement


_UNSTATED_TIME = re.compile(
    r"\b(?:in|over|for|during|within|throughout|across|on|at|en|sur|pendant|durant|dans|pour)\s+"
    r"(?:the|that|a given|a specific|a certain|le|la|ce|cette)\s+"
    r"(?:year|month|quarter|week|day|date|année|annee|mois|trimestre|semaine|jour)\b"
    r"(?=\s*(?:[?.!,;:]|$|(?:and|or|et|ou)\b))", re.IGNORECASE)
"""A time span or point the question refers to without stating it: a preposition, "the" and a time word that ends
its phrase ("sales in the month?", "return over the quarter"). Asking for such a column ("What are the date and
venue ...") or naming it by what follows ("the year in which ...", "the date the claim was made", "in ascending
order of the year held") is no such reference."""


_QUANTIFIERS = frozenset({"each", "every", "all", "which", "per", "by", "across", "any", "chaque", "quel", "quelle"})


def quantified(question: str, cols: list[tuple[str, str]]) -> bool:
    """True when the question ranges over the entity instead of naming one: "which index", "each index"."""
    words = set()
    for table, column in cols:
        words |= set(normalise(table.replace("_", " "))) | set(normalise(column.replace("_", " "))[:1])
    tokens = normalise(question)
    return any(token in _QUANTIFIERS and words & set(tokens[i + 1:i + 3]) for i, token in enumerate(tokens))


_AFTER_ENTITY = re.compile(r"\s+(?:with|who|whose|that|which|where|of|in|on|at|by|per|having|for|from|and|or|"
                           r"named|called|listed|than|to|most|least|highest|lowest)\b|\s*'s\b", re.IGNORECASE)


_ENDS_PHRASE = re.compile(r"\s*(?:[?.!,;:]|$)|\s+(?:is|was|are|were|has|had|have|did|does|do|buy|bought|sell|"
                          r"sold|spend|spent|get|got|make|made|pay|paid|contain|contains|hold|holds|cost|costs)\b")


_PICK = re.compile(r"\b(?:most|least|fewest|highest|lowest|largest|smallest|biggest|greatest|best|worst|earliest|"
                   r"latest|oldest|youngest|longest|shortest|plus|moins)\b", re.IGNORECASE)
"""A superlative after "the <entity>" in its sentence: the question picks that entity (it is the answer)."""


_LISTED = re.compile(r"(?:^|[.?!;]\s*)(?:please\s+)?(?:list|show|give(?:\s+me)?|return|display)\b"
                     r"(?:\s+|[^.?!;]*,\s*(?:and\s+)?)$", re.IGNORECASE)
"""The start of a request for columns, up to "the <entity>" as its first item or one after a comma: the entity's
column is asked for, not one entity pointed at."""


def unstated_entity(question: str, entity_words: dict[str, str], linked_tables: set[str]) -> str | None:
    """The table of a singular "the <entity>" the question never names (None when there is none).

    ``entity_words`` maps a folded word (a table name, a term record's name) to its table, lower-cased. "How
    many tracks are on the playlist?" points at one playlist without naming it. Only when the entity word ends
    its noun phrase (punctuation or a verb follows), no qualifier follows ("the customer with the most
    invoices", "the artist of ...") and no value of that table was linked, and not when it refers back to the
    same word quantified earlier ("For each shop, return ... the name of the shop"), asked for earlier ("Which
    county has the largest population? Give me the name of the county.") or written earlier at all ("the name
    of its host ... the age of the host"), nor when it is quantified or named just before it ("all the
    faculty", "Astrid Gruber the customer"), listed among the columns asked for ("List the grape, winery and
    year ...") or picked by a superlative after it ("the nurse has the most appointments").
    """
    for match in re.finditer(r"\bthe\s+([a-z_]+)\b", question, re.IGNORECASE):
        word = match.group(1).lower()
        if word.endswith("s") or word not in entity_words:
            continue
        if _AFTER_ENTITY.match(question, match.end()) or entity_words[word] in linked_tables:
            continue
        if re.search(rf"\b(?:each|every|per|all|any)\s+{re.escape(word)}s?\b", question, re.IGNORECASE):
            continue  # "for each shop, ... the name of the shop": it refers back to a quantified entity
        if re.search(rf"\b(?:which|what)\s+(?:\w+\s+)?{re.escape(word)}s?\b", question[: match.start()], re.IGNORECASE):
            continue  # "Which county has the largest population? Give the name of the county": the asked one
        if re.search(rf"\b{re.escape(word)}(?:s|es)?\b", question[: match.start()], re.IGNORECASE):
            continue  # named before: "phones and the region of markets ..., by the ranking of the market", "its
            # location and the name of its host. Sort ... by the age of the host": it refers back to that one
        if not _ENDS_PHRASE.match(question[match.end():]):
            continue  # a name or a noun follows: "the album 'Let There Be Rock'", "the currency codes"
        before = question[: match.start()]
        if (re.search(r"\b(?:all|tous|toutes)\s+$", before, re.IGNORECASE)
                or re.search(r"\w\s+[A-Z][\w'-]*\s+$", before)):
            continue  # quantified ("all the faculty") or named just before ("Astrid Gruber the customer")
        if _LISTED.search(before):
            continue  # asked for: "List the grape, winery and year ...", "Show the season, the player, and ..."
        if _PICK.search(re.split(r"[.?!;]", question[match.end():], maxsplit=1)[0]):
            continue  # the one the question picks: "the nurse has the most appointments", "the order made most
            # recently" ask which one, they do not point at one already chosen
        return entity_words[word]
    return None


def unstated_time(question: str) -> bool:
    """True when the question points at a year, month, day... it never states ("sales in the month").

    See :data:`_UNSTATED_TIME`; a question that states a date or a period (:func:`has_date`) never does.
    """
    return not has_date(question) and _UNSTATED_TIME.search(question) is not None
