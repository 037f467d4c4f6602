"""EX with and without the column-choice check, from one live run's records (the check records the query before).

    python paired_live.py WIDE_ABBREV RECORDS.jsonl

Where the check rewrote the answer (``column_choice.outcome == "ok"``), the answer without it is the query it
checked (``from_sql``), executed here against the gold query with the evaluation's comparison; elsewhere both are
the recorded answer. Prints the flagged questions, the paired difference and the check's calls, tokens and seconds.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from database.connection import Database  # noqa: E402
from eval.metrics import gold_is_ordered, paired_bootstrap, results_match  # noqa: E402


def main() -> int:
    """Print flagged questions, EX with and without the check, and its cost."""
    root, path = Path(sys.argv[1]), Path(sys.argv[2])
    records = [json.loads(line) for line in path.read_text().splitlines()]
    with_check, without = [], []
    calls = prompt = completion = 0
    seconds = 0.0
    for rec in records:
        ex = float(bool(rec.get("ex")))
        before = ex
        choice = rec.get("column_choice")
        for use in rec.get("usage") or []:
            if use.get("label") == "column choice":
                calls += 1
                prompt += int(use.get("prompt_tokens") or 0)
                completion += int(use.get("completion_tokens") or 0)
                seconds += float(use.get("seconds") or use.get("latency_s") or 0.0)
        if choice:
            if choice.get("outcome") == "ok":
                db = Database(f"sqlite:///{next((root / 'database' / rec['db_id']).glob('*.sqlite'))}")
                gold, old = db.run_query(rec["gold_sql"]), db.run_query(choice["from_sql"])
                before = float(gold.ok and old.ok and results_match(gold.rows, old.rows,
                                                                  ordered=gold_is_ordered(rec["gold_sql"])))
            picks = [(p["column"], p["term"], p["picked"]) for p in choice["lookalikes"]]
            print(f"{rec['qid']} ex without {int(before)} with {int(ex)} {choice['outcome']} {picks}")
        with_check.append(ex)
        without.append(before)
    n = len(records)
    won = sum(a > b for a, b in zip(with_check, without, strict=True))
    lost = sum(a < b for a, b in zip(with_check, without, strict=True))
    print(f"n={n} with the check {sum(with_check):.0f}, without {sum(without):.0f}; won {won}, lost {lost}; "
          f"paired {paired_bootstrap(with_check, without)}")
    print(f"column-choice calls {calls} ({calls / n:.2f} per question), {prompt} prompt + {completion} completion "
          f"tokens, {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
