"""Warehouse abbreviations of schema words, and the plain-words reading of a cryptic identifier.

:data:`ABBREVIATIONS` (word -> its usual abbreviations) is the dictionary the evaluation uses to build
abbreviated copies of Spider databases (:mod:`eval.abbreviate`); it lives here so that the product can read such
names back. :data:`EXPANSIONS` inverts it and adds the abbreviations warehouses commonly use that the
evaluation's copies never produce (``PX`` price, ``CCY`` currency, ``MSTR`` master). :func:`expand_name` reads an
identifier as words (``CUST_NM`` -> "customer name"); onboarding drafts synonym records from it
(:mod:`retrieval.onboarding.drafts`), as RubikSQL's knowledge base adds readable names to cryptic schemas.
"""

from __future__ import annotations

import re

ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "account": ("ACCT",), "address": ("ADDR", "ADR"), "aircraft": ("ACFT",), "airport": ("ARPT",),
    "amount": ("AMT",), "average": ("AVRG",), "balance": ("BAL",), "budget": ("BDGT",), "building": ("BLDG",),
    "capacity": ("CAP",), "category": ("CAT", "CTGY"), "city": ("CTY",), "code": ("CD",), "college": ("CLG",),
    "company": ("CO", "CMPY"), "count": ("CNT",), "country": ("CNTRY",), "course": ("CRS",), "customer":
    ("CUST", "CSTMR"), "date": ("DT",), "day": ("DY",), "department": ("DEPT", "DPT"), "description":
    ("DSC", "DESCR"), "detail": ("DTL",), "director": ("DIR",), "distance": ("DIST",), "document": ("DOC",),
    "duration": ("DUR",), "email": ("EML",), "employee": ("EMP", "EMPL"), "first": ("FRST", "FST"),
    "flight": ("FLT",), "grade": ("GRD",), "height": ("HT",), "hour": ("HR",), "id": ("ID",),
    "identifier": ("ID",), "information": ("INFO",), "instructor": ("INSTR",), "invoice": ("INV",),
    "last": ("LST",), "length": ("LNGTH",), "level": ("LVL",), "location": ("LOC",), "manager": ("MGR",),
    "maximum": ("MAX",), "member": ("MBR",), "middle": ("MID",), "minimum": ("MIN",), "month": ("MO", "MTH"),
    "name": ("NM",), "number": ("NUM", "NBR"), "order": ("ORD",), "organization": ("ORG",), "payment": ("PMT",),
    "people": ("PPL",), "percent": ("PCT",), "percentage": ("PCT",), "person": ("PRSN",), "phone": ("PHN",),
    "player": ("PLYR",), "population": ("POP",), "position": ("POS",), "price": ("PRC",), "product": ("PROD",),
    "professor": ("PROF",), "quantity": ("QTY",), "rank": ("RNK",), "rating": ("RTG",), "reference": ("REF",),
    "region": ("RGN",), "room": ("RM",), "salary": ("SAL", "SLRY"), "school": ("SCHL",), "score": ("SCR",),
    "season": ("SSN",), "service": ("SVC",), "start": ("STRT",), "state": ("ST", "STE"), "status": ("STS",),
    "street": ("STR",), "student": ("STU", "STDNT"), "supplier": ("SUPP",), "teacher": ("TCHR",),
    "time": ("TM",), "title": ("TTL",), "total": ("TOT",), "transaction": ("TXN",), "type": ("TYP",),
    "university": ("UNIV",), "value": ("VAL",), "version": ("VER",), "weight": ("WT",), "year": ("YR",),
}
"""Common schema words and their warehouse abbreviations (several: one is chosen per database)."""

COMMON_ABBREVIATIONS: dict[str, str] = {
    "acct": "account", "addr": "address", "amt": "amount", "avg": "average", "bal": "balance", "ccy": "currency",
    "cmp": "composition", "cnt": "count", "crt": "created", "ctry": "country", "cur": "currency",
    "curr": "currency", "desc": "description", "div": "dividend", "dly": "daily", "dob": "date of birth",
    "dvd": "dividend", "eq": "equity", "exch": "exchange", "flg": "flag", "fr": "from", "hi": "high",
    "idx": "index", "ind": "indicator", "iss": "issuer", "lo": "low", "mkt": "market", "mstr": "master",
    "mthly": "monthly", "px": "price", "qtr": "quarter", "rt": "rate", "sect": "sector", "seq": "sequence",
    "shr": "shares", "shrs": "shares", "src": "source", "sym": "symbol", "tgt": "target", "tkr": "ticker",
    "trd": "trade", "tx": "transaction", "upd": "updated", "vld": "valid", "vol": "volume", "wgt": "weight",
    "wk": "week", "xchg": "exchange", "ytd": "year to date",
}
"""Warehouse abbreviations (lower case) -> words, beyond the inverse of :data:`ABBREVIATIONS`."""

FREQUENCY_SUFFIXES = {"d": "daily", "w": "weekly", "m": "monthly", "q": "quarterly"}
"""A one-letter last part after at least two others names a frequency (``EQ_PX_D``: daily equity prices)."""

EXPANSIONS: dict[str, str] = {
    **{form.lower(): word for word, forms in sorted(ABBREVIATIONS.items()) for form in forms if form.lower() != word},
    **COMMON_ABBREVIATIONS, "id": "id",
}
"""Abbreviation (lower case) -> the word(s) it stands for (``nm`` -> ``name``, ``px`` -> ``price``)."""

KNOWN_WORD_ZIPF = 3.0
"""A name part at least this frequent in English (wordfreq Zipf scale) reads as a word as it is."""

_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_words(name: str) -> list[str]:
    """The lower-case words of an identifier: ``"CustomerName_2"`` -> ``["customer", "name", "2"]``."""
    return [w.lower() for w in _WORDS.findall(name)]


def _readable(word: str) -> bool:
    from wordfreq import zipf_frequency

    return word.isdigit() or (len(word) >= 2 and zipf_frequency(word, "en") >= KNOWN_WORD_ZIPF)


def expand_name(name: str) -> str | None:
    """The plain-words reading of a cryptic identifier, or None when there is none to offer.

    Every part is expanded by :data:`EXPANSIONS` (a last one-letter part by :data:`FREQUENCY_SUFFIXES`); the
    reading is returned only when at least one part was expanded and every other part is a common English word
    or a number, so ``CUST_NM`` -> ``"customer name"``, ``EQ_PX_D`` -> ``"equity price daily"``, while
    ``customer_name`` (nothing to expand) and ``DALIS`` (not a word) give None.
    """
    parts = split_words(name)
    words, expanded = [], False
    for i, part in enumerate(parts):
        if part in EXPANSIONS:
            words.append(EXPANSIONS[part])
            expanded = expanded or EXPANSIONS[part] != part
        elif i == len(parts) - 1 and i >= 2 and part in FREQUENCY_SUFFIXES:
            words.append(FREQUENCY_SUFFIXES[part])
            expanded = True
        elif _readable(part):
            words.append(part)
        else:
            return None
    return " ".join(words) if expanded else None


def is_opaque_name(name: str) -> bool:
    """True when an identifier says nothing a reader could use: ``c14``, ``t_03``, ``X2``, ``F_A``.

    Opaque means no part of three letters or more (digits ignored), none that is a common short word (``id``,
    ``no``) and no reading by :func:`expand_name`.
    Words and abbreviations (``customer_name``, ``CUST_NM``, ``NTNLTY``) are not opaque: a model reads them,
    and on the abbreviated wide copies (2026-11-27) they cost no accuracy, while columns renamed ``c<N>`` did.
    Only the stored values (and a description drafted from them) can tell what an opaque column holds.
    """
    parts = [p for p in split_words(name) if not p.isdigit()]
    return expand_name(name) is None and not any(len(p) >= 3 or _readable(p) for p in parts)
