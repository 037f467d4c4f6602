"""Fit the answer confidence model (agent/confidence.py) on evaluation records and print how well it ranks.

    python scripts/fit_confidence.py RUN/no_examples.jsonl [MORE.jsonl ...] [--test HELD_OUT.jsonl ...]
    python scripts/fit_confidence.py --test HELD_OUT.jsonl          # the shipped model, no refit
    python scripts/fit_confidence.py --stack surprise RUN.jsonl ... # keep the weights, add a signal

Reads the JSONL records of ``nl2sql eval`` (``single_shot`` records are skipped: one candidate, no vote), keeps
the answers that get a level (status ok or empty, kind answer, EX scored) and fits a logistic regression
(scikit-learn, on standardized features; the coefficients are folded back to the raw features so the runtime
needs no scaler) of strict EX on :func:`agent.confidence.confidence_features`.

Thresholds: ``verified`` is the lowest score whose kept answers (score >= it, at least ``--min-kept``, 20, of
them) are at least ``--target`` (0.9) right on the fit records (none: 1.0, nothing is verified); ``likely`` is 0.5
(an answer more likely right than wrong), or ``verified`` when that is lower.

With ``--stack FEATURE ...`` the current model's weights are kept and only a scale of its log-odds and the named
features' weights are fitted (:func:`stack_fit`): a signal that only recent runs record (``surprise``, from token
log-probabilities) joins without refitting every weight on too few answers.

Writes the model JSON (``--out``, default the shipped agent/confidence_model.json; ``--dry-run`` writes nothing)
and prints, on the fit records and on each ``--test`` set: AUROC (on the fit set also 5-fold cross-validated,
folds by database when the records span five or more; an abbreviated copy counts as its original), a calibration
table (score bins: count, mean score, share right), the risk-coverage curve (share kept vs accuracy of the kept
answers) and per level the count and share right. Needs no model server.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.confidence import (  # noqa: E402
    FEATURES,
    MODEL_PATH,
    ConfidenceModel,
    answered,
    confidence_features,
    load_model,
)
from database.connection import Database  # noqa: E402
from tools.join_links import unstated_joins  # noqa: E402
from tools.opaque_reads import guessed_columns, unread_terms  # noqa: E402

C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0)
"""Inverse L2 strengths tried when ``--c`` is not given."""

HOLD_BACK = ["term_checks", "degenerate", "guessed_columns", "unread_terms", "text_order", "repeated_output"]
"""Signals that keep an answer below verified: some lack from records written before they existed, the others are
too rare to fit (numbers ordered as text, a column shown twice)."""


def opaque_signals(rec: dict[str, Any], roots: list[Path], dbs: dict[str, Any]) -> dict[str, Any]:
    """``rec`` with ``guessed_columns`` and ``unread_terms`` computed when it lacks them (written before 2026-12-05),
    and ``unstated_joins`` / ``keys_stated`` (tools.join_links; written before 3bcddf8, 2026-12-07).

    The database is the first ``ROOT/database/<db_id>/*.sqlite`` of ``roots`` (Spider layout); without one the
    record is returned as it is. ``dbs`` caches the opened databases by ``db_id``.
    """
    if ("unread_terms" in rec and "keys_stated" in rec) or not roots or not rec.get("pred_sql"):
        return rec
    db_id = str(rec.get("db_id") or "")
    if db_id not in dbs:
        found = [f for root in roots for f in sorted((root / "database" / db_id).glob("*.sqlite"))]
        dbs[db_id] = Database(f"sqlite:///{found[0]}") if found else None
    db = dbs[db_id]
    if db is None:
        return rec
    out = dict(rec)
    if "unread_terms" not in rec:
        unread = unread_terms(db, False, str(rec.get("question") or ""), rec["pred_sql"])
        out |= {"guessed_columns": rec.get("guessed_columns") or guessed_columns(db, False, rec["pred_sql"]),
                "unread_terms": list(unread.terms) if unread else []}
    if "keys_stated" not in rec:
        unstated = unstated_joins(db, rec["pred_sql"])
        out |= {"unstated_joins": unstated.lines() if unstated else [],
                "keys_stated": bool(unstated and unstated.states_keys)}
    return out


def load_records(paths: list[Path], roots: list[Path] | None = None) -> list[dict[str, Any]]:
    """The records of ``paths`` that get a level and have a strict EX (single_shot records and lines that are not
    JSON skipped); with ``roots``, the opaque-column signals are computed for records that lack them
    (:func:`opaque_signals`)."""
    dbs: dict[str, Any] = {}
    out = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:  # e.g. the last line of a run still being written
                print(f"skipped a line of {path} that is not JSON", file=sys.stderr)
                continue
            if rec.get("config") != "single_shot" and rec.get("ex") is not None and answered(rec):
                out.append(opaque_signals(rec, roots or [], dbs))
    return out


def matrix(records: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """Features (rows in :data:`FEATURES` order) and labels (strict EX, 0/1) of ``records``."""
    x = np.array([[confidence_features(r)[n] for n in FEATURES] for r in records], dtype=float)
    y = np.array([int(r["ex"]) for r in records], dtype=int)
    return x.reshape(len(records), len(FEATURES)), y


def fit(x: np.ndarray, y: np.ndarray, c: float) -> tuple[list[float], float]:
    """Raw-feature coefficients and intercept of an L2 logistic regression fitted on standardized ``x``."""
    from sklearn.linear_model import LogisticRegression

    mean, std = x.mean(axis=0), x.std(axis=0)
    varies = std > 0
    z = (x[:, varies] - mean[varies]) / std[varies]
    clf = LogisticRegression(C=c, max_iter=1000).fit(z, y)
    coef = np.zeros(x.shape[1])
    coef[varies] = clf.coef_[0] / std[varies]
    intercept = float(clf.intercept_[0] - float(np.sum(coef * mean)))
    return [round(float(v), 6) for v in coef], round(intercept, 6)


def stack_fit(base: ConfidenceModel, names: list[str], x: np.ndarray, y: np.ndarray,
              c: float) -> tuple[list[float], float]:
    """Raw-feature coefficients and intercept of ``base`` restacked: its log-odds rescaled, plus weights for ``names``.

    A logistic regression of ``y`` on [``base``'s log-odds, the features ``names``] (Platt scaling with new
    signals: three parameters for one new feature, so a few hundred answers suffice where refitting every
    weight would not), folded back into one weight per feature of :data:`FEATURES`: ``a * base weight`` plus the
    new weight, intercept ``a * base intercept + b``. Raises ValueError for a name not in :data:`FEATURES`.
    """
    weights = dict(zip(base.features, base.coefficients, strict=True))
    old = np.array([weights.get(n, 0.0) for n in FEATURES])
    cols = [FEATURES.index(n) for n in names]
    coef_s, inter_s = fit(np.column_stack([x @ old + base.intercept, x[:, cols]]), y, c)
    coef = coef_s[0] * old
    for k, i in enumerate(cols):
        coef[i] += coef_s[k + 1]
    return [round(float(v), 6) for v in coef], round(coef_s[0] * base.intercept + inter_s, 6)


def database_group(db_id: str) -> str:
    """The database a record's ``db_id`` stands for: an abbreviated copy (``<name>_abbr_<hex>``, written by
    scripts/abbreviate_db.py) counts as its original, so cross-validation never scores a database through its copy."""
    return re.sub(r"_abbr_[0-9a-f]+$", "", db_id)


def cv_auroc(x: np.ndarray, y: np.ndarray, c: float, folds: int = 5,
             groups: np.ndarray | None = None,
             fitter: Callable[[np.ndarray, np.ndarray, float], tuple[list[float], float]] = fit) -> float | None:
    """AUROC of out-of-fold scores (stratified ``folds``-fold); None when a class has fewer than ``folds``.

    With ``groups`` (one label per row, e.g. the database), no group is split between folds
    (``StratifiedGroupKFold``): the score of a question comes from a model that never saw its database, the way
    the shipped model meets an analyst's database. ``fitter`` fits one fold (:func:`fit`, or :func:`stack_fit`
    with its first two arguments bound).
    """
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    if min(int(y.sum()), int(len(y) - y.sum())) < folds:
        return None
    scores = np.zeros(len(y))
    splitter = (StratifiedGroupKFold(folds, shuffle=True, random_state=0).split(x, y, groups) if groups is not None
                else StratifiedKFold(folds, shuffle=True, random_state=0).split(x, y))
    for train, test in splitter:
        coef, intercept = fitter(x[train], y[train], c)
        scores[test] = 1 / (1 + np.exp(-(x[test] @ np.array(coef) + intercept)))
    return float(roc_auc_score(y, scores))


def verified_threshold(scores: np.ndarray, y: np.ndarray, target: float, min_kept: int) -> float:
    """Lowest score whose kept answers (score >= it, at least ``min_kept`` of them) are at least ``target``
    right; 1.0 (nothing is verified) when no score is."""
    for t in np.unique(scores):
        kept = scores >= t
        if kept.sum() >= min_kept and y[kept].mean() >= target:
            return float(t)
    return 1.0


def report(title: str, model: ConfidenceModel, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Print AUROC, calibration, risk-coverage and per-level figures of ``model`` on ``records``; returns them."""
    from sklearn.metrics import roc_auc_score

    feats = [confidence_features(r) for r in records]
    scores = np.array([model.score(f) for f in feats])
    levels = [model.level(s, f) for s, f in zip(scores, feats, strict=True)]
    y = np.array([int(r["ex"]) for r in records])
    auroc = float(roc_auc_score(y, scores)) if 0 < y.sum() < len(y) else None
    print(f"\n== {title}: {len(y)} answers, EX {y.mean():.3f}")
    print(f"AUROC: {auroc:.3f}" if auroc is not None else "AUROC: - (one class only)")
    print("\ncalibration     count  mean score  share right")
    edges = np.linspace(0, 1, 11)
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        inside = (scores >= lo) & ((scores < hi) | (hi == 1.0))
        if inside.any():
            print(f"  {lo:.1f}-{hi:.1f}      {inside.sum():5d}  {scores[inside].mean():10.3f}  {y[inside].mean():11.3f}")
    print("\nrisk-coverage   kept  share kept  accuracy of kept")
    order = np.argsort(-scores, kind="stable")
    for share in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        k = max(1, round(share * len(y)))
        print(f"  {share:4.0%}         {k:5d}  {k / len(y):10.3f}  {y[order[:k]].mean():16.3f}")
    print("\nlevel       count  share of answers  share right")
    per_level = {}
    for level in ("verified", "likely", "unsure"):
        mask = np.array([lv == level for lv in levels])
        per_level[level] = {"count": int(mask.sum()), "right": float(y[mask].mean()) if mask.any() else None}
        right = f"{y[mask].mean():11.3f}" if mask.any() else "          -"
        print(f"  {level:9s} {mask.sum():5d}  {mask.mean():16.3f}  {right}")
    return {"auroc": auroc, "levels": per_level}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", nargs="*", type=Path, help="evaluation JSONL files to fit on")
    parser.add_argument("--test", nargs="+", type=Path, default=[], help="held-out JSONL files (no refit)")
    parser.add_argument("--out", type=Path, default=MODEL_PATH, help="where to write the model JSON")
    parser.add_argument("--dry-run", action="store_true", help="fit and print, write nothing")
    parser.add_argument("--target", type=float, default=0.9, help="accuracy the verified answers must reach")
    parser.add_argument("--min-kept", type=int, default=20,
                        help="fewest fit answers the verified threshold may keep (a lone answer proves nothing)")
    parser.add_argument("--databases", nargs="+", type=Path, default=[],
                        help="Spider-layout roots of the records' databases: records written before 2026-12-05 get "
                        "their guessed-column and unread-term signals computed from the database")
    parser.add_argument("--stack", nargs="+", default=[], metavar="FEATURE",
                        help="keep the current model's weights (--base) and fit only a scale of its log-odds "
                        "plus weights for these features (stack_fit), e.g. surprise on runs that record it")
    parser.add_argument("--base", type=Path, default=None,
                        help="with --stack: the model whose weights are kept (default: the --out file)")
    parser.add_argument("--c", type=float, default=None,
                        help=f"inverse L2 strength (default: the best of {C_GRID} by cross-validated AUROC)")
    args = parser.parse_args(argv)
    if not args.records and not args.test:
        parser.error("give records to fit on, --test records, or both")
    if args.records:
        records = load_records(args.records, args.databases)
        x, y = matrix(records)
        if len(set(y.tolist())) < 2:
            print("the fit records need right and wrong answers", file=sys.stderr)
            return 1
        groups = np.array([database_group(str(r.get("db_id") or "")) for r in records])
        grouped = len(set(groups.tolist())) >= 5
        fitter = fit
        if args.stack:
            unknown = sorted(set(args.stack) - set(FEATURES))
            if unknown:
                parser.error(f"unknown feature(s) {', '.join(unknown)}; known: {', '.join(FEATURES)}")
            base = load_model(args.base or args.out)
            fitter = functools.partial(stack_fit, base, args.stack)
            report(f"current model {args.base or args.out} (before stacking)", base, records)
        cvs = {c: cv_auroc(x, y, c, groups=groups if grouped else None, fitter=fitter)
               for c in ([args.c] if args.c else C_GRID)}
        c = max(cvs, key=lambda k: cvs[k] or 0.0)
        coef, intercept = fitter(x, y, c)
        draft = ConfidenceModel(features=list(FEATURES), coefficients=coef, intercept=intercept, verified=1.0,
                                likely=0.5, hold_back=HOLD_BACK)
        scores = np.array([draft.score(dict(zip(FEATURES, row, strict=True))) for row in x])
        verified = verified_threshold(scores, y, args.target, args.min_kept)
        kept = scores >= verified
        fitted_on = {"files": [str(p) for p in args.records], "answers": len(y), "ex": round(float(y.mean()), 4),
                     "target": args.target, "min_kept": args.min_kept, "c": c, "cv_auroc": round(cvs[c] or 0.0, 4),
                     "cv_by_database": grouped, "date": datetime.now(UTC).date().isoformat(),
                     **({"stacked": args.stack, "stacked_on": base.fitted_on} if args.stack else {}),
                     **({"databases": [str(p) for p in args.databases]} if args.databases else {})}
        model = draft.model_copy(update={"verified": verified, "likely": min(0.5, verified), "fitted_on": fitted_on})
        print(f"fitted on {len(y)} answers from {len(args.records)} file(s); EX {y.mean():.3f}")
        print(f"5-fold cross-validated AUROC{' (folds by database)' if grouped else ''} by C: " + ", ".join(
            f"{k}: {v:.3f}" if v is not None else f"{k}: -" for k, v in cvs.items()) + f"; chosen C {c}")
        right = f"{y[kept].mean():.3f} right" if kept.any() else "no answer reaches the target"
        print(f"verified threshold {verified:.3f}: keeps {kept.mean():.3f} of the answers ({kept.sum()}), {right}; "
              f"likely threshold {model.likely:.3f}")
        print("coefficients (raw features): " + ", ".join(
            f"{n} {c:+.3f}" for n, c in zip(FEATURES, coef, strict=True) if c) + f"; intercept {intercept:+.3f}")
        report("fit records", model, records)
        if not args.dry_run:
            args.out.write_text(model.model_dump_json(indent=2) + "\n", encoding="utf-8")
            load_model.cache_clear()
            print(f"\nwrote {args.out}")
    else:
        model = load_model(args.out)
    for path in args.test:
        report(f"test {path}", model, load_records([path], args.databases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
