"""Do cheap question, SQL and candidate signals rank answers better than agent.confidence.FEATURES alone?

    python extras.py WIDE_ABBREV WIDE_ABBREV_NOFK ../shared/benchmarks/spider-wide ../shared/benchmarks/spider-dev

Same pool and folds as pool.py. Each extra signal is added alone, then all together, to the logistic model (C
0.03) and to the trees (depth 2, 100 trees, rate 0.1); printed: out-of-fold AUROC on the pool and AUROC on Spider
dev 200 of a fit on the whole pool.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import sqlglot
import sqlglot.expressions as exp
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedGroupKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts"), str(Path(__file__).parent)]

from fit_confidence import load_records, matrix  # noqa: E402
from pool import LEFT_OUT, base  # noqa: E402

NAMES = ("q_words", "out_cols", "conditions", "aggregates", "group_by", "order_limit", "distinct", "literals",
         "sql_forms", "sql_share", "row_counts", "strategies_agreeing")


def norm(sql: str | None) -> str:
    """``sql`` lowercased with runs of white space made one space (for counting distinct SQL forms)."""
    return re.sub(r"\s+", " ", (sql or "").lower()).replace(" ,", ",").strip()


def extras(rec: dict[str, Any]) -> list[float]:
    """The :data:`NAMES` signals of one evaluation record, in that order."""
    sql = rec.get("pred_sql") or ""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:  # noqa: BLE001
        tree = None
    sel = tree if isinstance(tree, exp.Select) else None
    out_cols = len(sel.expressions) if sel else 0
    conds = len(list(tree.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.In,
                                   exp.Between, exp.Is))) if tree else 0
    aggs = len(list(tree.find_all(exp.AggFunc))) if tree else 0
    group = float(bool(tree and tree.find(exp.Group)))
    order = float(bool(tree and tree.find(exp.Limit) and tree.find(exp.Order)))
    distinct = float(bool(tree and tree.find(exp.Distinct)))
    literals = len([x for x in tree.find_all(exp.Literal) if x.is_string]) if tree else 0
    ran = [c for c in rec.get("candidates") or [] if c.get("status") in ("ok", "empty")]
    forms = {norm(c.get("sql")) for c in ran}
    share = sum(norm(c.get("sql")) == norm(sql) for c in ran) / len(ran) if ran else 0.0
    chosen = next((c for c in ran if c.get("sql") == sql), {})
    agreeing = {c.get("strategy") for c in ran if c.get("row_count") == chosen.get("row_count")}
    return [len(str(rec.get("question") or "").split()), out_cols, conds, aggs, group, order, distinct, literals,
            len(forms), share, len({c.get("row_count") for c in ran}), len(agreeing)]


def main() -> None:
    """Print the out-of-fold and Spider dev 200 AUROC of each variant."""
    abbrev, nofk, wide, dev = (Path(a) for a in sys.argv[1:5])
    roots = [abbrev, wide, dev]
    runs = (ROOT / "benchmarks/results/2026-12-07-unstated-joins/runs.txt").read_text().split()
    pool = [r for f in runs if not LEFT_OUT.search(f)
            for r in load_records([ROOT / f], [nofk] if "nofk" in f else roots)]
    test = load_records([ROOT / "benchmarks/results/2026-12-07-large-tables/spider200-with_examples-8557128.jsonl"],
                        roots)
    x, y = matrix(pool)
    xt, yt = matrix(test)
    e = np.array([extras(r) for r in pool])
    et = np.array([extras(r) for r in test])
    groups = np.array([base(r.get("db_id")) for r in pool])
    folds = list(StratifiedGroupKFold(5, shuffle=True, random_state=0).split(x, y, groups))
    kinds = {"logistic": lambda: make_pipeline(StandardScaler(), LogisticRegression(C=0.03, max_iter=2000)),
             "trees": lambda: GradientBoostingClassifier(max_depth=2, n_estimators=100, learning_rate=0.1,
                                                         subsample=0.8, random_state=0)}
    variants = {"base": []} | {n: [i] for i, n in enumerate(NAMES)} | {"all": list(range(len(NAMES)))}
    for kind, make in kinds.items():
        for name, cols in variants.items():
            xa, xta = np.hstack([x, e[:, cols]]), np.hstack([xt, et[:, cols]])
            oof = cross_val_predict(make(), xa, y, cv=folds, method="predict_proba")[:, 1]
            p = make().fit(xa, y).predict_proba(xta)[:, 1]
            print(f"{kind:8s} + {name:20s} CV {roc_auc_score(y, oof):.4f}  spider dev 200 {roc_auc_score(yt, p):.4f}",
                  flush=True)


if __name__ == "__main__":
    main()
