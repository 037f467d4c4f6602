"""The confidence calibration of an evaluation run (eval/calibration.py) and its section of the report: records
built in memory, and write_report on a run directory of fake record files (no model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from eval.calibration import (
    auroc,
    calibration,
    confidence_level,
    confidence_score,
    level_table,
    risk_coverage,
    risk_coverage_table,
    wilson_interval,
)
from eval.report import CALIBRATION_TITLE, write_report


def rec(qid: int, ex: int | None, score: float | None, level: str | None = None, **kw: Any) -> dict[str, Any]:
    """A record as eval/scoring.py writes it, with only the keys the summary and the report read."""
    if level is None and score is not None:
        level = "verified" if score >= 0.9 else "likely" if score >= 0.5 else "unsure"
    conf: dict[str, Any] | None = {"score": score, "level": level, "reasons": ["r"], "features": {}} if score is not None else None
    return {"qid": f"q{qid}", "question": f"Question {qid}?", "gold_sql": "SELECT 1", "pred_sql": "SELECT 1",
            "ex": ex, "ex_tolerant": ex, "soft_f1": ex, "judge_correct": None, "latency_s": 1.0, "llm_calls": 1,
            "prompt_tokens": 10, "completion_tokens": 5, "cost_usd": 0.0, "category": "simple",
            "error_category": "correct" if ex else "wrong_result", "confidence": conf,
            "confidence_level": level if score is not None else None, **kw}


# ten scored answers, highest score first: right, right, right, wrong, right, right, wrong, right, wrong, wrong
SCORED = [rec(i, ex, s) for i, (ex, s) in enumerate(
    [(1, 0.97), (1, 0.95), (1, 0.92), (0, 0.91), (1, 0.8), (1, 0.7), (0, 0.6), (1, 0.4), (0, 0.3), (0, 0.1)])]
OTHERS = [rec(20, 0, None),  # an error: no confidence, outside every figure
          rec(21, None, 0.85, expect="clarify")]  # a boundary question answered: a level, but no EX


def test_score_and_level_are_read_from_the_record() -> None:
    assert (confidence_score(SCORED[0]), confidence_level(SCORED[0])) == (0.97, "verified")
    assert (confidence_score(OTHERS[0]), confidence_level(OTHERS[0])) == (None, None)
    legacy = {"ex": 1, "confidence_level": "likely"}  # a level without the confidence dict
    assert (confidence_score(legacy), confidence_level(legacy)) == (None, "likely")
    assert confidence_level({"confidence": {"score": 0.5, "level": "unsure"}}) == "unsure"


def test_risk_coverage_keeps_the_most_confident_answers_first() -> None:
    rows = [*reversed(SCORED), *OTHERS]  # file order does not matter, scores do
    curve = risk_coverage(rows)
    assert len(curve) == 10 and curve[0] == {"kept": 1, "coverage": 0.1, "accuracy": 1.0, "min_score": 0.97}
    assert [round(p["accuracy"], 4) for p in curve] == [1.0, 1.0, 1.0, 0.75, 0.8, 0.8333, 0.7143, 0.75, 0.6667, 0.6]
    table = risk_coverage_table(rows)
    assert [p["coverage"] for p in table] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert [p["kept"] for p in table] == list(range(1, 11))
    assert table[2] == {"coverage": 0.3, "kept": 3, "accuracy": 1.0, "min_score": 0.92}
    assert table[-1]["accuracy"] == 0.6  # everything kept: the EX of the scored answers
    assert risk_coverage_table(rows, coverages=(0.01,))[0]["kept"] == 1  # at least one answer
    assert risk_coverage([]) == [] and risk_coverage_table(OTHERS[:1]) == []


def test_equal_scores_keep_the_file_order() -> None:
    rows = [rec(1, 0, 0.5), rec(2, 1, 0.5), rec(3, 1, 0.9)]
    assert [p["accuracy"] for p in risk_coverage(rows)] == [1.0, 0.5, 2 / 3]


def test_auroc_is_the_rank_formula_and_matches_scikit_learn() -> None:
    assert auroc([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]) == 1.0
    assert auroc([0.1, 0.2, 0.8, 0.9], [1, 1, 0, 0]) == 0.0
    assert auroc([0.5, 0.5], [1, 0]) == 0.5  # a tie counts one half
    assert auroc([0.9, 0.8], [1, 1]) is None and auroc([], []) is None
    with pytest.raises(ValueError, match="2 scores but 1 labels"):
        auroc([0.1, 0.2], [1])
    metrics = pytest.importorskip("sklearn.metrics")  # a dev dependency: the check, not the runtime
    rng = np.random.default_rng(7)
    labels = rng.integers(0, 2, 300)
    scores = np.round(rng.random(300) * 0.6 + labels * 0.3, 2)  # rounded: many ties
    assert auroc(scores, labels) == pytest.approx(metrics.roc_auc_score(labels, scores), abs=1e-12)


def test_levels_count_share_and_ex_with_a_wilson_interval() -> None:
    table = {row["level"]: row for row in level_table([*SCORED, *OTHERS])}
    assert list(table) == ["verified", "likely", "unsure"]
    verified, likely, unsure = table["verified"], table["likely"], table["unsure"]
    assert (verified["count"], verified["scored"], verified["right"], verified["ex"]) == (4, 4, 3, 0.75)
    assert (likely["count"], likely["scored"], likely["right"]) == (4, 3, 2)  # the boundary record has no EX
    assert (unsure["count"], unsure["ex"], unsure["share"]) == (3, 0.3333, round(3 / 11, 4))
    assert verified["share"] + likely["share"] + unsure["share"] == pytest.approx(1.0, abs=1e-3)
    assert verified["low"] < verified["ex"] < verified["high"] and verified["mean_score"] == 0.9375
    assert [round(v, 3) for v in wilson_interval(18, 20) or ()] == [0.699, 0.972]
    assert [round(v, 3) for v in wilson_interval(20, 20) or ()] == [0.839, 1.0]  # not the bootstrap's [1, 1]
    assert wilson_interval(0, 0) is None
    only_boundary = level_table([rec(1, None, 0.95)])
    assert only_boundary[0]["ex"] is None and only_boundary[0]["low"] is None
    assert level_table(OTHERS[:1]) == []


def test_calibration_of_a_configuration() -> None:
    cal = calibration([*SCORED, *OTHERS])
    assert cal is not None
    assert (cal["answers"], cal["ex"]) == (10, 0.6)
    assert cal["auroc"] == round(auroc([r["confidence"]["score"] for r in SCORED], [r["ex"] for r in SCORED]) or 0, 4)
    assert 0.5 < cal["auroc"] < 1.0
    assert [lv["level"] for lv in cal["levels"]] == ["verified", "likely", "unsure"]
    assert len(cal["risk_coverage"]) == 10
    assert calibration([rec(1, 1, None), rec(2, 0, None)]) is None  # a run written before the confidence


def write_run(run_dir: Path, configs: dict[str, list[dict[str, Any]]]) -> None:
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps({"dataset": "spider", "questions": 12, "configs": list(configs)}))
    for name, rows in configs.items():
        (run_dir / f"{name}.jsonl").write_text("".join(json.dumps({**r, "config": name}) + "\n" for r in rows))


def test_the_report_has_the_calibration_of_configurations_with_a_confidence(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, {"with_examples": [*SCORED, *OTHERS],
                    "single_shot": [rec(i, i % 2, None) for i in range(10)]})  # no confidence
    summary = write_report(run)
    assert list(summary["calibration"]) == ["with_examples"]
    stored = json.loads((run / "summary.json").read_text())
    assert stored["calibration"]["with_examples"]["answers"] == 10
    md = (run / "report.md").read_text()
    section = md.split(f"## {CALIBRATION_TITLE}")[1].split("## Failures")[0]
    assert "### with_examples" in section and "single_shot" not in section
    assert "10 answers with a confidence and an EX (EX 60.0%); AUROC" in section
    lines = section.splitlines()
    verified = next(line for line in lines if line.startswith("| verified"))
    assert [c.strip() for c in verified.strip("|").split("|")] == ["verified", "4", "36.4", "4", "75.0",
                                                                   "[30.1, 95.4]", "0.938"]  # Wilson, 3 of 4
    thirty = next(line for line in lines if line.startswith("| 30 "))  # a row of the risk-coverage table
    assert [c.strip() for c in thirty.strip("|").split("|")] == ["30", "3", "100.0", "0.920"]
    assert section.count("\n|") >= 2 + 3 + 2 + 10  # two tables: 3 levels and 10 coverages
    html = (run / "report.html").read_text()
    assert CALIBRATION_TITLE in html and "Risk-coverage: EX of the answers kept" in html
    assert html.index(CALIBRATION_TITLE) < html.index("Failures (first")
    assert html.count("plotly-graph-div") == 6  # the five figures of the summary and the curve


def test_a_run_without_confidence_has_no_calibration_section(tmp_path: Path) -> None:
    run = tmp_path / "old"
    write_run(run, {"single_shot": [rec(i, i % 2, None) for i in range(4)]})
    summary = write_report(run)
    assert summary["calibration"] == {}
    assert CALIBRATION_TITLE not in (run / "report.md").read_text()
    assert CALIBRATION_TITLE not in (run / "report.html").read_text()
