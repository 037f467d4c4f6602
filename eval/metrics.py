"""Execution accuracy (EX) as in Spider (Yu et al. 2018): compare result multisets, order only when the gold
query orders its output; column names are ignored and a column permutation is allowed.

Also a percentile bootstrap confidence interval for means (Efron & Tibshirani 1993).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import sqlglot
from sqlglot import exp

MAX_PERMUTED_COLUMNS = 6


def _norm(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return round(value, 6) if not value.is_integer() else int(value)
    if isinstance(value, bytes):
        return value.hex()
    return value


def _rows(rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    return [tuple(_norm(v) for v in r) for r in rows]


def gold_is_ordered(sql: str, dialect: str = "sqlite") -> bool:
    """True when the outermost query of ``sql`` has an ORDER BY (then row order matters for EX)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:
        return "order by" in sql.lower()
    return tree.args.get("order") is not None if isinstance(tree, exp.Query) else False


def results_match(gold: Sequence[Sequence[Any]], pred: Sequence[Sequence[Any]], *, ordered: bool) -> bool:
    """EX for one question: do ``pred`` rows equal ``gold`` rows (as lists if ``ordered``, else multisets),
    up to a permutation of columns (tried for at most 6 columns)?"""
    g, p = _rows(gold), _rows(pred)
    if len(g) != len(p):
        return False
    if not g:
        return True
    width = len(g[0])
    if any(len(r) != width for r in p):
        return False
    perms = itertools.permutations(range(width)) if width <= MAX_PERMUTED_COLUMNS else [tuple(range(width))]
    gold_key: Any = g if ordered else Counter(g)
    for perm in perms:
        permuted = [tuple(r[i] for i in perm) for r in p]
        if (permuted if ordered else Counter(permuted)) == gold_key:
            return True
    return False


def bootstrap_ci(values: Sequence[float], *, n_boot: int = 2000, alpha: float = 0.05,
                 seed: int = 0) -> tuple[float, float, float]:
    """Mean of ``values`` and its percentile-bootstrap (1 - alpha) interval: ``(mean, low, high)``."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(n_boot, data.size))].mean(axis=1)
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(data.mean()), float(low), float(high)
