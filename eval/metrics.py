"""Execution accuracy (EX) as in Spider (Yu et al. 2018), its tolerant variant, and bootstrap intervals.

EX compares result multisets, order only when the gold query orders its output; column names are ignored and
a column permutation is allowed. Tolerant EX (:func:`tolerant_match`) also accepts extra columns, as the seed's
judge counted, and fewer columns when only context (no numeric column) is left out: "current price of ASML"
answered with the price alone or with the date and currency too.

Also a percentile bootstrap confidence interval for means (Efron & Tibshirani 1993).
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
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
    if isinstance(value, Decimal):  # PostgreSQL NUMERIC (e.g. ROUND(x::numeric, 2)) compares as a float
        return _norm(float(value))
    if isinstance(value, dt.datetime):  # engines with date types vs SQLite's ISO text
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
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
    """EX for one question: do ``pred`` rows equal ``gold`` rows, up to a permutation of columns?

    Rows are compared as lists if ``ordered``, else as multisets; permutations are tried for at most 6
    columns.
    """
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


MAX_ASSIGNMENTS = 5000
"""Column assignments tried by :func:`tolerant_match` before it gives up (returns False)."""


def tolerant_match(gold: Sequence[Sequence[Any]], pred: Sequence[Sequence[Any]], *, ordered: bool) -> bool:
    """Tolerant EX: the prediction answers with more or with fewer columns than the gold query, row-aligned.

    Same rows count as EX. Wider prediction: every gold column's values appear, row-aligned, in a distinct
    prediction column (extra columns allowed). Narrower prediction: every prediction column appears, row-aligned,
    in a distinct gold column, and every gold column left out is context, not a measure: none of them is numeric
    (only numbers, some present). So "current price of ASML" counts answered with the price alone or with the date
    and currency too (the analysts' reading), while "latest close of every stock" answered with the tickers alone
    does not (the close, a number, is missing). Deterministic, no LLM; the row count must be equal; strict EX
    implies tolerant EX.
    """
    g, p = _rows(gold), _rows(pred)
    if len(g) != len(p):
        return False
    if not g:
        return True
    if any(len(r) != len(g[0]) for r in g) or any(len(r) != len(p[0]) for r in p):
        return False
    if len(p[0]) >= len(g[0]):
        return _aligned(p, g, ordered) is not None
    used = _aligned(g, p, ordered)
    if used is None:
        return False
    left_out = [j for j in range(len(g[0])) if j not in used]
    return not any(_numeric([r[j] for r in g]) for j in left_out)


def _numeric(values: list[Any]) -> bool:
    present = [v for v in values if v is not None]
    return bool(present) and all(isinstance(v, int | float) for v in present)


def _aligned(wide: list[tuple[Any, ...]], narrow: list[tuple[Any, ...]], ordered: bool) -> tuple[int, ...] | None:
    """Distinct columns of ``wide`` whose projection equals ``narrow`` (list if ``ordered``, else multiset).

    Returns the column indexes (one per ``narrow`` column), or None when there is none (or after
    :data:`MAX_ASSIGNMENTS` tries). Both sides have the same, non-zero number of rows.
    """
    width, extra = len(narrow[0]), len(wide[0])

    def column(rows: list[tuple[Any, ...]], i: int) -> Any:
        values = [r[i] for r in rows]
        return values if ordered else Counter(values)

    options = [[k for k in range(extra) if column(wide, k) == column(narrow, j)] for j in range(width)]
    if any(not o for o in options):
        return None
    narrow_key: Any = narrow if ordered else Counter(narrow)
    tried = 0
    for assignment in itertools.product(*options):
        if len(set(assignment)) < width:
            continue
        tried += 1
        if tried > MAX_ASSIGNMENTS:
            return None
        projected = [tuple(r[k] for k in assignment) for r in wide]
        if (projected if ordered else Counter(projected)) == narrow_key:
            return assignment
    return None


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


def _close(a: Any, b: Any, rel_tol: float) -> bool:
    """Cell equality: numbers within a tolerance, text exact after strip and case-fold.

    Numbers (also numeric strings) are equal within ``rel_tol`` (or 1e-9 absolute).
    """
    fa, fb = _as_number(a), _as_number(b)
    if fa is not None and fb is not None:
        return abs(fa - fb) <= max(rel_tol * max(abs(fa), abs(fb)), 1e-9)
    return str(a).strip().casefold() == str(b).strip().casefold()


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return None


def _row_similarity(gold: Sequence[Any], pred: Sequence[Any], rel_tol: float) -> float:
    """Share of the gold row's cells found in the predicted row (each predicted cell used once).

    Extra predicted columns do not lower it and the column order does not matter.
    """
    if not gold:
        return 1.0 if not pred else 0.0
    unused = list(pred)
    hits = 0
    for g in gold:
        j = next((k for k, p in enumerate(unused) if _close(g, p, rel_tol)), None)
        if j is not None:
            hits += 1
            unused.pop(j)
    return hits / len(gold)


def soft_f1(gold: Sequence[Sequence[Any]], pred: Sequence[Sequence[Any]], *, rel_tol: float = 1e-4,
            max_rows: int = 500) -> dict[str, float]:
    """Soft result match: precision, recall and F1 of rows paired one-to-one by cell overlap.

    Rows are paired by a maximum-weight bipartite matching (Hungarian algorithm,
    ``scipy.optimize.linear_sum_assignment``) on cell overlap with numeric tolerance ``rel_tol``;
    precision = matched weight / predicted rows, recall = matched weight / gold rows.

    Only the first ``max_rows`` rows of each side are compared (cost O(n^3)). Returns ``{"precision",
    "recall", "f1"}`` in [0, 1]; two empty results score 1.
    """
    from scipy.optimize import linear_sum_assignment

    g, p = [list(r) for r in gold[:max_rows]], [list(r) for r in pred[:max_rows]]
    if not g and not p:
        return {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    if not g or not p:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    weights = np.array([[_row_similarity(gr, pr, rel_tol) for pr in p] for gr in g])
    rows, cols = linear_sum_assignment(weights, maximize=True)
    matched = float(weights[rows, cols].sum())
    precision, recall = matched / len(p), matched / len(g)
    f1 = 0.0 if matched == 0 else 2 * precision * recall / (precision + recall)
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}


ERROR_CATEGORIES = ("correct", "planning_failed", "no_executable_candidate", "execution_error", "empty_result",
                    "wrong_result")


def error_category(*, ex: bool, pred_sql: str | None, pred_ok: bool, pred_rows: int, gold_rows: int,
                   plan_failed: bool) -> str:
    """One of :data:`ERROR_CATEGORIES` for a scored question.

    ``planning_failed`` when the planner's plan was rejected and no SQL came out; ``no_executable_candidate``
    when no SQL passed the guard; ``execution_error`` when the predicted SQL fails on re-execution;
    ``empty_result`` when it returns no rows but the gold does; else ``wrong_result``.
    """
    if ex:
        return "correct"
    if not pred_sql:
        return "planning_failed" if plan_failed else "no_executable_candidate"
    if not pred_ok:
        return "execution_error"
    if pred_rows == 0 and gold_rows > 0:
        return "empty_result"
    return "wrong_result"


def sql_category(sql: str, dialect: str = "sqlite") -> str:
    """A structural category of a gold query, for accuracy by category when a dataset has none.

    ``set_op`` (UNION/INTERSECT/EXCEPT), ``nested`` (subquery), ``join_agg``, ``join``, ``aggregate`` or
    ``simple``; ``unparsed`` when sqlglot cannot parse it.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:
        return "unparsed"
    if isinstance(tree, exp.SetOperation) or tree.find(exp.Union, exp.Intersect, exp.Except):
        return "set_op"
    if len(list(tree.find_all(exp.Select))) > 1:
        return "nested"
    join = tree.find(exp.Join) is not None
    agg = tree.find(exp.AggFunc) is not None or tree.args.get("group") is not None
    return "join_agg" if join and agg else "join" if join else "aggregate" if agg else "simple"


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, n_boot: int = 2000, alpha: float = 0.05,
                     seed: int = 0) -> dict[str, float]:
    """Paired bootstrap of the mean difference ``a - b`` over the same questions.

    Question indices are resampled jointly. Returns ``{"diff", "low", "high", "p_le_0"}``: the mean
    difference, its percentile (1 - alpha) interval and the share of resamples with a difference <= 0
    (a one-sided bootstrap p-value for a > b).

    Raises:
        ValueError: ``a`` and ``b`` differ in length.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError("paired bootstrap needs two equally long lists (the same questions)")
    if x.size == 0:
        return {"diff": float("nan"), "low": float("nan"), "high": float("nan"), "p_le_0": float("nan")}
    d = x - y
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, d.size, size=(n_boot, d.size))].mean(axis=1)
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return {"diff": float(d.mean()), "low": float(low), "high": float(high), "p_le_0": float((means <= 0).mean())}
