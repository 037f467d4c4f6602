"""Do signals the confidence model lacks rank answers better? Cross-validated on recorded runs (no model server).

    python signals.py RECORDS.jsonl=SPIDER_FOLDER [MORE.jsonl=FOLDER ...]

For every answer that gets a confidence level (as scripts/fit_confidence.py keeps them), the candidates that ran
are executed again on their database (read-only, under the guard and timeout of `Database.run_query`) and grouped by result as the agent's vote groups them,
which gives per answer: ``plain_agrees`` / ``whole_agrees`` (the hint-free plain or whole-schema candidate
returned the chosen result), ``groups`` (distinct results) and ``runner_up`` (share of the second largest
group); and from the question over its database's tables: ``unnamed`` (terms no readable name accounts for,
:func:`tools.question_terms.unnamed_terms`), ``unnamed_any`` and ``q_words``. A logistic regression on the shipped
features (:data:`agent.confidence.FEATURES`) is compared with one that adds each family, 5-fold cross-validated
with folds by database (an abbreviated copy counts as its original), printing AUROC and the share of answers
kept at >= 90% right (at least 20 kept), overall and per file.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from agent.confidence import FEATURES, answered, confidence_features  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from scripts.fit_confidence import load_records  # noqa: E402
from tools.execution import result_signature  # noqa: E402
from tools.question_terms import unnamed_terms  # noqa: E402

FAMILIES = {"strategy agreement": ["plain_agrees", "whole_agrees", "groups", "runner_up"],
            "question coverage": ["unnamed", "unnamed_any", "q_words"]}


def signature(db: Database, sql: str) -> str | None:
    """The result signature of ``sql`` on ``db`` (None when it fails)."""
    res = db.run_query(sql, row_cap=100_000)
    return result_signature(res) if res.ok else None


def extra_signals(rec: dict[str, Any], db: Database, tables: list[Any]) -> dict[str, float]:
    """The candidate signals of :data:`FAMILIES` for one record."""
    ran = [(c["strategy"], signature(db, c["sql"])) for c in rec.get("candidates") or []
           if c.get("status") in ("ok", "empty") and c.get("sql")]
    chosen = signature(db, rec["pred_sql"]) if rec.get("pred_sql") else None
    sizes = sorted((sum(g == s for _, g in ran) for s in {g for _, g in ran}), reverse=True)
    terms = unnamed_terms(rec["question"], tables)
    return {"plain_agrees": float(any(s == "plain" and g == chosen for s, g in ran)),
            "whole_agrees": float(any(s == "whole_schema" and g == chosen for s, g in ran)),
            "groups": float(len(sizes)), "runner_up": sizes[1] / len(ran) if len(sizes) > 1 else 0.0,
            "unnamed": float(len(terms)), "unnamed_any": float(bool(terms)),
            "q_words": float(len(rec["question"].split()))}


def kept_at_90(p: np.ndarray, y: np.ndarray) -> float:
    """Largest share of answers kept, best scores first, whose accuracy is >= 0.9 (at least 20 kept)."""
    order = np.argsort(-p)
    accuracy = np.cumsum(y[order]) / np.arange(1, len(y) + 1)
    ok = [i for i in range(19, len(y)) if accuracy[i] >= 0.9]
    return (max(ok) + 1) / len(y) if ok else 0.0


def cross_validated(x: np.ndarray, y: np.ndarray, folds: np.ndarray) -> np.ndarray:
    """Out-of-fold probabilities of a standardized L2 logistic regression (C 0.1), folds by ``folds``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    p = np.zeros(len(y))
    for train, test in GroupKFold(5).split(x, y, folds):
        model = make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=2000)).fit(x[train], y[train])
        p[test] = model.predict_proba(x[test])[:, 1]
    return p


def main(argv: list[str]) -> int:
    """Print the comparison; returns the exit code."""
    from sklearn.metrics import roc_auc_score

    warnings.filterwarnings("ignore")
    rows: list[tuple[str, str, int, dict[str, float]]] = []
    started = time.perf_counter()
    for spec in argv:
        path, folder = spec.split("=", 1)
        schemas: dict[str, list[Any]] = {}
        for rec in load_records([Path(path)]):
            if not answered(rec):
                continue
            db = Database(f"sqlite:///{Path(folder) / 'database' / rec['db_id'] / (rec['db_id'] + '.sqlite')}")
            if rec["db_id"] not in schemas:
                schemas[rec["db_id"]] = read_schema(db, sample_rows=0)
            features = confidence_features(rec) | extra_signals(rec, db, schemas[rec["db_id"]])
            rows.append((Path(path).name, rec["db_id"].split("_abbr_")[0], int(rec["ex"]), features))
    print(f"{len(rows)} answers from {len(argv)} runs ({time.perf_counter() - started:.0f} s to re-run candidates)")
    y = np.array([r[2] for r in rows])
    folds, files = np.array([r[1] for r in rows]), np.array([r[0] for r in rows])
    for label, extra in [("shipped features", []), *((f"+ {k}", v) for k, v in FAMILIES.items())]:
        x = np.array([[r[3][n] for n in [*FEATURES, *extra]] for r in rows])
        p = cross_validated(x, y, folds)
        print(f"{label}: AUROC {roc_auc_score(y, p):.3f}, kept at >= 90% right {kept_at_90(p, y):.3f}")
        for name in sorted(set(files)):
            m = files == name
            print(f"    {name:<52} n={m.sum():>3} EX {y[m].mean():.2f} AUROC {roc_auc_score(y[m], p[m]):.3f} "
                  f"kept {kept_at_90(p[m], y[m]):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
