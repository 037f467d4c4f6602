"""How often the numbers-as-text note fires on recorded answers, and how those answers scored. No model.

    python benchmarks/results/2026-12-07-text-order/replay.py ROOT RECORDS.jsonl...     # from the repository root

ROOT is the Spider-layout folder the records were asked on (``database/<db_id>/<db_id>.sqlite``). Each distinct
(database, predicted SQL) is checked once with :func:`tools.text_order.text_order_notes`.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from database.connection import Database
from tools.text_order import text_order_notes

root, files = Path(sys.argv[1]), sys.argv[2:]
seen: dict[tuple[str, str], list[str]] = {}
counts: Counter[str] = Counter()
for name in files:
    for line in Path(name).read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        sql, db_id = r.get("pred_sql"), r.get("db_id")
        if not sql or not db_id or r.get("ex") is None:
            continue
        key = (db_id, sql)
        if key not in seen:
            path = next((root / "database" / db_id).glob("*.sqlite"), None)
            seen[key] = text_order_notes(Database(f"sqlite:///{path}"), sql) if path else []
        counts["answers"] += 1
        if seen[key]:
            counts["noted"] += 1
            counts["noted right"] += int(r["ex"])
            counts[f"column {seen[key][0].split(' ')[0]}"] += 1
print(dict(counts))
