"""Equity universe for the ``markets`` database: ISIN helpers and the seeded synthetic issuers.

``build_universe`` merges the real issuers of :mod:`data.markets.universe` with invented ones drawn from a
numpy ``Generator``; the result is fully determined by the seed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from data.markets.reference import END_DATE, EXCHANGE_BY_MIC, FX_PATHS, MARKET_STYLE, SECTORS, START_DATE
from data.markets.universe import (
    LEGAL_SUFFIX,
    NAME_HEADS,
    NAME_TAILS,
    REAL_COMPANIES,
    SECTOR_WORDS,
    SYNTHETIC_COUNT,
)

FIRST_EQ_ID = 1001
_FOREIGN_ISSUERS = {"XNYS": ("IE", "BM"), "XNAS": ("IE", "BM"), "XHKG": ("KY",), "XPAR": ("NL", "LU")}
_ALNUM = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"


@dataclass(frozen=True)
class Equity:
    """One equity of the universe (a row of ``EQ_MSTR`` plus simulation inputs).

    ``px0``/``px1`` are the listing-currency prices pinned at the first/last simulated day (``px1`` is None for
    synthetic names, whose path is a free random walk). ``dalis``/``daend`` are ISO dates; ``daend`` is the last
    trading day or None while listed. ``shares`` is the share count, ``div_yield`` an annual fraction.
    """

    eq_id: int
    ticker: str
    isin: str
    name: str
    sector: int
    mic: str
    currency: str
    country: str
    dalis: str
    daend: str | None
    shares: int
    px0: float
    px1: float | None
    div_yield: float


def _char_value(ch: str) -> int:
    if ch.isdigit():
        return int(ch)
    if "A" <= ch <= "Z":
        return ord(ch) - 55
    raise ValueError(f"Invalid ISIN character: {ch!r}")


def isin_check_digit(stem: str) -> int:
    """Return the ISIN check digit (0-9) for an 11-character stem (2-letter country + 9-char NSIN).

    Letters expand to two digits (A=10 ... Z=35) and the Luhn algorithm runs over the digit string.

    Raises:
        ValueError: the stem is not 11 upper-case alphanumeric characters.
    """
    if len(stem) != 11 or not stem.isalnum() or stem != stem.upper():
        raise ValueError(f"ISIN stem must be 11 upper-case alphanumerics, got {stem!r}")
    digits = "".join(str(_char_value(c)) for c in stem)
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
        total += d // 10 + d % 10
    return (10 - total % 10) % 10


def is_valid_isin(isin: str) -> bool:
    """True when ``isin`` is 12 characters, starts with two letters and carries a correct check digit."""
    if len(isin) != 12 or not isin[:2].isalpha() or not isin[-1].isdigit():
        return False
    try:
        return isin_check_digit(isin[:11]) == int(isin[-1])
    except ValueError:
        return False


def _business_day_on_or_after(day: dt.date) -> dt.date:
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


def _random_day(rng: np.random.Generator, lo: str, hi: str) -> str:
    a, b = dt.date.fromisoformat(lo), dt.date.fromisoformat(hi)
    day = a + dt.timedelta(days=int(rng.integers(0, (b - a).days + 1)))
    return _business_day_on_or_after(day).isoformat()


def _nsin(rng: np.random.Generator, country: str, ticker: str) -> str:
    digits = "".join(str(int(d)) for d in rng.integers(0, 10, size=9))
    if country in ("US", "CA"):
        return digits[:6] + "10" + digits[8]
    if country in ("GB", "IE"):
        return "00B" + "".join(_ALNUM[int(i)] for i in rng.integers(0, len(_ALNUM), size=6))
    if country == "JP":
        return "3" + digits[:4] + "0000"
    if country in ("KY", "BM"):
        return "G" + digits[:8]
    if country == "AU" and ticker.isalpha():
        return ticker.rjust(9, "0")
    return "000" + digits[:6]


def _ticker(rng: np.random.Generator, mic: str, stem: str, word: str, taken: set[str]) -> str:
    if mic == "XTKS":
        pool = [f"{n}" for n in range(1301, 9999)]
    elif mic == "XHKG":
        pool = [f"{n:04d}" for n in range(1, 4000)]
    else:
        length = {"XNAS": 4, "XNYS": 3}.get(mic, 3 + int(rng.integers(0, 2)))
        s, w = stem.upper(), "".join(c for c in word.upper() if c.isalpha())
        pool = [s[:length], s[: length - 1] + w[0], s[0] + w[: length - 1], s[:2] + w[: length - 2]]
        letters = s + w
        pool += [
            "".join(letters[int(i)] for i in rng.integers(0, len(letters), size=length)) for _ in range(50)
        ]
        return next(t for t in pool if t not in taken)
    for _ in range(1000):
        t = pool[int(rng.integers(0, len(pool)))]
        if t not in taken:
            return t
    raise RuntimeError(f"Could not draw a free ticker on {mic}")


def _fx_start(currency: str) -> float:
    return 1.0 if currency == "USD" else FX_PATHS[currency][0]


def build_universe(rng: np.random.Generator) -> list[Equity]:
    """Return the full equity universe: the real issuers then the synthetic ones, ``EQ_ID`` from 1001 upwards.

    Synthetic issuers get an invented unique name, a ticker unique across all venues, an ISIN whose prefix is
    the issuer country (a few are foreign issuers, e.g. Cayman holding companies in Hong Kong), a start price
    and a share count (market cap roughly log-normal around USD 15bn). Nine list during the window and seven
    delist during it. Draws from ``rng`` in a fixed order, so the same seed always gives the same list.
    """
    equities: list[Equity] = []
    taken = {c.ticker for c in REAL_COMPANIES}
    isins: set[str] = set()
    for i, c in enumerate(REAL_COMPANIES):
        isin = c.isin11 + str(isin_check_digit(c.isin11))
        isins.add(isin)
        ccy = EXCHANGE_BY_MIC[c.mic].currency
        equities.append(
            Equity(
                FIRST_EQ_ID + i,
                c.ticker,
                isin,
                c.name,
                c.sector,
                c.mic,
                ccy,
                c.country,
                c.listed,
                None,
                int(round(c.shares_mn * 1e6)),
                c.px0,
                c.px1,
                c.div_yield,
            )
        )
    stems = [h + t for h in NAME_HEADS for t in NAME_TAILS]
    order = rng.permutation(len(stems))
    n_syn = sum(SYNTHETIC_COUNT.values())
    special = rng.choice(n_syn, size=16, replace=False)
    ipo, delisted = set(special[:9].tolist()), set(special[9:].tolist())
    k = 0
    for mic, count in SYNTHETIC_COUNT.items():
        exch = EXCHANGE_BY_MIC[mic]
        base_px, _ = MARKET_STYLE[mic]
        for _ in range(count):
            stem = stems[int(order[k])]
            sector = SECTORS[int(rng.integers(0, len(SECTORS)))].code
            word = SECTOR_WORDS[sector][int(rng.integers(0, 4))]
            name = f"{stem} {word} {LEGAL_SUFFIX[mic]}"
            ticker = _ticker(rng, mic, stem, word, taken)
            taken.add(ticker)
            country = exch.country
            foreign = _FOREIGN_ISSUERS.get(mic, ())
            if foreign and rng.random() < (0.4 if mic == "XHKG" else 0.12):
                country = foreign[int(rng.integers(0, len(foreign)))]
            isin = ""
            while not isin or isin in isins:
                stem11 = country + _nsin(rng, country, ticker)
                isin = stem11 + str(isin_check_digit(stem11))
            isins.add(isin)
            if k in ipo:
                dalis, daend = _random_day(rng, "2023-03-01", "2025-06-30"), None
            else:
                dalis = _random_day(rng, "1965-01-04", "2021-12-31")
                daend = _random_day(rng, "2023-06-01", "2025-09-30") if k in delisted else None
            px0 = float(np.round(base_px * np.exp(rng.normal(0.0, 0.7)), 2))
            cap_usd = 15e9 * np.exp(rng.normal(0.0, 0.9))
            shares = int(round(cap_usd * _fx_start(exch.currency) / px0, -3))
            div_yield = 0.0 if rng.random() < 0.3 else float(np.round(rng.uniform(0.005, 0.05), 4))
            equities.append(
                Equity(
                    FIRST_EQ_ID + len(equities),
                    ticker,
                    isin,
                    name,
                    sector,
                    mic,
                    exch.currency,
                    country,
                    dalis,
                    daend,
                    shares,
                    px0,
                    None,
                    div_yield,
                )
            )
            k += 1
    assert all(START_DATE <= (e.daend or END_DATE) <= END_DATE for e in equities)
    return equities
