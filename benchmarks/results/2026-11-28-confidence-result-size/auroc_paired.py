"""Paired bootstrap of the AUROC difference between two confidence models on the same evaluation records.

    python auroc_paired.py NEW_MODEL.json OLD_MODEL.json RECORDS.jsonl [MORE.jsonl ...]

For each records file prints both AUROCs, the difference (new - old) with its 95% percentile-bootstrap interval
(2,000 resamples of the answers, seed 2026), and the share of answers each model calls verified with its
accuracy.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from agent.confidence import ConfidenceModel, confidence_features  # noqa: E402
from scripts.fit_confidence import load_records  # noqa: E402


def scores(model: ConfidenceModel, records: list[dict]) -> tuple[np.ndarray, list[str]]:
    """Scores (shape (n,), 0..1) and levels of ``model`` for evaluation records, in their order."""
    feats = [confidence_features(r) for r in records]
    s = np.array([model.score(f) for f in feats])
    return s, [model.level(v, f) for v, f in zip(s, feats, strict=True)]


def main() -> None:
    """Print one line per records file named on the command line (see the module docstring)."""
    new, old = (ConfidenceModel.model_validate_json(Path(p).read_text()) for p in sys.argv[1:3])
    rng = np.random.default_rng(2026)
    for path in sys.argv[3:]:
        recs = load_records([Path(path)])
        y = np.array([int(r["ex"]) for r in recs])
        (a, la), (b, lb) = scores(new, recs), scores(old, recs)
        diffs = []
        for _ in range(2000):
            i = rng.integers(0, len(y), len(y))
            if 0 < y[i].sum() < len(i):
                diffs.append(roc_auc_score(y[i], a[i]) - roc_auc_score(y[i], b[i]))
        lo, hi = np.percentile(diffs, [2.5, 97.5])
        va, vb = np.array([v == "verified" for v in la]), np.array([v == "verified" for v in lb])
        print(f"{Path(path).name}: {len(y)} answers, EX {y.mean():.3f}; AUROC new {roc_auc_score(y, a):.3f}, "
              f"old {roc_auc_score(y, b):.3f}, difference {roc_auc_score(y, a) - roc_auc_score(y, b):+.3f} "
              f"[{lo:+.3f}, {hi:+.3f}]; verified new {va.mean():.3f} of answers, {y[va].mean():.3f} right; "
              f"old {vb.mean():.3f}, {y[vb].mean():.3f} right")


if __name__ == "__main__":
    main()
