"""Gradient-boosted trees against the shipped logistic confidence, fitted on the same records (no model calls).

    python trees.py WIDE_ABBREV WIDE_ABBREV_NOFK ../shared/benchmarks/spider-wide ../shared/benchmarks/spider-dev

Fit: the four runs the shipped model was fitted on (its ``fitted_on.files``, 796 answers). Held out: the 90 runs of
``../2026-12-07-unstated-joins/runs.txt`` (6,011 answers; ``nofk`` runs read against the key-dropped copy). Features:
``agent.confidence.FEATURES``. For each setting of scikit-learn's GradientBoostingClassifier (subsample 0.8, seed
0): the AUROC of out-of-fold scores on the fit records (5 folds by database; the figure a choice may use) and the
AUROC on the held-out answers (the figure it may not).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedGroupKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from fit_confidence import load_records, matrix  # noqa: E402


def main() -> None:
    """Fit each setting and print both AUROCs."""
    abbrev, nofk, wide, dev = (Path(a) for a in sys.argv[1:5])
    model = json.loads((ROOT / "agent" / "confidence_model.json").read_text())
    roots = [abbrev, wide, dev]
    fit = load_records([ROOT / f for f in model["fitted_on"]["files"]], roots)
    runs = (ROOT / "benchmarks/results/2026-12-07-unstated-joins/runs.txt").read_text().split()
    held = [r for f in runs for r in load_records([ROOT / f], [nofk] if "nofk" in f else roots)]
    xtr, ytr = matrix(fit)
    xte, yte = matrix(held)
    groups = np.array([str(r.get("db_id")) for r in fit])
    folds = list(StratifiedGroupKFold(5, shuffle=True, random_state=0).split(xtr, ytr, groups))
    print(f"fit {len(ytr)} answers, held out {len(yte)}")
    logistic = make_pipeline(StandardScaler(), LogisticRegression(C=0.03, max_iter=2000))
    oof = cross_val_predict(logistic, xtr, ytr, cv=folds, method="predict_proba")[:, 1]
    p = logistic.fit(xtr, ytr).predict_proba(xte)[:, 1]
    print(f"logistic C=0.03: CV(fit, by db) {roc_auc_score(ytr, oof):.4f}  held-out {roc_auc_score(yte, p):.4f}")
    for depth in (2, 3):
        for n in (100, 200, 400):
            for lr in (0.03, 0.1):
                clf = GradientBoostingClassifier(max_depth=depth, n_estimators=n, learning_rate=lr, subsample=0.8,
                                                 random_state=0)
                oof = cross_val_predict(clf, xtr, ytr, cv=folds, method="predict_proba")[:, 1]
                p = clf.fit(xtr, ytr).predict_proba(xte)[:, 1]
                print(f"depth {depth} n {n} lr {lr}: CV(fit, by db) {roc_auc_score(ytr, oof):.4f}  "
                      f"held-out {roc_auc_score(yte, p):.4f}")


if __name__ == "__main__":
    main()
