"""How well an evaluation run's answer confidence ranks and sorts its answers: risk-coverage, levels, AUROC.

Pure functions over the records of one configuration (the dicts of ``<config>.jsonl``, see
:mod:`eval.scoring`). A record's confidence is its ``confidence`` dict (``score`` 0..1, ``level``, ``reasons``)
and ``confidence_level``; its label is strict EX (``ex``: 1 right, 0 wrong, None for boundary questions, which
are left out of every accuracy here). Records without a confidence (errors, clarifications, follow-up
questions, refusals, runs written before the confidence existed) are not answers to rank and are left out too.

* **Risk-coverage**: the answers sorted by score, highest first (equal scores keep the file's order); keeping
  the top share of them, how many are right. Coverage is a share of the answers with a score and an EX, so at
  100% the accuracy is the EX of those answers, not of every question.
* **Levels**: per level (verified, likely, unsure) the answers, their share and their EX with a 95% Wilson
  score interval (:func:`scipy.stats.binomtest`). Wilson rather than the percentile bootstrap of
  :func:`eval.metrics.bootstrap_ci` used elsewhere in the report: a level holds few answers and its accuracy is
  often near 100%, where the bootstrap interval collapses to a point (20 of 20 right gives [100, 100]; Wilson
  gives [83.9, 100]).
* **AUROC** of the score against EX, by the rank (Mann-Whitney) formula with mid-ranks for ties
  (:func:`scipy.stats.rankdata`): the chance that a right answer scores above a wrong one. scikit-learn is only
  a ``dev`` dependency, so it is not used here; the result equals ``sklearn.metrics.roc_auc_score``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.stats import binomtest, rankdata

LEVELS = ("verified", "likely", "unsure")
"""The confidence levels, most trusted first (:data:`agent.confidence.Level`)."""

COVERAGES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""Shares kept in :func:`risk_coverage_table`."""


def confidence_score(record: dict[str, Any]) -> float | None:
    """The confidence score of one record (None without a confidence)."""
    conf = record.get("confidence")
    score = conf.get("score") if isinstance(conf, dict) else None
    return float(score) if score is not None else None


def confidence_level(record: dict[str, Any]) -> str | None:
    """The confidence level of one record: ``confidence_level``, else ``confidence["level"]`` (None: none)."""
    conf = record.get("confidence")
    level = record.get("confidence_level") or (conf.get("level") if isinstance(conf, dict) else None)
    return str(level) if level else None


def scored_answers(rows: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """Scores (float, shape ``(n,)``) and EX labels (int 0/1, shape ``(n,)``) of the records with both."""
    pairs = [(s, int(r["ex"])) for r in rows if (s := confidence_score(r)) is not None and r.get("ex") is not None]
    return np.array([p[0] for p in pairs], dtype=float), np.array([p[1] for p in pairs], dtype=int)


def auroc(scores: Sequence[float] | np.ndarray, labels: Sequence[int] | np.ndarray) -> float | None:
    """Area under the ROC curve of ``scores`` for the 0/1 ``labels`` (same length ``n``).

    ``(sum of the positives' mid-ranks - n1 (n1 + 1) / 2) / (n1 n0)``; None when either class is missing.

    Raises:
        ValueError: ``scores`` and ``labels`` differ in length.
    """
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=int)
    if s.shape != y.shape:
        raise ValueError(f"{s.size} scores but {y.size} labels")
    n1 = int((y == 1).sum())
    n0 = int(y.size - n1)
    if n1 == 0 or n0 == 0:
        return None
    ranks = rankdata(s)  # average ranks: a tie between a right and a wrong answer counts one half
    return float((ranks[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def risk_coverage(rows: Sequence[dict[str, Any]]) -> list[dict[str, float | int]]:
    """The whole risk-coverage curve: one point per number of answers kept, ``k`` = 1..n.

    Each point is ``{"kept": k, "coverage": k / n, "accuracy": EX mean of the top k, "min_score": the k-th
    highest score}``; [] without scored answers.
    """
    scores, labels = scored_answers(rows)
    order = np.argsort(-scores, kind="stable")
    right = np.cumsum(labels[order])
    n = len(order)
    return [{"kept": k, "coverage": k / n, "accuracy": float(right[k - 1]) / k,
             "min_score": float(scores[order[k - 1]])} for k in range(1, n + 1)]


def risk_coverage_table(rows: Sequence[dict[str, Any]],
                        coverages: Sequence[float] = COVERAGES) -> list[dict[str, float | int]]:
    """Points of :func:`risk_coverage` at the given shares kept (``k = max(1, round(share * n))``).

    Each is ``{"coverage": share asked, "kept", "accuracy", "min_score"}`` (rounded to 4 places); [] without
    scored answers.
    """
    curve = risk_coverage(rows)
    out = []
    for share in coverages if curve else ():
        point = curve[max(1, round(share * len(curve))) - 1]
        out.append({"coverage": share, "kept": point["kept"], "accuracy": round(float(point["accuracy"]), 4),
                    "min_score": round(float(point["min_score"]), 4)})
    return out


def wilson_interval(right: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """The Wilson score interval ``(low, high)`` of ``right`` successes in ``n`` trials; None when ``n`` is 0.

    Raises:
        ValueError: ``right`` is negative or above ``n``.
    """
    if n == 0:
        return None
    ci = binomtest(right, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def level_table(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per level of :data:`LEVELS`: how many answers, their share and their EX with a 95% Wilson interval.

    Each entry is ``{"level", "count" (records with that level), "share" (of the records with a level),
    "scored" (of them, with an EX), "right", "ex", "low", "high", "mean_score"}``; ``ex``, ``low``, ``high`` and
    ``mean_score`` are None when nothing is scored. [] when no record has a level.
    """
    leveled = [r for r in rows if confidence_level(r)]
    out = []
    for level in LEVELS if leveled else ():
        these = [r for r in leveled if confidence_level(r) == level]
        labels = [int(r["ex"]) for r in these if r.get("ex") is not None]
        scores = [s for r in these if (s := confidence_score(r)) is not None]
        interval = wilson_interval(sum(labels), len(labels))
        out.append({"level": level, "count": len(these), "share": round(len(these) / len(leveled), 4),
                    "scored": len(labels), "right": sum(labels),
                    "ex": round(sum(labels) / len(labels), 4) if labels else None,
                    "low": round(interval[0], 4) if interval else None,
                    "high": round(interval[1], 4) if interval else None,
                    "mean_score": round(float(np.mean(scores)), 4) if scores else None})
    return out


def calibration(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The calibration figures of one configuration's records; None when no record has a confidence.

    ``{"answers": n (scored answers: a score and an EX), "ex": their EX mean (None when n is 0), "auroc":
    :func:`auroc` (None with one class), "levels": :func:`level_table`, "risk_coverage":
    :func:`risk_coverage_table`}``.
    """
    if not any(confidence_score(r) is not None or confidence_level(r) for r in rows):
        return None
    scores, labels = scored_answers(rows)
    return {"answers": int(labels.size), "ex": round(float(labels.mean()), 4) if labels.size else None,
            "auroc": None if (a := auroc(scores, labels)) is None else round(a, 4),
            "levels": level_table(rows), "risk_coverage": risk_coverage_table(rows)}
