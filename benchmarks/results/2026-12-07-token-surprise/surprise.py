"""How well does the model's token probability of its SQL separate right answers from wrong ones?

    python surprise.py RUN.jsonl [MORE.jsonl ...]

Reads evaluation records whose candidates carry ``logprob`` (tools.candidate.sql_logprob, recorded from 6d1bb43)
and prints, over the answers that get a confidence: the AUROC of the shipped confidence score, of minus the
chosen candidate's ``surprise`` alone and of two other ways to read the candidates' log-probabilities; then the
shipped score combined with ``surprise`` (logistic regression on the standardized log-odds and ``surprise``, 5 folds by
database, out-of-fold) against the shipped score alone, with a bootstrap interval over databases for the
difference. No model calls.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedGroupKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from fit_confidence import load_records  # noqa: E402

from agent.confidence import confidence_features, load_model  # noqa: E402


def logprobs(rec: dict[str, Any]) -> list[float]:
    """The ``logprob`` of each candidate that ran and has one."""
    return [float(c["logprob"]) for c in rec.get("candidates") or []
            if c.get("status") in ("ok", "empty") and isinstance(c.get("logprob"), int | float)]


def auroc(y: np.ndarray, s: np.ndarray) -> float:
    """AUROC, NaN with one class only."""
    return float(roc_auc_score(y, s)) if 0 < y.sum() < len(y) else math.nan


def main() -> None:
    """Print the figures for the records of the files given."""
    records = [r for f in sys.argv[1:] for r in load_records([Path(f)])]
    records = [r for r in records if logprobs(r)]
    model = load_model()
    feats = [confidence_features(r) for r in records]
    y = np.array([int(r["ex"]) for r in records])
    shipped = np.array([model.score(f) for f in feats])
    surprise = np.array([f["surprise"] for f in feats])
    mean_all = np.array([np.mean(logprobs(r)) for r in records])
    worst = np.array([min(logprobs(r)) for r in records])
    groups = np.array([re.sub(r"_abbr_[0-9a-f]+$", "", str(r.get("db_id"))) for r in records])
    print(f"{len(y)} answers with log-probabilities, {len(set(groups))} databases, EX {y.mean():.3f}")
    print(f"  shipped score                          AUROC {auroc(y, shipped):.4f}")
    print(f"  minus surprise (chosen candidate)      AUROC {auroc(y, -surprise):.4f}")
    print(f"  mean logprob over candidates that ran  AUROC {auroc(y, mean_all):.4f}")
    print(f"  lowest candidate logprob               AUROC {auroc(y, worst):.4f}")
    for lo, hi in ((0, 0.05), (0.05, 0.1), (0.1, 0.2), (0.2, 0.4), (0.4, 99)):
        inside = (surprise >= lo) & (surprise < hi)
        if inside.any():
            print(f"  surprise {lo:.2f}-{hi:<5}: {inside.sum():4d} answers, {y[inside].mean():.3f} right")
    logit = np.log(np.clip(shipped, 1e-6, 1 - 1e-6) / np.clip(1 - shipped, 1e-6, 1))
    folds = list(StratifiedGroupKFold(5, shuffle=True, random_state=0).split(logit, y, groups))

    def stack() -> Any:
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0))

    base_oof = cross_val_predict(stack(), logit[:, None], y, cv=folds, method="predict_proba")[:, 1]
    print(f"  shipped log-odds refitted alone, out of fold AUROC {auroc(y, base_oof):.4f}")
    rng = np.random.default_rng(0)
    names = sorted(set(groups))
    rows = {g: np.flatnonzero(groups == g) for g in names}
    samples = [np.concatenate([rows[g] for g in rng.choice(names, len(names))]) for _ in range(2000)]
    for title, signal in (("surprise (chosen)", surprise), ("mean over candidates", mean_all),
                          ("lowest candidate", worst)):
        x = np.column_stack([logit, signal])
        oof = cross_val_predict(stack(), x, y, cv=folds, method="predict_proba")[:, 1]
        weight = stack().fit(x, y)[-1].coef_[0][1]
        diffs = [auroc(y[p], oof[p]) - auroc(y[p], base_oof[p]) for p in samples if 0 < y[p].sum() < len(p)]
        lo, hi = np.percentile(diffs, [2.5, 97.5])
        print(f"  + {title:22s} out of fold AUROC {auroc(y, oof):.4f}, difference "
              f"{auroc(y, oof) - auroc(y, base_oof):+.4f} [{lo:+.4f}, {hi:+.4f}] (bootstrap over databases); "
              f"standardized weight {weight:+.3f}")

if __name__ == "__main__":
    main()
