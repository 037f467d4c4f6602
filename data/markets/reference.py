"""Static reference data for the synthetic ``markets`` database.

Countries (ISO 3166-1 alpha-2), currencies (ISO 4217), exchanges (real ISO 10383 MIC codes), GICS-like
sectors with simulation parameters, index definitions and FX paths. Pure data: no randomness here.
"""

from __future__ import annotations

from typing import NamedTuple

START_DATE = "2023-01-02"
"""First business day of the simulated window (inclusive)."""
END_DATE = "2025-10-31"
"""Last business day of the simulated window (inclusive)."""

# (country_code, country_name, region)
COUNTRIES: list[tuple[str, str, str]] = [
    ("AU", "Australia", "Asia-Pacific"),
    ("BM", "Bermuda", "Americas"),
    ("CA", "Canada", "Americas"),
    ("CH", "Switzerland", "Europe"),
    ("DE", "Germany", "Europe"),
    ("ES", "Spain", "Europe"),
    ("FR", "France", "Europe"),
    ("GB", "United Kingdom", "Europe"),
    ("HK", "Hong Kong", "Asia-Pacific"),
    ("IE", "Ireland", "Europe"),
    ("IT", "Italy", "Europe"),
    ("JP", "Japan", "Asia-Pacific"),
    ("KY", "Cayman Islands", "Americas"),
    ("LU", "Luxembourg", "Europe"),
    ("NL", "Netherlands", "Europe"),
    ("SE", "Sweden", "Europe"),
    ("US", "United States", "Americas"),
]

# (currency_code, currency_name, minor_units)
CURRENCIES: list[tuple[str, str, int]] = [
    ("AUD", "Australian Dollar", 2),
    ("CAD", "Canadian Dollar", 2),
    ("CHF", "Swiss Franc", 2),
    ("EUR", "Euro", 2),
    ("GBP", "Pound Sterling", 2),
    ("HKD", "Hong Kong Dollar", 2),
    ("JPY", "Yen", 0),
    ("SEK", "Swedish Krona", 2),
    ("USD", "US Dollar", 2),
]


class Exchange(NamedTuple):
    """One row of the ``exchanges`` table (``region`` drives the simulated market factor)."""

    mic: str
    name: str
    city: str
    country: str
    currency: str
    timezone: str
    region: str


EXCHANGES: list[Exchange] = [
    Exchange("XNYS", "New York Stock Exchange", "New York", "US", "USD", "America/New_York", "AM"),
    Exchange("XNAS", "Nasdaq", "New York", "US", "USD", "America/New_York", "AM"),
    Exchange("XTSE", "Toronto Stock Exchange", "Toronto", "CA", "CAD", "America/Toronto", "AM"),
    Exchange("XLON", "London Stock Exchange", "London", "GB", "GBP", "Europe/London", "EU"),
    Exchange("XPAR", "Euronext Paris", "Paris", "FR", "EUR", "Europe/Paris", "EU"),
    Exchange("XETR", "Xetra", "Frankfurt", "DE", "EUR", "Europe/Berlin", "EU"),
    Exchange("XAMS", "Euronext Amsterdam", "Amsterdam", "NL", "EUR", "Europe/Amsterdam", "EU"),
    Exchange("XSWX", "SIX Swiss Exchange", "Zurich", "CH", "CHF", "Europe/Zurich", "EU"),
    Exchange("XMIL", "Euronext Milan", "Milan", "IT", "EUR", "Europe/Rome", "EU"),
    Exchange("XMAD", "Bolsa de Madrid", "Madrid", "ES", "EUR", "Europe/Madrid", "EU"),
    Exchange("XSTO", "Nasdaq Stockholm", "Stockholm", "SE", "SEK", "Europe/Stockholm", "EU"),
    Exchange("XTKS", "Tokyo Stock Exchange", "Tokyo", "JP", "JPY", "Asia/Tokyo", "AP"),
    Exchange("XHKG", "Hong Kong Exchanges and Clearing", "Hong Kong", "HK", "HKD", "Asia/Hong_Kong", "AP"),
    Exchange("XASX", "Australian Securities Exchange", "Sydney", "AU", "AUD", "Australia/Sydney", "AP"),
]
EXCHANGE_BY_MIC: dict[str, Exchange] = {e.mic: e for e in EXCHANGES}


class Sector(NamedTuple):
    """A GICS-like sector: code, name, annual drift ``mu`` and annual volatility ``sigma`` (log returns)."""

    code: int
    name: str
    mu: float
    sigma: float


SECTORS: list[Sector] = [
    Sector(10, "Energy", 0.04, 0.28),
    Sector(15, "Materials", 0.04, 0.27),
    Sector(20, "Industrials", 0.07, 0.24),
    Sector(25, "Consumer Discretionary", 0.07, 0.30),
    Sector(30, "Consumer Staples", 0.04, 0.17),
    Sector(35, "Health Care", 0.05, 0.22),
    Sector(40, "Financials", 0.08, 0.25),
    Sector(45, "Information Technology", 0.12, 0.33),
    Sector(50, "Communication Services", 0.09, 0.30),
    Sector(55, "Utilities", 0.04, 0.18),
    Sector(60, "Real Estate", 0.03, 0.24),
]
SECTOR_BY_CODE: dict[int, Sector] = {s.code: s for s in SECTORS}


class IndexDef(NamedTuple):
    """An equity index: universe by MIC (and optionally sector), size, weighting and rebalance months."""

    index_id: int
    code: str
    name: str
    currency: str
    weighting: str  # "CAP" (free cap-weighted), "CAP10" (capped at 10%), "EQUAL"
    mics: tuple[str, ...]
    sector: int | None
    size: int
    rebalance_months: tuple[int, ...]


INDICES: list[IndexDef] = [
    IndexDef(1, "USLC50", "US Large Cap 50", "USD", "CAP", ("XNYS", "XNAS"), None, 50, (1, 4, 7, 10)),
    IndexDef(
        2, "EUBC30", "Euro Blue Chip 30", "EUR", "CAP10", ("XPAR", "XETR", "XAMS"), None, 30, (1, 4, 7, 10)
    ),
    IndexDef(3, "JPPR20", "Japan Prime 20", "JPY", "EQUAL", ("XTKS",), None, 20, (1, 4, 7, 10)),
    IndexDef(
        4,
        "GLTECH25",
        "Global Technology 25",
        "USD",
        "CAP",
        tuple(e.mic for e in EXCHANGES),
        45,
        25,
        (1, 7),
    ),
]

# FX: units of currency per 1 USD at START_DATE and END_DATE, and annual volatility of the log rate.
FX_PATHS: dict[str, tuple[float, float, float]] = {
    "AUD": (1.470, 1.528, 0.08),
    "CAD": (1.355, 1.401, 0.05),
    "CHF": (0.925, 0.805, 0.06),
    "EUR": (0.936, 0.867, 0.06),
    "GBP": (0.828, 0.761, 0.07),
    "HKD": (7.800, 7.772, 0.004),
    "JPY": (130.90, 154.10, 0.09),
    "SEK": (10.42, 9.49, 0.08),
}

# Typical synthetic start price (listing currency) and dividend months per exchange.
MARKET_STYLE: dict[str, tuple[float, tuple[int, ...]]] = {
    "XNYS": (60.0, (2, 5, 8, 11)),
    "XNAS": (45.0, (2, 5, 8, 11)),
    "XTSE": (45.0, (3, 6, 9, 12)),
    "XLON": (6.0, (3, 8)),
    "XPAR": (55.0, (5,)),
    "XETR": (60.0, (5,)),
    "XAMS": (35.0, (4,)),
    "XSWX": (80.0, (4,)),
    "XTKS": (2500.0, (3, 9)),
    "XHKG": (30.0, (5, 9)),
    "XASX": (20.0, (2, 8)),
}
