"""SQLite DDL of the ``markets`` database (tables in foreign-key dependency order)."""

from __future__ import annotations

TABLES: list[str] = [
    "countries",
    "currencies",
    "exchanges",
    "gics_sectors",
    "EQ_MSTR",
    "EQ_PX_D",
    "EQ_DVD",
    "indices",
    "IDX_CMP",
    "index_levels",
    "FX_RT_D",
]
"""Every table, parents before children (the insert order)."""

DDL = """
CREATE TABLE countries (
    country_code TEXT PRIMARY KEY,
    country_name TEXT NOT NULL,
    region       TEXT NOT NULL
);

CREATE TABLE currencies (
    currency_code TEXT PRIMARY KEY,
    currency_name TEXT NOT NULL,
    minor_units   INTEGER NOT NULL
);

CREATE TABLE exchanges (
    mic           TEXT PRIMARY KEY,
    exchange_name TEXT NOT NULL,
    city          TEXT NOT NULL,
    country_code  TEXT NOT NULL REFERENCES countries (country_code),
    currency_code TEXT NOT NULL REFERENCES currencies (currency_code),
    timezone      TEXT NOT NULL
);

CREATE TABLE gics_sectors (
    sector_code INTEGER PRIMARY KEY,
    sector_name TEXT NOT NULL UNIQUE
);

CREATE TABLE EQ_MSTR (
    EQ_ID     INTEGER PRIMARY KEY,
    TICKER    TEXT NOT NULL,
    ISIN      TEXT NOT NULL UNIQUE,
    CO_NM     TEXT NOT NULL,
    GICS_SECT INTEGER NOT NULL REFERENCES gics_sectors (sector_code),
    LIMAR     TEXT NOT NULL REFERENCES exchanges (mic),
    TRD_CCY   TEXT NOT NULL REFERENCES currencies (currency_code),
    ISS_CTRY  TEXT NOT NULL REFERENCES countries (country_code),
    DALIS     TEXT NOT NULL,
    DAEND     TEXT,
    SHR_OUT   INTEGER NOT NULL,
    UNIQUE (TICKER, LIMAR)
);

CREATE TABLE EQ_PX_D (
    EQ_ID   INTEGER NOT NULL REFERENCES EQ_MSTR (EQ_ID),
    TRD_DT  TEXT NOT NULL,
    PX_OPEN REAL NOT NULL,
    PX_HI   REAL NOT NULL,
    PX_LO   REAL NOT NULL,
    PX_LST  REAL NOT NULL,
    PX_VOL  INTEGER NOT NULL,
    PRIMARY KEY (EQ_ID, TRD_DT)
);
CREATE INDEX ix_eq_px_d_trd_dt ON EQ_PX_D (TRD_DT);

CREATE TABLE EQ_DVD (
    EQ_ID   INTEGER NOT NULL REFERENCES EQ_MSTR (EQ_ID),
    EX_DT   TEXT NOT NULL,
    PAY_DT  TEXT NOT NULL,
    DVD_AMT REAL NOT NULL,
    PRIMARY KEY (EQ_ID, EX_DT)
);

CREATE TABLE indices (
    index_id      INTEGER PRIMARY KEY,
    index_code    TEXT NOT NULL UNIQUE,
    index_name    TEXT NOT NULL,
    currency_code TEXT NOT NULL REFERENCES currencies (currency_code),
    weighting     TEXT NOT NULL,
    base_date     TEXT NOT NULL,
    base_level    REAL NOT NULL
);

CREATE TABLE IDX_CMP (
    IDX_ID INTEGER NOT NULL REFERENCES indices (index_id),
    EQ_ID  INTEGER NOT NULL REFERENCES EQ_MSTR (EQ_ID),
    VLD_FR TEXT NOT NULL,
    VLD_TO TEXT,
    WGT    REAL NOT NULL,
    PRIMARY KEY (IDX_ID, EQ_ID, VLD_FR)
);

CREATE TABLE index_levels (
    index_id    INTEGER NOT NULL REFERENCES indices (index_id),
    trade_date  TEXT NOT NULL,
    index_level REAL NOT NULL,
    PRIMARY KEY (index_id, trade_date)
);

CREATE TABLE FX_RT_D (
    BASE_CCY  TEXT NOT NULL REFERENCES currencies (currency_code),
    QUOTE_CCY TEXT NOT NULL REFERENCES currencies (currency_code),
    RT_DT     TEXT NOT NULL,
    FX_RT     REAL NOT NULL,
    PRIMARY KEY (BASE_CCY, QUOTE_CCY, RT_DT)
);
"""
"""The full schema as one script for ``sqlite3.Connection.executescript``."""

WEIGHTING_LABELS: dict[str, str] = {"CAP": "MCAP", "CAP10": "MCAP_CAPPED_10", "EQUAL": "EQUAL"}
"""Stored value of ``indices.weighting`` for each ``IndexDef.weighting``."""
