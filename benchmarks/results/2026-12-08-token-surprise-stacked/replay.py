"""Would stopping the cascade at a first candidate the model wrote with confidence lose answers?

    PYTHONPATH=CHECKOUT python replay.py RUN.jsonl [MORE.jsonl ...] --roots ROOT [ROOT ...]

Model-free replay of evaluation records whose candidates carry ``logprob`` (recorded from 6d1bb43). The shipped
cascade writes candidates until two return the same rows. The replayed rule: when the first candidate that
returns rows (not one NULL/0 row) is a fresh one whose SQL tokens have a mean log-probability of at least
``-tau`` (its ``surprise`` below ``tau`` nats per token), the cascade stops there and that candidate is the
answer. For each ``tau`` it prints the answers the rule acts on, the paired EX change (won, lost; bootstrap
interval over databases), the LLM calls saved and the seconds saved (the recorded seconds of every call after
that candidate). Candidates are re-run read-only on their databases and scored against the gold query with
the evaluation's strict comparison (``replays.py`` of 2026-12-07-selection-replays).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("replays", HERE.parent / "2026-12-07-selection-replays" / "replays.py")
replays = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
sys.modules["replays"] = replays
_spec.loader.exec_module(replays)  # type: ignore[union-attr]

FRESH = {"whole_schema", "direct", "plain", "query_plan", "divide_conquer"}


def first_vote(r: dict[str, Any]) -> tuple[int, dict[str, Any], Any] | None:
    """(position, candidate, result) of the first candidate with real rows, or None."""
    for i, c in enumerate(r.get("candidates") or []):
        if c.get("status") != "ok" or not c.get("sql"):
            continue
        res = replays.run(r["db_id"], c["sql"])
        if res is not None and res[1] and not replays.degenerate(res[1]):
            return i, c, res
    return None


def seconds_after(r: dict[str, Any], index: int) -> tuple[int, float]:
    """(calls, seconds) recorded after the call that wrote candidate ``index`` (its turn number)."""
    usage = r.get("usage") or []
    at = next((k for k, u in enumerate(usage) if re.match(rf"candidate {index}\b", u.get("label", ""))), None)
    if at is None:
        return 0, 0.0
    rest = usage[at + 1:]
    return len(rest), float(sum(u.get("latency_s") or 0 for u in rest))


def main() -> None:
    """Print one line per threshold."""
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--roots", nargs="+", type=Path, required=True)
    ap.add_argument("--taus", default="0.01,0.02,0.03,0.05,0.08,0.1")
    a = ap.parse_args()
    replays.ROOTS[:] = a.roots
    rows = []
    for f in a.runs:
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("kind") != "answer" or not r.get("gold_sql") or replays.db_path(r["db_id"]) is None:
                continue
            fv = first_vote(r)
            if fv is None or fv[1].get("strategy") not in FRESH or not isinstance(fv[1].get("logprob"), float):
                rows.append((r, None, None, None))
                continue
            pos, cand, res = fv
            rows.append((r, -cand["logprob"], replays.is_right(r, res), seconds_after(r, cand["index"])))
    n = len(rows)
    base = np.array([int(bool(r["ex"])) for r, *_ in rows])
    groups = np.array([re.sub(r"_abbr_[0-9a-f]+$", "", str(r["db_id"])) for r, *_ in rows])
    names = sorted(set(groups))
    idx = {g: np.flatnonzero(groups == g) for g in names}
    rng = np.random.default_rng(0)
    samples = [np.concatenate([idx[g] for g in rng.choice(names, len(names))]) for _ in range(2000)]
    calls = sum(r.get("llm_calls") or 0 for r, *_ in rows)
    secs = sum(r.get("latency_s") or 0 for r, *_ in rows)
    print(f"{n} answers, {len(names)} databases, EX {base.mean():.3f}; {calls / n:.2f} calls and "
          f"{np.median([r.get('latency_s') or 0 for r, *_ in rows]):.1f} s median per question")
    for tau in (float(t) for t in a.taus.split(",")):
        new = base.copy()
        lat = np.array([r.get("latency_s") or 0.0 for r, *_ in rows])
        saved_calls, acted = 0, 0
        for k, (_r, surprise, right, after) in enumerate(rows):
            if surprise is None or surprise >= tau:
                continue
            acted += 1
            new[k] = int(right)
            saved_calls += after[0]
            lat[k] -= after[1]
        diff = new - base
        boots = [diff[s].mean() * 100 for s in samples]
        lo, hi = np.percentile(boots, [2.5, 97.5])
        print(f"tau {tau:.2f}: acts on {acted:3d} ({acted / n:.0%}), EX {new.mean():.3f} "
              f"({diff.mean() * 100:+.1f} [{lo:+.1f}, {hi:+.1f}]; won {(diff > 0).sum()}, lost {(diff < 0).sum()}), "
              f"calls saved {saved_calls / n:.2f}/q, median {np.median(lat):.1f} s, p95 {np.percentile(lat, 95):.1f} s "
              f"(was {np.percentile([r.get('latency_s') or 0 for r, *_ in rows], 95):.1f}), seconds saved {100 * (secs - lat.sum()) / secs:.0f}%")


if __name__ == "__main__":
    main()
