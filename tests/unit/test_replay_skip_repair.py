"""scripts/replay_skip_repair.py on a real SQLite file: the vote replayed without the repair of a failing candidate."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from scripts.replay_skip_repair import main, repaired_turn


def _record(qid: str, ex: int, candidates: list[tuple[str, str, str]]) -> dict[str, object]:
    return {"qid": qid, "db_id": "shop", "gold_sql": "SELECT name FROM t WHERE n > 1", "ex": ex,
            "candidates": [{"index": i, "strategy": s, "status": st, "sql": q}
                           for i, (s, st, q) in enumerate(candidates, start=1)],
            "usage": [{"role": "generator", "label": "candidate 2 repair", "latency_s": 12.5}]}


def test_replay_drops_the_repair_and_revotes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (name TEXT, n INTEGER)")
        con.executemany("INSERT INTO t VALUES (?, ?)", [("a", 1), ("b", 2), ("c", 3)])
    wrong, right = "SELECT name FROM t", "SELECT name FROM t WHERE n >= 2"
    rows = [
        # the repair's wrong rows won a tie with the direct candidate; without it direct decides: won
        _record("q1", 0, [("whole_schema", "error", "SELECT nope FROM t"), ("repair", "ok", wrong),
                          ("direct", "ok", right)]),
        # nothing else returned rows: undecided
        _record("q2", 1, [("whole_schema", "error", "SELECT nope FROM t"), ("repair", "ok", right),
                          ("direct", "error", "SELECT x FROM t")]),
        # the first candidate ran: not a case
        _record("q3", 1, [("whole_schema", "ok", right), ("direct", "ok", right)]),
    ]
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [repaired_turn(r, "whole_schema") for r in rows] == [1, 1, None]
    assert main(["--sqlite", str(db), str(records)]) == 0
    out = capsys.readouterr().out
    assert "whole_schema failed its dry run on 2; repaired on 2; the repair failed again on 0" in out
    assert "repairs: 2 LLM calls, 25 s of generation" in out
    assert "lower bound (undecided = lost): 1; won 1, lost 1" in out
    assert "upper bound (undecided = recorded): 2; won 1, lost 0" in out
