"""Model-free replays of recorded runs: what the vote, a DISTINCT and new confidence signals would change.

    python replays.py oracle RUNS...        # wrong answers with a right candidate among those that ran
    python replays.py containment RUNS...   # ties of the vote broken by result containment, scored against gold
    python replays.py distinct RUNS...      # answers with repeated rows, de-duplicated, scored against gold
    python replays.py features RUNS...      # cross-validated AUROC of the confidence model plus new signals

Each record's database is found under ``--roots`` (Spider layout, first match by ``db_id``); every query runs
read-only with a 5 s limit. Run from a checkout (``PYTHONPATH=CHECKOUT``); scikit-learn for ``features``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sqlite3
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import sqlglot
import sqlglot.expressions as exp

from agent.confidence import FEATURES, answered, confidence_features
from eval.metrics import _rows, gold_is_ordered, results_match

Result = tuple[int, list[tuple[Any, ...]]]
ROOTS: list[Path] = []
_CACHE: dict[tuple[str, str], Result | None] = {}


def db_path(db_id: str) -> Path | None:
    """The first ``ROOT/database/<db_id>/<db_id>.sqlite`` of :data:`ROOTS` that exists."""
    return next((r / "database" / db_id / f"{db_id}.sqlite" for r in ROOTS
                 if (r / "database" / db_id / f"{db_id}.sqlite").exists()), None)


def run(db_id: str, sql: str) -> Result | None:
    """(column count, up to 2,000 rows) of ``sql`` on the record's database, or None when it fails."""
    key = (db_id, sql)
    if key not in _CACHE:
        path = db_path(db_id)
        _CACHE[key] = None
        if path is not None:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            timer = threading.Timer(5, conn.interrupt)
            timer.start()
            try:
                cur = conn.execute(sql)
                _CACHE[key] = (len(cur.description or []), cur.fetchmany(2000))
            except sqlite3.Error:
                pass
            finally:
                timer.cancel()
                conn.close()
    return _CACHE[key]


def records(files: list[Path]) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Answered records with gold SQL whose database is under :data:`ROOTS` (single-shot runs left out)."""
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if (r.get("config") != "single_shot" and r.get("kind") == "answer" and r.get("gold_sql")
                    and db_path(r["db_id"]) is not None):
                yield f, r


def signature(res: Result) -> tuple[int, tuple[str, ...]]:
    """Order-insensitive result key (column count, sorted rows), the grouping of the vote."""
    return res[0], tuple(sorted(repr(tuple(r)) for r in res[1]))


def degenerate(rows: list[tuple[Any, ...]]) -> bool:
    """One row of NULL/0 values."""
    return len(rows) == 1 and all(v is None or v == 0 for v in rows[0])


def contained(small: Result, big: Result) -> bool:
    """``small``'s distinct rows equal ``big``'s distinct rows on some of its columns (at most 720 tried)."""
    if small[0] == 0 or small[0] > big[0]:
        return False
    want, rows = set(_rows(small[1])), set(_rows(big[1]))
    for n, cols in enumerate(itertools.permutations(range(big[0]), small[0])):
        if n > 720:
            break
        if {tuple(r[i] for i in cols) for r in rows} == want:
            return True
    return False


def is_right(r: dict[str, Any], res: Result) -> bool:
    """Strict EX of ``res`` against the record's gold query."""
    gold = run(r["db_id"], r["gold_sql"])
    return (gold is not None and gold[0] == res[0]
            and results_match(gold[1], res[1], ordered=gold_is_ordered(r["gold_sql"])))


def ran_with_rows(r: dict[str, Any]) -> list[tuple[dict[str, Any], Result]]:
    """The record's candidates that ran and returned rows (not one NULL/0 row), with their results."""
    out = []
    for c in r.get("candidates") or []:
        res = run(r["db_id"], c["sql"]) if c.get("status") == "ok" and c.get("sql") else None
        if res is not None and res[1] and not degenerate(res[1]):
            out.append((c, res))
    return out


def oracle(files: list[Path]) -> None:
    """Count wrong answers that some candidate had right."""
    stats: Counter[str] = Counter()
    for f, r in records(files):
        stats["answers"] += 1
        if r["ex"]:
            stats["right"] += 1
            continue
        hits = [c["strategy"] for c, res in ran_with_rows(r) if is_right(r, res)]
        stats["wrong, a candidate right" if hits else "wrong, no candidate right"] += 1
        if hits:
            print(f.name, r["qid"], "right:", hits)
    print(dict(stats))


def containment(files: list[Path]) -> None:
    """Break ties of the vote by how many other candidates' results contain a group's result."""
    stats: Counter[str] = Counter()
    for f, r in records(files):
        groups: dict[Any, list[tuple[dict[str, Any], Result]]] = {}
        for c, res in ran_with_rows(r):
            groups.setdefault(signature(res), []).append((c, res))
        if len(groups) < 2:
            continue
        best = max(len(g) for g in groups.values())
        tied = [k for k, g in groups.items() if len(g) == best]
        if len(tied) < 2:
            continue
        stats["tied"] += 1

        def rank(k: Any, tied: list[Any] = tied, groups: dict[Any, Any] = groups) -> tuple[int, bool, int]:
            res = groups[k][0][1]
            support = sum(len(g) for k2, g in groups.items() if k2 != k and contained(res, g[0][1]))
            return -support, len(set(_rows(res[1]))) < len(res[1]), tied.index(k)

        old, new = tied[0], min(tied, key=rank)
        if old != new:
            a, b = is_right(r, groups[old][0][1]), is_right(r, groups[new][0][1])
            stats[f"changed: {int(a)} -> {int(b)}"] += 1
            print(f.name, r["qid"], int(a), "->", int(b))
    print(dict(stats))


def _shape(sql: str) -> str:
    """Join, group and aggregate flags of the outermost SELECT."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return "unparsed"
    if not isinstance(tree, exp.Select):
        return "set operation"
    agg = any(p.find(exp.AggFunc) for p in tree.expressions)
    return f"join={int(bool(tree.args.get('joins')))} group={int(bool(tree.args.get('group')))} agg={int(agg)}"


def distinct(files: list[Path]) -> None:
    """Answers whose rows repeat: right as they are, and right once de-duplicated, by SQL shape."""
    stats: Counter[tuple[str, int, int]] = Counter()
    questions: defaultdict[tuple[str, int, int], set[str]] = defaultdict(set)
    for _f, r in records(files):
        pred = run(r["db_id"], r.get("pred_sql") or "")
        if pred is None or len(pred[1]) < 2 or len(set(_rows(pred[1]))) == len(pred[1]):
            continue
        key = (_shape(r["pred_sql"]), int(r["ex"]), int(is_right(r, (pred[0], list(dict.fromkeys(pred[1]))))))
        stats[key] += 1
        questions[key].add(r["qid"])
    print("shape, EX as answered, EX de-duplicated: records (distinct questions)")
    for key in sorted(stats):
        print(key, stats[key], f"({len(questions[key])})")


NEW_SIGNALS = ("whole_schema_agrees", "whole_schema_disagrees", "repeated_rows", "result_groups",
               "containing_candidates", "null_cells")
"""The signals :func:`_new_signals` computes."""


def _new_signals(r: dict[str, Any]) -> dict[str, float]:
    """Signals the shipped model lacks, from re-running the record's candidates and answer."""
    pred = run(r["db_id"], r["pred_sql"]) if r.get("pred_sql") else None
    cands = ran_with_rows(r)
    whole = [res for c, res in cands if c["strategy"] == "whole_schema"]
    same: Callable[[Result], bool] = lambda res: pred is not None and signature(res) == signature(pred)  # noqa: E731
    rows = pred[1] if pred else []
    return {"whole_schema_agrees": float(bool(whole) and same(whole[0])),
            "whole_schema_disagrees": float(bool(whole) and not same(whole[0])),
            "repeated_rows": float(bool(rows) and len(set(_rows(rows))) < len(rows)),
            "result_groups": float(len({signature(res) for _c, res in cands})),
            "containing_candidates": float(sum(1 for _c, res in cands if pred and rows and not same(res)
                                               and contained(pred, res))),
            "null_cells": float(any(v is None for row in rows for v in row))}


def features(files: list[Path]) -> None:
    """AUROC, 5-fold by database, of the shipped signals alone and with each new signal added."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    data = [(confidence_features(r) | _new_signals(r), int(r["ex"]), r["db_id"].split("_abbr_")[0])
            for _f, r in records(files) if answered(r) and r.get("ex") is not None]
    y = np.array([d[1] for d in data])
    groups = np.array([d[2] for d in data])

    def cv(names: list[str]) -> float:
        x = np.array([[d[0][n] for n in names] for d in data], dtype=float)
        p = np.zeros(len(y))
        for train, test in GroupKFold(5).split(x, y, groups):
            model = make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=2000))
            p[test] = model.fit(x[train], y[train]).predict_proba(x[test])[:, 1]
        return float(roc_auc_score(y, p))

    base = cv(list(FEATURES))
    print(f"{len(data)} answers, EX {y.mean():.3f}, {len(set(groups))} databases; shipped signals: AUROC {base:.4f}")
    extra = list(NEW_SIGNALS)
    for name in extra:
        print(f"+ {name}: {cv([*FEATURES, name]) - base:+.4f}")
    print(f"+ all: {cv([*FEATURES, *extra]) - base:+.4f}")


def main() -> None:
    """Parse arguments and run one replay."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("replay", choices=["oracle", "containment", "distinct", "features"])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--roots", nargs="+", type=Path, required=True, help="Spider-layout folders")
    args = parser.parse_args()
    ROOTS.extend(args.roots)
    {"oracle": oracle, "containment": containment, "distinct": distinct, "features": features}[args.replay](args.runs)


if __name__ == "__main__":
    main()
