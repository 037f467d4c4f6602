"""Index compositions (dated constituent weights) and daily index levels for the ``markets`` database."""

from __future__ import annotations

import numpy as np

from data.markets.reference import INDICES, IndexDef
from data.markets.synth import Equity

WEIGHT_DECIMALS = 6
CAP_LIMIT = 0.10


def rebalance_days(days: list[str], months: tuple[int, ...]) -> list[int]:
    """Return indices into ``days`` of the first trading day of every month in ``months`` (always incl. day 0)."""
    out = [0]
    for i in range(1, len(days)):
        if days[i][5:7] != days[i - 1][5:7] and int(days[i][5:7]) in months:
            out.append(i)
    return out


def capped_weights(caps: np.ndarray, limit: float) -> np.ndarray:
    """Market-cap weights with no weight above ``limit``; the excess is spread pro rata over uncapped names.

    Args:
        caps: positive market caps, shape ``(n,)``.
        limit: maximum weight (0-1); must satisfy ``limit * n >= 1``.

    Raises:
        ValueError: the limit cannot be met with ``n`` names.
    """
    if limit * len(caps) < 1.0:
        raise ValueError(f"Cannot cap {len(caps)} names at {limit}.")
    w = caps / caps.sum()
    capped = np.zeros(len(w), dtype=bool)
    while (w > limit + 1e-12).any():
        capped |= w > limit
        free = ~capped
        w = np.where(capped, limit, w)
        w[free] = caps[free] / caps[free].sum() * (1.0 - limit * capped.sum())
    return w


def _in_index_ccy(
    close: np.ndarray, universe: list[Equity], fx: dict[str, np.ndarray], ccy: str
) -> np.ndarray:
    """Convert listing-currency closes ``(n_days, n_eq)`` into ``ccy`` using rates quoted per 1 USD."""
    n = close.shape[0]
    per_usd = np.stack([fx[e.currency] if e.currency != "USD" else np.ones(n) for e in universe], axis=1)
    target = fx[ccy] if ccy != "USD" else np.ones(n)
    return close / per_usd * target[:, None]


def _select(
    idx: IndexDef, universe: list[Equity], active: np.ndarray, caps: np.ndarray, s: int, fr: int, to: int
) -> list[tuple[int, float]]:
    """Return ``(column, weight)`` of the constituents chosen at selection day ``s`` for period ``fr..to``."""
    eligible = [
        j
        for j, e in enumerate(universe)
        if e.mic in idx.mics
        and (idx.sector is None or e.sector == idx.sector)
        and active[s, j]
        and active[fr : to + 1, j].all()
    ]
    eligible.sort(key=lambda j: (-caps[s, j], universe[j].eq_id))
    chosen = sorted(eligible[: idx.size], key=lambda j: universe[j].eq_id)
    c = np.array([caps[s, j] for j in chosen])
    if idx.weighting == "EQUAL":
        w = np.full(len(chosen), 1.0 / len(chosen))
    elif idx.weighting == "CAP10":
        w = capped_weights(c, CAP_LIMIT)
    else:
        w = c / c.sum()
    return list(zip(chosen, np.round(w, WEIGHT_DECIMALS).tolist(), strict=True))


def build_indices(
    universe: list[Equity], days: list[str], close: np.ndarray, active: np.ndarray, fx: dict[str, np.ndarray]
) -> tuple[list[tuple[int, int, str, str | None, float]], list[tuple[int, str, float]]]:
    """Compute index compositions and daily levels.

    Constituents are picked on each rebalance day (first trading day of the index's rebalance months) by
    market cap converted to the index currency at the previous close, among names listed for the whole
    period. Levels start at 1000 on the first day and compound the weighted daily returns of the
    constituents (in the index currency, weights fixed within a period).

    Returns:
        ``(compositions, levels)``: composition rows ``(IDX_ID, EQ_ID, VLD_FR, VLD_TO, WGT)`` with ``VLD_TO``
        the period's last trading day (None for the current period), and level rows
        ``(index_id, trade_date, index_level)`` rounded to 2 decimals.
    """
    shares = np.array([e.shares for e in universe], dtype=float)
    comps: list[tuple[int, int, str, str | None, float]] = []
    levels: list[tuple[int, str, float]] = []
    n = len(days)
    for idx in INDICES:
        px = _in_index_ccy(close, universe, fx, idx.currency)
        caps = px * shares
        starts = rebalance_days(days, idx.rebalance_months)
        ends = [s - 1 for s in starts[1:]] + [n - 1]
        weights_by_day: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        for p, (fr, to) in enumerate(zip(starts, ends, strict=True)):
            members = _select(idx, universe, active, caps, max(fr - 1, 0), fr, to)
            vld_to = days[to] if p < len(starts) - 1 else None
            comps += [(idx.index_id, universe[j].eq_id, days[fr], vld_to, w) for j, w in members]
            for t in range(fr, to + 1):
                weights_by_day[t] = members
        level = 1000.0
        levels.append((idx.index_id, days[0], level))
        for t in range(1, n):
            ret = sum(w * (px[t, j] / px[t - 1, j] - 1.0) for j, w in weights_by_day[t])
            level *= 1.0 + ret
            levels.append((idx.index_id, days[t], round(level, 2)))
    comps.sort(key=lambda r: (r[0], r[1], r[2]))
    return comps, levels
