"""Time expressions of a question resolved to ISO date ranges: "October 2025" -> 2025-10-01 .. 2025-10-31.

A 1.5B model gets the period logic right from a rule or an example and the calendar wrong: October ends on
the 30th, "the first half of 2025" starts in June, "in 2024" becomes the example's third quarter. BAR-SQL binds
time expressions to rules before generation; here the calendar part is done deterministically and handed to
the generator as one line per expression, so the SQL only has to place the dates. Supported (English; French
questions are translated first): a month and year ("Sept 2025"), a quarter ("Q3 2024",
"third quarter of 2024"), a half ("H1 2025", "first half of 2025"), the first or last week of a month, a
day ("June 30, 2024", "30 June 2024"), the end of a month or year (its last calendar day), a year after a preposition ("in 2024", not "top 2000 stocks" or "the
1990s"), and year-to-date ("so far in 2025", "2025 year-to-date"). A period that bounds an open range ("since 2020",
"until March 2024", "after Q3 2024", "from 2020 on") is marked ``open_ended``: it names one end, not the span.
Never raises.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass, replace

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_ORD = r"(?P<ord>first|1st|second|2nd|third|3rd|fourth|4th|last)"

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("ytd", re.compile(rf"\bso far (?:in|this year,?) {_YEAR}\b", re.I)),
    ("ytd", re.compile(rf"\b{_YEAR} (?:year[- ]to[- ]date|ytd)\b", re.I)),
    ("ytd", re.compile(rf"\b(?:year[- ]to[- ]date|ytd)(?: of| in| for)? {_YEAR}\b", re.I)),
    ("end", re.compile(rf"\b(?:the )?end of {_MONTH},? {_YEAR}\b", re.I)),
    ("end", re.compile(rf"\b(?:the )?end of (?:(?:the )?year )?{_YEAR}\b", re.I)),
    ("week", re.compile(rf"\b{_ORD} week of {_MONTH},? {_YEAR}\b", re.I)),
    ("quarter", re.compile(rf"\b(?:q(?P<q>[1-4])|{_ORD} quarter)(?: of)?,? {_YEAR}\b", re.I)),
    ("half", re.compile(rf"\b(?:h(?P<h>[12])|{_ORD} half)(?: of)?,? {_YEAR}\b", re.I)),
    ("day", re.compile(rf"\b{_MONTH} (?P<day>\d{{1,2}})(?:st|nd|rd|th)?,? {_YEAR}\b", re.I)),
    ("day", re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH},? {_YEAR}\b", re.I)),
    ("month", re.compile(rf"\b{_MONTH},? {_YEAR}\b", re.I)),
    ("year", re.compile(rf"\b(?:in|during|for|of|since|until|through|throughout|over|across|fiscal|year)"
                        rf" (?:the year )?{_YEAR}(?![-/\d]|'?s\b)", re.I)),
]


OPEN_BEFORE = re.compile(r"\b(since|after|before|until|till|through|thru|from|starting(?: in| from)?|up to|prior to)"
                         r"\s+(?:(?:the\s+)?(?:start|beginning|end)\s+of\s+)?(?:the\s+)?$", re.I)
"""Words just before a period that make it one end of an open range ("since 2020", "until the end of 2024")."""
OPEN_AFTER = re.compile(r"^\s*(?:on(?=\s*(?:[,.;:!?]|$))|onwards?\b|and (?:after|later|beyond|before|earlier|since)\b|"
                        r"or (?:after|later|before|earlier)\b)", re.I)
"""Words just after a period that open it ("2020 onwards", "from 2020 on", "2019 and later")."""
_RANGE_END = re.compile(r"^\s*(?:to|until|till|through|thru|-)\s", re.I)


@dataclass(frozen=True)
class Period:
    """One time expression of a question.

    Attributes: ``text`` as written, ``start`` and ``end`` (ISO, inclusive), ``to_latest`` (year-to-date: it
    runs to the latest date in the data), ``open_ended`` (the word that makes it one end of an open range,
    e.g. ``"since"``; '' for a closed span).
    """

    text: str
    start: str
    end: str
    to_latest: bool = False
    open_ended: str = ""

    def describe(self) -> str:
        """``"October 2025" = '2025-10-01' to '2025-10-31' (inclusive)`` (one prompt line)."""
        if self.open_ended:
            return (f'"{self.text}" ({self.open_ended}) = one end of an open range; {self.text} itself is '
                    f"'{self.start}' to '{self.end}'")
        if self.to_latest:
            return f'"{self.text}" = from \'{self.start}\' to the latest date in the data'
        if self.start == self.end:
            return f'"{self.text}" = \'{self.start}\''
        return f'"{self.text}" = \'{self.start}\' to \'{self.end}\' (inclusive)'


def resolve_periods(question: str) -> list[Period]:
    """The time expressions of ``question`` in order of appearance.

    A span already covered by a longer one is skipped (the year of "October 2025" is not listed again).
    """
    found: list[tuple[int, int, Period | None]] = []  # None: an impossible date ("February 30, 2024")
    for kind, pattern in PATTERNS:
        for match in pattern.finditer(question):
            if any(s <= match.start() < e or s < match.end() <= e for s, e, _ in found):
                continue
            period = _period(kind, match)
            opener = _open_word(question, match, kind)
            found.append((match.start(), match.end(),
                          replace(period, open_ended=opener) if period is not None and opener else period))
    return [p for _, _, p in sorted(found, key=lambda f: f[0]) if p is not None]


def _open_word(question: str, match: re.Match[str], kind: str) -> str:
    """The word that makes ``match`` one end of an open range ('' when it names a closed span)."""
    if kind == "year" and match.group(0).split()[0].lower() in ("since", "until", "through"):
        return match.group(0).split()[0].lower()
    before = OPEN_BEFORE.search(question[:match.start()])
    if before and not (before.group(1).lower().startswith(("from", "starting"))
                       and _RANGE_END.match(question[match.end():])):  # "from May 2024 to June 2024": closed
        return " ".join(before.group(1).lower().split())
    after = OPEN_AFTER.match(question[match.end():])
    return " ".join(after.group(0).lower().split()) if after else ""


def _period(kind: str, match: re.Match[str]) -> Period | None:
    groups = match.groupdict()
    year = int(match.group("year"))
    text = " ".join(match.group(0).split())
    try:
        if kind == "year":
            return Period(match.group("year"), f"{year}-01-01", f"{year}-12-31")
        if kind == "end" and not groups.get("month"):
            return Period(text, f"{year}-12-31", f"{year}-12-31")
        if kind == "ytd":
            return Period(text, f"{year}-01-01", f"{year}-12-31", to_latest=True)
        month = MONTHS.get((groups.get("month") or "").lower().rstrip("."), 0)
        if kind == "month":
            return _span(text, dt.date(year, month, 1), _month_end(year, month))
        if kind == "end":
            return _span(text, _month_end(year, month), _month_end(year, month))
        if kind == "day":
            day = dt.date(year, month, int(groups["day"]))
            return Period(text, day.isoformat(), day.isoformat())
        if kind == "week":
            last = _month_end(year, month)
            if (groups.get("ord") or "").lower() == "last":
                return _span(text, last - dt.timedelta(days=6), last)
            n = ORDINALS[(groups.get("ord") or "first").lower()]
            return _span(text, dt.date(year, month, 7 * (n - 1) + 1), dt.date(year, month, 7 * n))
        if kind == "quarter":
            q = int(groups["q"]) if groups.get("q") else _ordinal(groups.get("ord"), 4)
            return _span(text, dt.date(year, 3 * q - 2, 1), _month_end(year, 3 * q))
        if kind == "half":
            h = int(groups["h"]) if groups.get("h") else _ordinal(groups.get("ord"), 2)
            return _span(text, dt.date(year, 6 * h - 5, 1), _month_end(year, 6 * h))
    except (ValueError, KeyError):
        return None
    return None


def _ordinal(word: str | None, last: int) -> int:
    word = (word or "").lower()
    if word == "last":
        return last
    n = ORDINALS[word]
    if n > last:
        raise ValueError(f"no {word} part of {last}")
    return n


def _month_end(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])


def _span(text: str, start: dt.date, end: dt.date) -> Period:
    return Period(text, start.isoformat(), end.isoformat())


def periods_block(question: str) -> str:
    """The prompt block for the question's time expressions ('' when it has none)."""
    periods = resolve_periods(question)
    if not periods:
        return ""
    return ("Dates in the question (calendar days; the data may have no row on some of them):\n"
            + "\n".join(f"- {p.describe()}" for p in periods) + "\n\n")
