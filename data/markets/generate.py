"""Generate the deterministic ``markets`` demo database (SQLite): synthetic equities research data.

Usage::

    python -m data.markets.generate [--out PATH] [--seed N]

The output is a pure function of the seed: reference data, ~230 equities, two years and ten months of daily
bars ending 2025-10-31, dividends, FX rates vs USD, four indices with dated compositions and daily levels.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import sqlite3
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from data.markets.indexes import build_indices
from data.markets.reference import COUNTRIES, CURRENCIES, END_DATE, EXCHANGES, INDICES, SECTORS, START_DATE
from data.markets.schema import DDL, TABLES, WEIGHTING_LABELS
from data.markets.simulate import Bars, business_days, simulate_bars, simulate_dividends, simulate_fx
from data.markets.synth import Equity, build_universe

DEFAULT_PATH = Path(__file__).resolve().parent / "markets.sqlite"
DEFAULT_SEED = 7


def _insert(conn: sqlite3.Connection, table: str, rows: Iterable[Sequence[Any]]) -> None:
    rows = list(rows)
    if rows:
        marks = ",".join("?" * len(rows[0]))
        conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


def _price_rows(universe: list[Equity], days: list[str], bars: Bars) -> Iterable[tuple[Any, ...]]:
    for j, e in enumerate(universe):
        for i in np.nonzero(bars.active[:, j])[0].tolist():
            yield (
                e.eq_id,
                days[i],
                float(bars.open[i, j]),
                float(bars.high[i, j]),
                float(bars.low[i, j]),
                float(bars.close[i, j]),
                int(bars.volume[i, j]),
            )


def _write(conn: sqlite3.Connection, seed: int) -> None:
    """Simulate everything from ``seed`` and insert it into the empty schema on ``conn``."""
    rng = np.random.default_rng(seed)
    universe = build_universe(rng)
    days = business_days(START_DATE, END_DATE)
    fx = simulate_fx(rng, len(days))
    bars = simulate_bars(rng, universe, days)
    dividends = simulate_dividends(rng, universe, days, bars.close)
    compositions, levels = build_indices(universe, days, bars.close, bars.active, fx)

    conn.executescript(DDL)
    _insert(conn, "countries", COUNTRIES)
    _insert(conn, "currencies", CURRENCIES)
    _insert(
        conn, "exchanges", [(e.mic, e.name, e.city, e.country, e.currency, e.timezone) for e in EXCHANGES]
    )
    _insert(conn, "gics_sectors", [(s.code, s.name) for s in SECTORS])
    _insert(
        conn,
        "EQ_MSTR",
        [
            (
                e.eq_id,
                e.ticker,
                e.isin,
                e.name,
                e.sector,
                e.mic,
                e.currency,
                e.country,
                e.dalis,
                e.daend,
                e.shares,
            )
            for e in universe
        ],
    )
    _insert(conn, "EQ_PX_D", _price_rows(universe, days, bars))
    _insert(conn, "EQ_DVD", dividends)
    _insert(
        conn,
        "indices",
        [
            (i.index_id, i.code, i.name, i.currency, WEIGHTING_LABELS[i.weighting], days[0], 1000.0)
            for i in INDICES
        ],
    )
    _insert(conn, "IDX_CMP", compositions)
    _insert(conn, "index_levels", levels)
    _insert(
        conn,
        "FX_RT_D",
        [
            ("USD", ccy, d, float(rate))
            for ccy, rates in sorted(fx.items())
            for d, rate in zip(days, rates, strict=True)
        ],
    )


def generate(path: Path, seed: int = DEFAULT_SEED) -> Path:
    """Write the ``markets`` SQLite database to ``path`` and return ``path``.

    The file is built next to ``path`` under a temporary name and atomically renamed over it, so readers
    never see a half-written database. The content (every row of every table) depends only on ``seed``.

    Raises:
        RuntimeError: the generated data violates a foreign key (a bug).
        OSError: the target directory cannot be written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        conn = sqlite3.connect(tmp)
        try:
            conn.execute("PRAGMA foreign_keys = ON")
            _write(conn, seed)
            bad = conn.execute("PRAGMA foreign_key_check").fetchall()
            if bad:
                raise RuntimeError(f"Foreign-key violations in generated data: {bad[:5]}")
            conn.commit()
        finally:
            conn.close()
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return path


def primary_key(conn: sqlite3.Connection, table: str) -> list[str]:
    """Return the primary-key columns of ``table`` in key order (empty if it has none)."""
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    return [row[1] for row in sorted((r for r in info if r[5] > 0), key=lambda r: r[5])]


def canonical_digest(path: Path) -> str:
    """SHA-256 hex digest of every table of the database at ``path``, rows ordered by primary key.

    Covers table names, column names and row values (``repr`` of each Python value), so two files with the
    same digest hold identical data regardless of page layout.

    Raises:
        sqlite3.Error: ``path`` is not a readable SQLite database.
    """
    digest = hashlib.sha256()
    conn = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
    try:
        names = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        ]
        for table in names:
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            order = ", ".join(primary_key(conn, table) or cols)
            digest.update(f"{table}({','.join(cols)})\n".encode())
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY {order}"):
                digest.update(repr(row).encode())
                digest.update(b"\n")
    finally:
        conn.close()
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: generate the database, print row counts and timing; returns the exit code."""
    parser = argparse.ArgumentParser(description="Generate the synthetic markets SQLite database.")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_PATH, help=f"output file (default: {DEFAULT_PATH})"
    )
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default: {DEFAULT_SEED})"
    )
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    out = generate(args.out, args.seed)
    elapsed = time.perf_counter() - t0
    conn = sqlite3.connect(out)
    try:
        for table in TABLES:
            (count,) = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
            print(f"{table:<14}{count:>9}")
    finally:
        conn.close()
    print(f"wrote {out} in {elapsed:.1f}s (seed {args.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
