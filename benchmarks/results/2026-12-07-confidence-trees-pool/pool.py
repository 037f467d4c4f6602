"""Logistic against gradient-boosted trees for the confidence, fitted on the December pool (no model calls).

    python pool.py WIDE_ABBREV WIDE_ABBREV_NOFK ../shared/benchmarks/spider-wide ../shared/benchmarks/spider-dev \
        [FRESH.jsonl ...]

Fit pool: the live agent runs of ``../2026-12-07-unstated-joins/runs.txt`` on the wide set's databases (original,
abbreviated and key-dropped copies); left out of it: the demo runs (the demo's test half is not for building),
Spider dev runs (kept as a test: databases the pool never saw), single-shot runs and record-less replays. Folds and
groups: the database with the abbreviation suffix removed, so a copy and its original are never split. For each
setting: out-of-fold AUROC on the pool (5 folds by database, the figure a choice may use), then the chosen
settings' AUROC on the test sets: Spider dev 200 (8557128), the four November runs the shipped model was fitted on,
and any FRESH runs given.
"""

from __future__ import annotations

import json
import re
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

LEFT_OUT = re.compile(r"demo|spider200|single-shot|replay|latency-per-call|flight4-grown")


def base(db_id: object) -> str:
    """The database a copy was made from (``farm_abbr_1a2b3c`` -> ``farm``)."""
    return re.sub(r"_abbr_[0-9a-f]+$", "", str(db_id))


def main() -> None:
    """Print the pool's out-of-fold AUROC per setting and the test AUROCs of the best of each kind."""
    abbrev, nofk, wide, dev = (Path(a) for a in sys.argv[1:5])
    fresh = [Path(a) for a in sys.argv[5:]]
    roots = [abbrev, wide, dev]
    runs = (ROOT / "benchmarks/results/2026-12-07-unstated-joins/runs.txt").read_text().split()
    pool = [r for f in runs if not LEFT_OUT.search(f)
            for r in load_records([ROOT / f], [nofk] if "nofk" in f else roots)]
    model = json.loads((ROOT / "agent" / "confidence_model.json").read_text())
    tests = {"spider dev 200 (8557128)": load_records(
                [ROOT / "benchmarks/results/2026-12-07-large-tables/spider200-with_examples-8557128.jsonl"], roots),
             "November fit runs (796)": load_records([ROOT / f for f in model["fitted_on"]["files"]], roots)}
    for f in fresh:
        tests[f.name] = load_records([f], roots)
    x, y = matrix(pool)
    groups = np.array([base(r.get("db_id")) for r in pool])
    folds = list(StratifiedGroupKFold(5, shuffle=True, random_state=0).split(x, y, groups))
    print(f"pool: {len(y)} answers, {len(set(groups))} databases, EX {y.mean():.3f}")
    settings: dict[str, object] = {
        f"logistic C {c}": make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000))
        for c in (0.03, 0.1, 0.3, 1.0)}
    for depth in (2, 3):
        for n in (100, 200, 400):
            for lr in (0.03, 0.1):
                settings[f"trees depth {depth} n {n} lr {lr}"] = GradientBoostingClassifier(
                    max_depth=depth, n_estimators=n, learning_rate=lr, subsample=0.8, random_state=0)
    cv = {}
    for name, clf in settings.items():
        oof = cross_val_predict(clf, x, y, cv=folds, method="predict_proba")[:, 1]
        cv[name] = roc_auc_score(y, oof)
        print(f"  {name:32s} CV(pool, by db) {cv[name]:.4f}", flush=True)
    best = {kind: max((n for n in cv if n.startswith(kind)), key=cv.__getitem__) for kind in ("logistic", "trees")}
    for kind, name in best.items():
        clf = settings[name].fit(x, y)
        line = [f"best {kind} ({name}): CV {cv[name]:.4f}"]
        for title, recs in tests.items():
            xt, yt = matrix(recs)
            line.append(f"{title} {roc_auc_score(yt, clf.predict_proba(xt)[:, 1]):.4f} (n {len(yt)})")
        print("; ".join(line))


if __name__ == "__main__":
    main()
