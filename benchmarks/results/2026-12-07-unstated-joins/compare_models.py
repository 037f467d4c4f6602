"""Two confidence models on the same recorded answers: pooled AUROC, and verified coverage and accuracy.

    python compare_models.py OLD.json NEW.json WIDE_ABBREV WIDE_ABBREV_NOFK RUN.jsonl ...

Databases as in measure.py (``nofk`` runs against WIDE_ABBREV_NOFK). No model calls.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from fit_confidence import load_records  # noqa: E402

from agent.confidence import ConfidenceModel, assess  # noqa: E402


def main() -> None:
    """Read the arguments, tabulate, print."""
    old_path, new_path, abbrev, nofk, *runs = (Path(a) for a in sys.argv[1:])
    shared = ROOT.parent / "shared" / "benchmarks"
    models = {p.name: ConfidenceModel.model_validate_json(p.read_text()) for p in (old_path, new_path)}
    records = []
    for run in runs:
        roots = [nofk] if "nofk" in run.name else [abbrev, shared / "spider-wide", shared / "spider-dev"]
        records += load_records([run], roots)
    y = [int(r["ex"]) for r in records]
    print(f"{len(runs)} runs, {len(records)} answers, EX {sum(y) / len(y):.3f}")
    all_scores = []
    for name, model in models.items():
        out = [assess(r, model) for r in records]
        scores = [c.score if c else 0.0 for c in out]
        all_scores.append(np.array(scores))
        ver = [i for i, c in enumerate(out) if c and c.level == "verified"]
        right = sum(y[i] for i in ver)
        print(f"{name:24s} AUROC {roc_auc_score(y, scores):.4f}; verified {len(ver)} = {len(ver) / len(y):.3f} of "
              f"answers, {right / max(len(ver), 1):.3f} right")
    # paired bootstrap over databases (an answer's database is drawn with it), 1,000 draws, seed 0
    labels = np.array(y)
    dbs = np.array([str(r.get("db_id")) for r in records])
    names = np.unique(dbs)
    rows = {d: np.flatnonzero(dbs == d) for d in names}
    rng = np.random.default_rng(0)
    diffs = []
    for _ in range(1000):
        idx = np.concatenate([rows[d] for d in rng.choice(names, len(names))])
        if 0 < labels[idx].sum() < len(idx):
            diffs.append(roc_auc_score(labels[idx], all_scores[1][idx]) - roc_auc_score(labels[idx], all_scores[0][idx]))
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    print(f"AUROC new - old: {roc_auc_score(labels, all_scores[1]) - roc_auc_score(labels, all_scores[0]):+.4f} "
          f"[{lo:+.4f}, {hi:+.4f}] (95% bootstrap over {len(names)} databases)")


if __name__ == "__main__":
    main()
