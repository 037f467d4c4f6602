"""The recorded cascades re-voted with the missing-column choice's rewrites in place of the candidates they fix.

    python vote_replay.py CHECKOUT WIDE_ABBREV replay-missing-columns.jsonl RUN.jsonl [RUN.jsonl ...]

Model-free and approximate. For each recorded answer with a candidate the replay fixed (``replay_missing_columns.py``
rows with a ``new_sql``), the recorded candidates are walked in order and each is executed on the abbreviated
copy: a candidate whose query runs with rows votes for its result, one the replay fixed votes with the fixed
query's result instead; the walk stops once two votes name one result (``generation.consistency.agree`` = 2) and the
answer is the largest group's first query (ties: the earlier group). Without the fixes the same walk gives the
baseline, so both sides share the approximation: the candidates a real run would have written instead of the
repairs a fix makes unneeded are not known. Prints EX of both walks on these answers and the answers that change.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, sys.argv[1])

from database.connection import Database  # noqa: E402
from eval.datasets import load_spider  # noqa: E402
from eval.metrics import gold_is_ordered, paired_bootstrap, results_match  # noqa: E402


def walk(db: Database, cands: list[dict], fixed: dict[str, str]) -> str | None:
    """The query the voting cascade would answer with (None when no candidate has rows)."""
    groups: list[tuple[list, list[str]]] = []
    for cand in cands:
        sql = fixed.get(cand.get("sql") or "") if "no such column" in str(cand.get("error")) else None
        sql = sql or (cand.get("sql") if cand.get("status") == "ok" else None)
        if not sql:
            continue
        res = db.run_query(sql)
        if not res.ok or not res.rows:
            continue
        for rows, queries in groups:
            if results_match(rows, res.rows, ordered=False):
                queries.append(sql)
                break
        else:
            groups.append((res.rows, [sql]))
        if any(len(q) >= 2 for _, q in groups):
            break
    if not groups:
        return None
    return max(groups, key=lambda g: len(g[1]))[1][0]


def right(db: Database, gold_sql: str, sql: str | None) -> int:
    """1 when ``sql`` runs and returns the gold query's rows (ordered when the gold orders), else 0."""
    gold = db.run_query(gold_sql)
    res = db.run_query(sql) if sql else None
    ordered = gold_is_ordered(gold_sql, db.dialect)
    return int(bool(res and res.ok and gold.ok and results_match(gold.rows, res.rows, ordered=ordered)))


def main() -> None:
    """Walk every recorded answer with a fixed candidate twice and print the comparison."""
    root, replay, runs = Path(sys.argv[2]), Path(sys.argv[3]), [Path(p) for p in sys.argv[4:]]
    items = {it.qid: it for it in load_spider(root)}
    fixes: dict[tuple[str, str], str] = {}
    for line in replay.read_text().splitlines():
        row = json.loads(line)
        if row.get("new_sql"):
            fixes[(row["qid"], row["sql"])] = row["new_sql"]
    before, after, changed = [], [], []
    for run in runs:
        for line in run.read_text().splitlines():
            rec = json.loads(line)
            item = items.get(str(rec.get("qid")))
            if item is None or item.db_id != rec.get("db_id"):
                continue
            cands = rec.get("candidates") or []
            fixed = {c["sql"]: fixes[(item.qid, c["sql"])] for c in cands if (item.qid, c.get("sql")) in fixes}
            if not fixed:
                continue
            db = Database(item.database_url)
            a = right(db, item.gold_sql, walk(db, cands, {}))
            b = right(db, item.gold_sql, walk(db, cands, fixed))
            before.append(a)
            after.append(b)
            if a != b:
                changed.append(f"{run.parent.name}/{run.name} {item.qid}: {a} -> {b}")
    n = len(before)
    diff = paired_bootstrap(after, before)
    print(f"recorded answers with a fixed candidate: {n}; walk without fixes {sum(before)}/{n}, with fixes "
          f"{sum(after)}/{n}; paired {diff}")
    print(f"changed: {len(changed)} (won {sum(c.endswith('0 -> 1') for c in changed)}, "
          f"lost {sum(c.endswith('1 -> 0') for c in changed)})")
    print("\n".join(changed))


if __name__ == "__main__":
    main()
