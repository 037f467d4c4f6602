"""The evaluation report of a run directory: ``summary.json``, ``report.md`` and ``report.html``.

``report.html`` is self-contained (Plotly figures inlined: accuracy, latency, tokens and cost per
configuration with their 95% intervals, accuracy by category; tables of paired differences and of failures).
For configurations whose records carry a confidence, both files add its calibration (:mod:`eval.calibration`):
per level the answers and their EX with a 95% Wilson interval, the AUROC, and the risk-coverage curve (a table at
10%, 20%, ... 100% kept; in the HTML also a figure of the whole curve); ``summary.json`` keeps these figures
under ``calibration``.

``nl2sql eval-report RUN_DIR`` rebuilds them from the JSONL files at any time.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from eval.calibration import calibration, risk_coverage
from eval.run_files import load_run
from eval.summary import compare, summarize

FAILURES_SHOWN = 200


def _fmt(ci: dict[str, Any], pct: bool = False, digits: int = 1) -> str:
    if ci.get("n", 0) == 0:
        return "-"
    scale = 100 if pct else 1
    return f"{ci['mean'] * scale:.{digits}f} [{ci['low'] * scale:.{digits}f}, {ci['high'] * scale:.{digits}f}]"


def summary_frame(summaries: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """One row per configuration: every mean with its 95% interval, as text."""
    return pd.DataFrame([{
        "configuration": name, "questions": s["questions"], "EX %": _fmt(s["ex"], True),
        "tolerant EX %": _fmt(s["ex_tolerant"], True) if "ex_tolerant" in s else "-",
        "kind acc. %": _fmt(s["kind_correct"], True) if "kind_correct" in s else "-",
        "LLM judge %": _fmt(s["judge_correct"], True), "soft F1 %": _fmt(s["soft_f1"], True),
        "latency s": _fmt(s["latency_s"]), "p95 s": s["latency_p95_s"],
        "warm p50 / p95 s": (f"{s['latency_warm_p50_s']} / {s['latency_warm_p95_s']}"
                             if s.get("warm_questions") else "-"), "LLM calls": _fmt(s["llm_calls"], digits=2),
        "prompt tok": _fmt(s["prompt_tokens"], digits=0),
        "cached tok": _fmt(s["cached_tokens"], digits=0) if "cached_tokens" in s else "-", "completion tok": _fmt(s["completion_tokens"], digits=0),
        "cost $/q": _fmt(s["cost_usd"], digits=5)} for name, s in summaries.items()])


def _bar(summaries: dict[str, dict[str, Any]], keys: list[tuple[str, str]], title: str, scale: float = 1.0) -> go.Figure:
    fig = go.Figure()
    for key, label in keys:
        cis = [s[key] for s in summaries.values()]
        fig.add_bar(name=label, x=list(summaries), y=[c["mean"] * scale for c in cis],
                    error_y={"type": "data", "symmetric": False,
                             "array": [(c["high"] - c["mean"]) * scale for c in cis],
                             "arrayminus": [(c["mean"] - c["low"]) * scale for c in cis]})
    fig.update_layout(title=title, barmode="group", height=360, margin={"t": 50, "b": 40})
    return fig


def figures(summaries: dict[str, dict[str, Any]]) -> list[go.Figure]:
    """Accuracy, latency, tokens, cost (with 95% intervals) and EX by category, per configuration."""
    figs = [
        _bar(summaries, [("ex", "EX"), ("ex_tolerant", "tolerant EX"), ("judge_correct", "LLM judge"), ("soft_f1", "soft F1")],
             "Accuracy (%), 95% bootstrap intervals", 100),
        _bar(summaries, [("latency_s", "latency")], "Latency per question (s)"),
        _bar(summaries, [("prompt_tokens", "prompt"), ("completion_tokens", "completion")], "Tokens per question"),
        _bar(summaries, [("cost_usd", "cost")], "Cost per question (USD, price table of the settings)"),
    ]
    cats = sorted({c for s in summaries.values() for c in s["ex_by_category"]})
    by_cat = go.Figure()
    for name, s in summaries.items():
        by_cat.add_bar(name=name, x=cats, y=[s["ex_by_category"].get(c, {"mean": 0})["mean"] * 100 for c in cats])
    by_cat.update_layout(title="EX by category (%)", barmode="group", height=360, margin={"t": 50, "b": 40})
    return [*figs, by_cat]


def failures_frame(rows_by_config: dict[str, list[dict[str, Any]]]) -> pd.DataFrame:
    """Every wrong answer (EX 0, or the wrong kind of reply on a boundary question), with its details."""
    rows = [{"configuration": name, "qid": r["qid"], "question": r["question"], "gold SQL": r["gold_sql"],
             "predicted SQL": r.get("pred_sql") or "", "category": r["error_category"],
             "detail": r.get("pred_error") or r.get("error") or ""}
            for name, rs in rows_by_config.items() for r in rs
            if (r["ex"] == 0 if r.get("ex") is not None else r.get("kind_correct") == 0)]
    return pd.DataFrame(rows, columns=["configuration", "qid", "question", "gold SQL", "predicted SQL", "category",
                                       "detail"])


CALIBRATION_TITLE = "Confidence: calibration and risk-coverage"
CALIBRATION_NOTE = ("Answers with a confidence and an EX. Per level: EX with its 95% Wilson interval. "
                    "Risk-coverage: the answers sorted by confidence score, highest first; the EX of the share kept. "
                    "AUROC: the chance that a right answer scores above a wrong one.")


def _pct(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value * 100:.{digits}f}"


def calibration_frames(cal: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The level table and the risk-coverage table of one :func:`eval.calibration.calibration` value, as text."""
    levels = pd.DataFrame([{
        "level": lv["level"], "answers": lv["count"], "share %": _pct(lv["share"]), "with EX": lv["scored"],
        "EX %": _pct(lv["ex"]),
        "95% interval %": "-" if lv["low"] is None else f"[{_pct(lv['low'])}, {_pct(lv['high'])}]",
        "mean score": "-" if lv["mean_score"] is None else f"{lv['mean_score']:.3f}"} for lv in cal["levels"]],
        columns=["level", "answers", "share %", "with EX", "EX %", "95% interval %", "mean score"])
    coverage = pd.DataFrame([{
        "kept %": f"{p['coverage'] * 100:.0f}", "answers kept": p["kept"], "EX of kept %": _pct(p["accuracy"]),
        "lowest score kept": f"{p['min_score']:.3f}"} for p in cal["risk_coverage"]],
        columns=["kept %", "answers kept", "EX of kept %", "lowest score kept"])
    return levels, coverage


def risk_coverage_figure(rows_by_config: dict[str, list[dict[str, Any]]]) -> go.Figure:
    """One line per configuration: EX of the answers kept (%) against the share kept (%), by confidence score."""
    fig = go.Figure()
    for name, rows in rows_by_config.items():
        curve = risk_coverage(rows)
        fig.add_scatter(name=name, mode="lines", x=[p["coverage"] * 100 for p in curve],
                        y=[p["accuracy"] * 100 for p in curve], customdata=[p["min_score"] for p in curve],
                        hovertemplate="kept %{x:.1f}%: EX %{y:.1f}% (score >= %{customdata:.3f})")
    fig.update_layout(title="Risk-coverage: EX of the answers kept, most confident first", height=380,
                      xaxis={"title": "answers kept (%)", "range": [0, 100]},
                      yaxis={"title": "EX of the kept answers (%)", "range": [0, 102]}, margin={"t": 50, "b": 40})
    return fig


def _calibration_line(cal: dict[str, Any]) -> str:
    auroc = "-" if cal["auroc"] is None else f"{cal['auroc']:.3f}"
    return f"{cal['answers']} answers with a confidence and an EX (EX {_pct(cal['ex'])}%); AUROC {auroc}."


def _md_table(frame: pd.DataFrame) -> str:
    """A table of text cells as markdown: kept as written ("75.0" stays "75.0"), right-aligned but the first."""
    align = ("left", *["right"] * (frame.shape[1] - 1))
    return frame.to_markdown(index=False, disable_numparse=True, colalign=align)


def _calibration_md(calibrated: dict[str, dict[str, Any]]) -> list[str]:
    """The markdown lines of the calibration section ([] when no configuration has a confidence)."""
    lines = [f"## {CALIBRATION_TITLE}", "", CALIBRATION_NOTE, ""] if calibrated else []
    for name, cal in calibrated.items():
        levels, coverage = calibration_frames(cal)
        lines += [f"### {name}", "", _calibration_line(cal), "", _md_table(levels), "", _md_table(coverage), ""]
    return lines


def _calibration_html(calibrated: dict[str, dict[str, Any]], rows: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The HTML parts of the calibration section: the risk-coverage figure, then each configuration's tables."""
    if not calibrated:
        return []
    curve = risk_coverage_figure({name: rows[name] for name in calibrated})
    parts = [f"<h2>{CALIBRATION_TITLE}</h2><p>{html.escape(CALIBRATION_NOTE)}</p>",
             curve.to_html(include_plotlyjs=False, full_html=False)]
    for name, cal in calibrated.items():
        levels, coverage = calibration_frames(cal)
        parts += [f"<h3>{html.escape(name)}</h3><p>{html.escape(_calibration_line(cal))}</p>",
                  levels.to_html(index=False), coverage.to_html(index=False)]
    return parts


def write_report(run_dir: Path) -> dict[str, Any]:
    """Write ``summary.json``, ``report.md`` and ``report.html`` for ``run_dir``; returns the summary.

    Raises:
        FileNotFoundError: no configuration has any record.
    """
    meta, rows = load_run(run_dir)
    if not rows:
        raise FileNotFoundError(f"no <config>.jsonl records in {run_dir}")
    summaries = {name: summarize(rs) for name, rs in rows.items()}
    pairs = compare(rows)
    calibrated = {name: cal for name, rs in rows.items() if (cal := calibration(rs)) is not None}
    summary = {"run": meta, "configs": summaries, "paired": pairs, "calibration": calibrated}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    table, failures = summary_frame(summaries), failures_frame(rows)
    paired = pd.DataFrame(pairs)
    errors = pd.DataFrame({n: s["error_categories"] for n, s in summaries.items()})
    title = f"Evaluation: {meta.get('dataset', '?')} ({meta.get('questions', '?')} questions)"
    md = [f"# {title}", "", _run_line(meta), "", "## Figures (mean [95% bootstrap interval])", "",
          table.to_markdown(index=False), "", "## Paired differences (a - b, paired bootstrap)", "",
          paired.to_markdown(index=False) if not paired.empty else "(one configuration)", "",
          "## Error categories", "", errors.to_markdown(), "", *_calibration_md(calibrated),
          f"## Failures (first {FAILURES_SHOWN})", "", failures.head(FAILURES_SHOWN).to_markdown(index=False), ""]
    (run_dir / "report.md").write_text("\n".join(md))
    figs = figures(summaries)
    body = [f"<h1>{html.escape(title)}</h1><p>{html.escape(_run_line(meta))}</p>",
            "<h2>Figures (mean [95% bootstrap interval])</h2>", table.to_html(index=False),
            *[f.to_html(include_plotlyjs=(i == 0), full_html=False) for i, f in enumerate(figs)],
            "<h2>Paired differences (a - b)</h2>", paired.to_html(index=False) if not paired.empty else "",
            "<h2>Error categories</h2>", errors.to_html(), *_calibration_html(calibrated, rows),
            f"<h2>Failures (first {FAILURES_SHOWN})</h2>", failures.head(FAILURES_SHOWN).to_html(index=False)]
    style = ("body{font-family:sans-serif;margin:2em;color:#1b1f24} table{border-collapse:collapse;font-size:13px}"
             "td,th{border:1px solid #ccd;padding:4px 6px;vertical-align:top;text-align:left}")
    (run_dir / "report.html").write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>"
                                         f"{html.escape(title)}</title><style>{style}</style></head><body>"
                                         + "\n".join(body) + "</body></html>")
    return summary


def _run_line(meta: dict[str, Any]) -> str:
    keys = ("dataset", "path", "sample", "seed", "limit", "llm_judge", "judge_model", "models", "examples_per_db",
            "started")
    return "; ".join(f"{k}: {meta[k]}" for k in keys if meta.get(k) is not None)
