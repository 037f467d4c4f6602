"""Replay the guessed-column and unread-term signals (tools.opaque_reads) on recorded evaluation runs.

    python replay_unread.py ROOT RUN.jsonl [ROOT RUN.jsonl ...]

ROOT is the Spider-layout dataset the run asked (``database/<db_id>/*.sqlite``). For each answered record the
two signals are computed from its question and predicted SQL against the database as documented today (no
drafts), and the shipped confidence model's level is recomputed with them (its score does not change: both
coefficients are 0, they act through ``hold_back``). Prints EX by signal, and the share of answers called
verified with their accuracy, before (the recorded features, guessed columns added) and after (unread terms
added too).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
warnings.filterwarnings("ignore")

from agent.confidence import confidence_features, load_model  # noqa: E402
from database.connection import Database  # noqa: E402
from tools.opaque_reads import guessed_columns, unread_terms  # noqa: E402


def replay(root: Path, run: Path) -> None:
    """Print one run's table."""
    model = load_model()
    dbs: dict[str, Database] = {}
    by_signal: dict[str, list[int]] = {}
    levels: dict[str, list[int]] = {"before": [0, 0], "after": [0, 0]}
    total = 0
    for line in run.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        sql = rec.get("pred_sql") or ""
        if not sql or rec.get("kind") != "answer" or rec.get("status") not in ("ok", "empty"):
            continue
        total += 1
        if rec["db_id"] not in dbs:
            dbs[rec["db_id"]] = Database(f"sqlite:///{next((root / 'database' / rec['db_id']).glob('*.sqlite'))}")
        db = dbs[rec["db_id"]]
        guessed = guessed_columns(db, False, sql)
        unread = unread_terms(db, False, rec["question"], sql)
        signal = "unread" if unread else "guessed" if guessed else "neither"
        cell = by_signal.setdefault(signal, [0, 0])
        cell[0] += int(rec["ex"])
        cell[1] += 1
        features = confidence_features({**rec, "guessed_columns": guessed})
        score = model.score(features)
        for name, feats in (("before", features), ("after", {**features, "unread_terms": float(bool(unread))})):
            if model.level(score, feats) == "verified":
                levels[name][0] += int(rec["ex"])
                levels[name][1] += 1
    print(f"{run.name}: {total} answers")
    for signal, (right, n) in sorted(by_signal.items()):
        print(f"  {signal:8s} {right}/{n} = {right / n:.1%} right")
    for name, (right, n) in levels.items():
        share = f"{right}/{n} = {right / n:.1%} right" if n else "none"
        print(f"  verified {name:6s} {n}/{total} = {n / total:.1%} of answers; {share}")


def main() -> int:
    """Replay each (ROOT, RUN) pair given on the command line."""
    args = sys.argv[1:]
    for root, run in zip(args[::2], args[1::2], strict=True):
        replay(Path(root), Path(run))
    return 0


if __name__ == "__main__":
    sys.exit(main())
