"""Does the answer's shape against the question's rank answers better? Cross-validated on recorded runs.

    python shape_signals.py RECORDS.jsonl [MORE.jsonl ...]

No model and no database: for every answer that gets a confidence level (as scripts/fit_confidence.py keeps
them), the question's aggregate kinds (:func:`tools.reuse_guard.question_kinds`: a count, a total, an average,
the most or the fewest) are compared with the kinds of the answer's SQL (:func:`tools.reuse_guard.sql_kinds`),
and the SQL is searched for a column compared with or subtracted from itself. ``unmet`` is the stricter reading
(:func:`unmet_aggregates`): a kind counts only when the SQL computes nothing that meets it (a count met by COUNT
or SUM, the most by MAX or any ORDER BY, ...), when no column the SQL reads is named by the kind's phrase
("number of attendees" over ``Attendance``, "total points" over ``TOT_PNTS``), and never for a threshold ("at
least two"). ``opaque_read``: the answer's SQL reads a column whose name says nothing (``c10``;
:func:`tools.question_terms.reads_opaque_column`). The families below are added to
the shipped features (:data:`agent.confidence.FEATURES`) and compared as in
``../2026-12-02-confidence-signals/signals.py`` (5-fold logistic regression, folds by database).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-02-confidence-signals"))

import re  # noqa: E402

import sqlglot  # noqa: E402
from signals import cross_validated, kept_at_90  # noqa: E402
from sqlglot import exp  # noqa: E402

from agent.confidence import FEATURES, answered, confidence_features  # noqa: E402
from scripts.fit_confidence import load_records  # noqa: E402
from tools.question_terms import name_words, reads_opaque_column, same_word  # noqa: E402
from tools.reuse_guard import _KIND_PATTERNS, question_kinds, sql_kinds  # noqa: E402

KINDS = ("count", "sum", "avg", "max", "min")
FAMILIES = {"asked, not computed": ["shape_missing"],
            "asked, not computed, per kind": [f"missing_{k}" for k in KINDS],
            "computed, not asked": ["shape_extra"],
            "self comparison": ["self_compare"],
            "asked + self": ["shape_missing", "self_compare"],
            "unmet aggregates": ["unmet"], "unmet, per kind": [f"unmet_{k}" for k in KINDS],
            "reads an opaque column": ["opaque_read"]}


MET_BY: dict[str, frozenset[str]] = {
    "count": frozenset({"count", "sum"}),
    "sum": frozenset({"sum", "count"}),
    "avg": frozenset({"avg"}),
    "max": frozenset({"max", "order"}),
    "min": frozenset({"min", "order"}),
}
"""SQL kinds (plus ``order``: any ORDER BY) that meet each question kind."""

_THRESHOLD = re.compile(r"\bat (?:least|most)\b|\bno (?:more|less|fewer) than\b")
_WORD = re.compile(r"[a-z]+")
_STOP = frozenset({"of", "the", "a", "an", "in", "for", "per", "each", "all", "by", "with", "is", "are", "was",
                   "were", "to", "on", "from", "that"})


def _column_words(tree: exp.Expr) -> list[list[str]]:
    """Per column the SQL reads: the folded words of its name (:func:`tools.question_terms.name_words`)."""
    return [name_words(name) for name in {c.name for c in tree.find_all(exp.Column) if c.name}]


def _stored(phrase_end: int, kind_words: list[str], text: str, columns: list[list[str]]) -> bool:
    """True when the kind's phrase names a read column: by a kind word or the phrase's next content word."""
    following = [w for w in _WORD.findall(text[phrase_end:])[:4] if w not in _STOP][:1]
    return any(same_word(part, w) for parts in columns for part in parts for w in [*kind_words, *following])


def unmet_aggregates(question: str, sql: str | None, dialect: str | None = None) -> list[str]:
    """The kinds ``question`` asks for that ``sql`` neither computes nor reads from a stored column, in order.

    Kinds are "count", "sum", "avg", "max", "min" (:data:`MET_BY` says what meets each). Empty for a question
    that asks for no aggregate, and for SQL that is missing or does not parse (no signal, not a finding).
    """
    if not sql:
        return []
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return []
    if tree is None:
        return []
    computed = sql_kinds(sql, dialect) | ({"order"} if tree.find(exp.Order) else set())
    text = _THRESHOLD.sub(" ", " ".join(question.lower().split()))
    columns = _column_words(tree)
    unmet = []
    for kind, pattern in _KIND_PATTERNS.items():
        matches = list(re.finditer(pattern, text))
        if not matches or MET_BY[kind] & computed:
            continue
        if all(_stored(m.end(), _WORD.findall(m.group(0)), text, columns) for m in matches):
            continue
        unmet.append(kind)
    return unmet


def self_comparisons(sql: str) -> int:
    """Binary comparisons or arithmetic whose two sides are the same column."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return 0
    ops = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Sub, exp.Div)
    return sum(1 for node in tree.find_all(*ops)
               if isinstance(node.left, exp.Column) and isinstance(node.right, exp.Column)
               and node.left.sql().lower() == node.right.sql().lower())


def shape_signals(rec: dict[str, Any]) -> dict[str, float]:
    """The signals of :data:`FAMILIES` for one record."""
    asked, computed = question_kinds(rec["question"]), sql_kinds(rec.get("pred_sql") or "", "sqlite")
    missing = asked - computed
    # A count the question asks for is often answered by ranking (most/fewest) or totals; "most" by ORDER BY.
    out = {"shape_missing": float(len(missing)), "shape_extra": float(len(computed - asked - {"count"})),
           "self_compare": float(self_comparisons(rec.get("pred_sql") or ""))}
    out |= {f"missing_{k}": float(k in missing) for k in KINDS}
    unmet = unmet_aggregates(rec["question"], rec.get("pred_sql"), "sqlite")
    out["opaque_read"] = float(reads_opaque_column(rec.get("pred_sql") or "", "sqlite"))
    out |= {"unmet": float(len(unmet))} | {f"unmet_{k}": float(k in unmet) for k in KINDS}
    return out


def main(argv: list[str]) -> int:
    """Print the comparison; returns the exit code."""
    from sklearn.metrics import roc_auc_score

    warnings.filterwarnings("ignore")
    rows: list[tuple[str, str, int, dict[str, float]]] = []
    for path in argv:
        for rec in load_records([Path(path)]):
            if answered(rec):
                rows.append((Path(path).name, rec["db_id"].split("_abbr_")[0], int(rec["ex"]),
                             confidence_features(rec) | shape_signals(rec)))
    print(f"{len(rows)} answers from {len(argv)} runs")
    y = np.array([r[2] for r in rows])
    folds, files = np.array([r[1] for r in rows]), np.array([r[0] for r in rows])
    for name in ("shape_missing", "shape_extra", "self_compare", "unmet", *(f"unmet_{k}" for k in KINDS),
                 "opaque_read"):
        hit = np.array([r[3][name] > 0 for r in rows])
        print(f"{name} > 0: {hit.sum()} answers, EX {y[hit].mean() if hit.any() else float('nan'):.2f} "
              f"(others {y[~hit].mean():.2f})")
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
