"""Figures of an evaluation run, per configuration and between configurations.

Per configuration, every mean with its bootstrap 95% interval; between configurations, paired bootstrap
intervals of the differences on the questions both answered.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import numpy as np

from eval.metrics import ERROR_CATEGORIES, bootstrap_ci, paired_bootstrap

BASELINE = "single_shot"

MEANS = ("ex", "ex_tolerant", "kind_correct", "judge_correct", "soft_f1", "latency_s", "llm_calls", "prompt_tokens",
         "cached_tokens", "completion_tokens", "cost_usd")
"""Per-question fields averaged (``judge_correct`` over the questions the judge decided)."""


def _ci(values: list[float]) -> dict[str, float | int]:
    mean, low, high = bootstrap_ci(values)
    return {"mean": round(mean, 4), "low": round(low, 4), "high": round(high, 4), "n": len(values)}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One configuration's figures.

    ``{field: {"mean", "low", "high", "n"}}`` for :data:`MEANS`, latency p50/p95, error categories (counts),
    EX by category (mean with interval), shares of judge and verifier use inside the agent, and per confidence
    level its share and EX (:func:`confidence_levels`).
    """
    out: dict[str, Any] = {"questions": len(rows)}
    for key in MEANS:
        values = [float(r[key]) for r in rows if r.get(key) is not None]
        out[key] = _ci(values)
    latencies = [float(r["latency_s"]) for r in rows]
    out["latency_p50_s"] = round(float(np.quantile(latencies, 0.5)), 3) if rows else 0.0
    out["latency_p95_s"] = round(float(np.quantile(latencies, 0.95)), 3) if rows else 0.0
    out.update(latency_by_cache(rows))
    counts = Counter(r["error_category"] for r in rows)
    out["error_categories"] = {c: counts.get(c, 0) for c in [*ERROR_CATEGORIES, *sorted(
        k for k in counts if k not in ERROR_CATEGORIES)]}
    out["ex_by_category"] = {cat: _ci([float(r["ex"]) for r in rows if r["category"] == cat and r["ex"] is not None])
                             for cat in sorted({r["category"] for r in rows})}
    kinds = sorted({str(r.get("expect") or "answer") for r in rows})
    out["kind_accuracy_by_expected"] = {k: _ci([float(r["kind_correct"]) for r in rows if (r.get("expect") or "answer") == k
                                                and r.get("kind_correct") is not None]) for k in kinds}
    out["agent_judge_share"] = round(sum(bool(r.get("judge_called")) for r in rows) / max(1, len(rows)), 3)
    out["verifier_share"] = round(sum(bool(r.get("verifier_needed")) for r in rows) / max(1, len(rows)), 3)
    out["confidence_levels"] = confidence_levels(rows)
    return out


def latency_by_cache(rows: list[dict[str, Any]]) -> dict[str, float | int]:
    """Median and p95 seconds of cold and warm questions, in the run's answering order.

    A question is *cold* when it is the first one of its database (``db_id``) in ``rows``: the model server's
    prompt cache holds nothing of that schema yet, so its first call reads the whole schema prefix (~40 s for a
    3k-token prefix on 2 cores). Every later question of the database is *warm*; an analyst's session is almost
    all warm questions, so the latency targets are read on those. Returns ``{"latency_warm_p50_s",
    "latency_warm_p95_s", "latency_cold_p50_s", "latency_cold_p95_s", "warm_questions"}`` (seconds; 0.0 where
    a group is empty). Rows answered in parallel (``--workers`` > 1) still split by first appearance.
    """
    seen: set[str] = set()
    groups: dict[str, list[float]] = {"warm": [], "cold": []}
    for row in rows:
        db = str(row.get("db_id") or "")
        groups["warm" if db in seen else "cold"].append(float(row["latency_s"]))
        seen.add(db)
    out: dict[str, float | int] = {"warm_questions": len(groups["warm"])}
    for name, values in groups.items():
        for label, q in (("p50", 0.5), ("p95", 0.95)):
            out[f"latency_{name}_{label}_s"] = round(float(np.quantile(values, q)), 3) if values else 0.0
    return out


def confidence_levels(rows: list[dict[str, Any]]) -> dict[str, dict[str, float | int | None]]:
    """Per confidence level (verified, likely, unsure): ``count``, ``share`` and ``ex``.

    ``share`` is of the rows with a level, ``ex`` the strict EX mean (None without scored rows); {} when no row
    has a ``confidence_level`` (runs written before it existed).
    """
    leveled = [r for r in rows if r.get("confidence_level")]
    out: dict[str, dict[str, float | int | None]] = {}
    for level in ("verified", "likely", "unsure") if leveled else ():
        these = [r for r in leveled if r["confidence_level"] == level]
        scored = [float(r["ex"]) for r in these if r.get("ex") is not None]
        out[level] = {"count": len(these), "share": round(len(these) / len(leveled), 3),
                      "ex": round(sum(scored) / len(scored), 4) if scored else None}
    return out


def compare(by_config: dict[str, list[dict[str, Any]]],
            keys: tuple[str, ...] = ("ex", "ex_tolerant", "soft_f1", "latency_s", "llm_calls")
            ) -> list[dict[str, Any]]:
    """Paired bootstrap of ``a - b`` for every pair of configurations and each of ``keys``.

    Computed on the questions both have (matched by ``qid``): ``{"a", "b", "metric", "n", "diff", "low",
    "high", "p_le_0"}``, on the questions where both rows have the metric (boundary questions have no EX;
    older runs lack newer metrics). The baseline ``single_shot`` is always ``b``, so its rows read as "gain over the
    baseline".
    """
    out = []
    names = [n for n in by_config if n != BASELINE] + [n for n in by_config if n == BASELINE]
    for a, b in itertools.combinations(names, 2):
        ra = {r["qid"]: r for r in by_config[a]}
        rb = {r["qid"]: r for r in by_config[b]}
        common = sorted(set(ra) & set(rb))
        for key in keys:
            both = [q for q in common if ra[q].get(key) is not None and rb[q].get(key) is not None]
            if not both:
                continue  # e.g. a run written before the metric existed
            stats = paired_bootstrap([float(ra[q][key]) for q in both], [float(rb[q][key]) for q in both])
            out.append({"a": a, "b": b, "metric": key, "n": len(both),
                        **{k: round(v, 4) for k, v in stats.items()}})
    return out
