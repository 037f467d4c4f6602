"""Random-walk simulation of FX rates, daily equity bars and dividends for the ``markets`` database.

All arrays are indexed ``[day, equity]`` over the business-day calendar from :func:`business_days`; values
outside an equity's listing window are NaN. Every draw comes from the numpy ``Generator`` passed in, in a
fixed order, so a seed fully determines the output.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from data.markets.reference import EXCHANGE_BY_MIC, FX_PATHS, MARKET_STYLE, SECTOR_BY_CODE
from data.markets.synth import Equity

TRADING_DAYS_PER_YEAR = 252
PINNED_VOL_SCALE = 0.8
"""Volatility multiplier for real issuers (large caps whose path is pinned to a start and end level)."""


def business_days(start: str, end: str) -> list[str]:
    """Return every Monday-Friday between ``start`` and ``end`` (ISO dates, both inclusive) as ISO strings.

    No exchange holidays are modelled: all venues share this calendar.
    """
    days = np.arange(np.datetime64(start), np.datetime64(end) + 1, dtype="datetime64[D]")
    return [str(d) for d in days[np.is_busday(days)]]


def price_decimals(currency: str) -> int:
    """Decimals used to quote prices in ``currency``: 0 for JPY, 3 for GBP (pounds), else 2."""
    return {"JPY": 0, "GBP": 3}.get(currency, 2)


def _pinned_walk(
    rng: np.random.Generator,
    n: int,
    start: float,
    end: float,
    sigma: float,
    first: int = 0,
    last: int | None = None,
) -> np.ndarray:
    """Log-normal random walk of length ``n`` starting at ``start`` on ``first`` and ending at ``end`` on ``last``.

    A Brownian bridge: the free walk's log path gets a linear correction so it hits ``end`` exactly.
    """
    last = n - 1 if last is None else last
    steps = rng.standard_normal(n) * sigma / np.sqrt(TRADING_DAYS_PER_YEAR)
    steps[: first + 1] = 0.0
    log_path = np.log(start) + np.cumsum(steps)
    frac = np.clip((np.arange(n) - first) / max(last - first, 1), 0.0, 1.0)
    return np.exp(log_path + frac * (np.log(end) - log_path[last]))


def simulate_fx(rng: np.random.Generator, n_days: int) -> dict[str, np.ndarray]:
    """Return daily FX rates as units of each currency per 1 USD, shape ``(n_days,)`` per currency code.

    Each path is pinned to the start/end levels of ``FX_PATHS``; JPY is rounded to 3 decimals, others to 5.
    USD itself is not included.
    """
    out: dict[str, np.ndarray] = {}
    for ccy, (start, end, vol) in sorted(FX_PATHS.items()):
        out[ccy] = np.round(_pinned_walk(rng, n_days, start, end, vol), 3 if ccy == "JPY" else 5)
    return out


@dataclass(frozen=True)
class Bars:
    """Daily bars, each an array of shape ``(n_days, n_equities)``; NaN where an equity is not listed.

    Prices are in the listing currency and rounded with :func:`price_decimals`; ``volume`` is in shares.
    """

    open: np.ndarray
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray
    volume: np.ndarray
    active: np.ndarray


def listing_mask(universe: list[Equity], days: list[str]) -> np.ndarray:
    """Boolean array ``(n_days, n_equities)``: True where ``dalis <= day`` and (``daend`` is None or ``day <= daend``)."""
    day_arr = np.array(days)
    cols = [(day_arr >= e.dalis) & (day_arr <= (e.daend or "9999-12-31")) for e in universe]
    return np.stack(cols, axis=1)


def simulate_bars(rng: np.random.Generator, universe: list[Equity], days: list[str]) -> Bars:
    """Simulate OHLC bars and volumes for every equity over ``days``.

    Log returns follow a one-factor model: a global factor, a regional factor (Americas / Europe /
    Asia-Pacific) and a fat-tailed (Student-t, 5 dof) idiosyncratic shock, with sector drift and volatility
    from ``SECTORS`` perturbed per stock. Real issuers are pinned to their ``px0``/``px1`` levels.

    Raises:
        ValueError: an equity has no trading day inside ``days``.
    """
    n, m = len(days), len(universe)
    active = listing_mask(universe, days)
    if not active.any(axis=0).all():
        raise ValueError("Every equity needs at least one trading day in the window.")
    z_global = rng.standard_normal(n)
    z_region = {r: rng.standard_normal(n) for r in ("AM", "EU", "AP")}
    eps = rng.standard_t(5, size=(n, m)) / np.sqrt(5.0 / 3.0)
    pinned = np.array([e.px1 is not None for e in universe])
    mult = np.exp(rng.normal(0.0, 0.2, m))
    mult = np.where(pinned, PINNED_VOL_SCALE * np.clip(mult, 0.85, 1.15), mult)
    sig = np.array([SECTOR_BY_CODE[e.sector].sigma for e in universe]) * mult
    mu = np.array([SECTOR_BY_CODE[e.sector].mu for e in universe]) + rng.normal(0.0, 0.04, m)
    rho = rng.uniform(0.35, 0.65, m)
    factor = np.stack(
        [0.6 * z_global + 0.8 * z_region[EXCHANGE_BY_MIC[e.mic].region] for e in universe], axis=1
    )
    shock = rho * factor + np.sqrt(1.0 - rho**2) * eps
    sig_d = sig / np.sqrt(TRADING_DAYS_PER_YEAR)
    rets = (mu - 0.5 * sig**2) / TRADING_DAYS_PER_YEAR + sig_d * shock

    first = active.argmax(axis=0)
    last = n - 1 - active[::-1].argmax(axis=0)
    rets[~active] = 0.0
    rets[first, np.arange(m)] = 0.0
    log_close = np.log([e.px0 for e in universe]) + np.cumsum(rets, axis=0)
    idx = np.arange(n)[:, None]
    for j, e in enumerate(universe):
        if e.px1 is not None:
            frac = np.clip((idx[:, 0] - first[j]) / max(last[j] - first[j], 1), 0.0, 1.0)
            log_close[:, j] += frac * (np.log(e.px1) - log_close[last[j], j])
    close = np.exp(log_close)
    prev = np.vstack([close[:1], close[:-1]])
    open_ = prev * np.exp(rng.normal(0.0, 1.0, (n, m)) * 0.3 * sig_d)
    hi_ext = np.exp(np.abs(rng.normal(0.0, 1.0, (n, m))) * 0.5 * sig_d)
    lo_ext = np.exp(-np.abs(rng.normal(0.0, 1.0, (n, m))) * 0.5 * sig_d)
    turnover = rng.uniform(0.002, 0.008, m)
    noise = np.exp(0.35 * rng.standard_normal((n, m)))
    volume = np.array([e.shares for e in universe]) * turnover * noise * (0.7 + 0.3 * np.abs(shock))

    dec = np.array([price_decimals(e.currency) for e in universe])
    scale = 10.0**dec
    close_r = np.round(close * scale) / scale
    open_r = np.round(open_ * scale) / scale
    high_r = np.maximum(
        np.round(np.maximum(open_, close) * hi_ext * scale) / scale, np.maximum(open_r, close_r)
    )
    low_r = np.minimum(
        np.round(np.minimum(open_, close) * lo_ext * scale) / scale, np.minimum(open_r, close_r)
    )
    lot = np.array([100.0 if e.mic == "XTKS" else 1.0 for e in universe])
    vol_r = np.maximum(np.round(volume / lot), 1.0) * lot
    nan = np.where(active, 1.0, np.nan)
    return Bars(open_r * nan, high_r * nan, low_r * nan, close_r * nan, vol_r * nan, active)


def _business_day_on_or_after(day: dt.date) -> dt.date:
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


def simulate_dividends(
    rng: np.random.Generator, universe: list[Equity], days: list[str], close: np.ndarray
) -> list[tuple[int, str, str, float]]:
    """Return dividend rows ``(EQ_ID, EX_DT, PAY_DT, DVD_AMT)`` sorted by equity then ex-date.

    Payers distribute ``div_yield`` of the first close of each calendar year, split over the venue's dividend
    months (quarterly in North America, semi-annual in UK/Japan/HK/Australia, annual in continental Europe).
    Ex-dates are trading days inside the listing window; pay dates follow 2-5 weeks later and may fall after
    the last simulated day. Amounts are per share in the listing currency.
    """
    pos = {d: i for i, d in enumerate(days)}
    rows: list[tuple[int, str, str, float]] = []
    years = range(int(days[0][:4]), int(days[-1][:4]) + 1)
    for j, e in enumerate(universe):
        dom = int(rng.integers(5, 26))
        lag = int(rng.integers(14, 36))
        if e.div_yield <= 0.0:
            continue
        months = MARKET_STYLE[e.mic][1]
        dec = {"JPY": 1, "GBP": 4}.get(e.currency, 2)
        for year in years:
            listed = [i for i, d in enumerate(days) if d[:4] == str(year) and not np.isnan(close[i, j])]
            if not listed:
                continue
            amount = round(float(close[listed[0], j]) * e.div_yield / len(months), dec)
            for month in months:
                ex = _business_day_on_or_after(dt.date(year, month, dom)).isoformat()
                if ex not in pos or np.isnan(close[pos[ex], j]) or amount <= 0.0:
                    continue
                pay = _business_day_on_or_after(
                    dt.date.fromisoformat(ex) + dt.timedelta(days=lag)
                ).isoformat()
                rows.append((e.eq_id, ex, pay, amount))
    return rows
