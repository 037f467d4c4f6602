"""The missing-column choice alone, replayed on the failing candidates of recorded runs and scored against gold.

    python scripts/replay_missing_columns.py --spider /tmp/WIDE_ABBREV --chroma DIR --out rows.jsonl \\
        RUN.jsonl [RUN.jsonl ...]

Every candidate of the recorded evaluation runs (``nl2sql eval`` JSONL on an abbreviated copy,
``scripts/abbreviate_db.py``) whose query failed with a missing column is checked model-free
(:func:`tools.missing_column.find_missing`: a name no table of the database has, with opaque undocumented columns in
its table); for each one that qualifies, :func:`tools.missing_column.respell_until_runs` makes its calls with the
generator's system prompt (the retrieve_schema tool picks the prompt's tables as the agent does, no examples)
and the rewritten query is run and compared with the gold query's rows (``eval.metrics.results_match``, ordered
when the gold orders); a pick counts as named by the gold when the gold query's text has its table and column
names as words. Each (question, failing query) pair is replayed once. Prints how many qualify, how many
get a pick, how many picks run, return rows and match the gold; the JSONL keeps each pair. Needs the local model
server (``nl2sql llm serve``) or starts it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.llm import LLMProvider, UsageLog  # noqa: E402
from core.local_server import ensure_local_server  # noqa: E402
from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from eval.configs import parse_configs  # noqa: E402
from eval.datasets import EvalItem, load_spider  # noqa: E402
from eval.metrics import gold_is_ordered, results_match  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.indexing import index_database  # noqa: E402
from retrieval.store import ChromaStore  # noqa: E402
from tools.base import ToolCall, ToolContext  # noqa: E402
from tools.candidate import system_prompt  # noqa: E402
from tools.missing_column import find_missing, respell_until_runs  # noqa: E402
from tools.opaque_columns import documented_tables  # noqa: E402
from tools.registry import default_registry  # noqa: E402


def failing_pairs(runs: list[Path], items: dict[str, EvalItem]) -> list[tuple[EvalItem, str, str]]:
    """``(item, failing sql, error)`` of every recorded candidate that failed with a missing column, once each."""
    pairs: dict[tuple[str, str], tuple[EvalItem, str, str]] = {}
    for run in runs:
        for line in run.read_text().splitlines():
            rec = json.loads(line)
            item = items.get(str(rec.get("qid")))
            if item is None or item.db_id != rec.get("db_id"):
                continue
            for cand in rec.get("candidates") or []:
                error, sql = str(cand.get("error") or ""), str(cand.get("sql") or "")
                if sql and "no such column" in error:
                    pairs.setdefault((item.qid, sql), (item, sql, error))
    return list(pairs.values())


def replay_one(item: EvalItem, sql: str, error: str, settings: Settings, store: ChromaStore,
               llms: LLMProvider) -> dict[str, Any] | None:
    """The pair's pick and its outcome against gold, or None when the failure does not qualify."""
    db = Database.from_settings(settings)
    if find_missing(sql, error, documented_tables(db, False), db.dialect) is None:
        return None
    ctx = ToolContext(settings, db, store, llms, UsageLog())
    tool = default_registry().get("retrieve_schema")
    result = tool.run(tool.build_args(ToolCall(item.question, "#E1", "retrieve_schema", item.question), ctx), ctx)
    system = system_prompt(db.dialect, result.text if result.ok else "")
    found = respell_until_runs(ctx, system, item.question, sql, error)
    row: dict[str, Any] = {"qid": item.qid, "db_id": item.db_id, "question": item.question,
                           "gold_sql": item.gold_sql, "sql": sql, "error": error, "picked": None,
                           "outcome": "none", **ctx.usage.totals()}
    if found is None:
        return row
    new_sql, record = found
    pairs = list(zip(record["table"].split(", "), record["picked"].split(", "), strict=True))
    row.update(picked=", ".join(f"{t}.{c}" for t, c in pairs), new_sql=new_sql,
               pick_in_gold=all(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", item.gold_sql, re.I)
                                for pair in pairs for name in pair))
    res, gold = db.run_query(new_sql), db.run_query(item.gold_sql)
    if not res.ok:
        row["outcome"] = "error"  # not reached: respell_until_runs returns only a query that runs
    elif not res.rows:
        row["outcome"] = "empty"
    else:
        same = gold.ok and results_match(gold.rows, res.rows, ordered=gold_is_ordered(item.gold_sql, db.dialect))
        row["outcome"] = "gold" if same else "rows"
    return row


def main(argv: list[str] | None = None) -> int:
    """Replay, append each qualifying pair to ``--out`` (resumable) and print the counts; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path, help="recorded evaluation JSONL files")
    parser.add_argument("--spider", type=Path, required=True, help="abbreviated copy (scripts/abbreviate_db.py)")
    parser.add_argument("--chroma", type=Path, required=True, help="Chroma folder (kept; indexed incrementally)")
    parser.add_argument("--out", type=Path, required=True, help="JSONL of per-pair rows (resumed)")
    args = parser.parse_args(argv)
    items = {it.qid: it for it in load_spider(args.spider)}
    pairs = failing_pairs(args.runs, items)
    done = {(r["qid"], r["sql"]): r for r in map(json.loads, args.out.read_text().splitlines())} \
        if args.out.exists() else {}
    base = Settings()
    ensure_local_server(base)
    store = ChromaStore(args.chroma, get_embedding_function(base))
    llms = LLMProvider(base)
    no_examples = next(c for c in parse_configs("no_examples"))
    indexed: set[str] = set()
    rows = [r for r in done.values() if "outcome" in r]
    for item, sql, error in pairs:
        if (item.qid, sql) in done:
            continue
        settings = no_examples.apply(base.with_database(item.database_url))
        if item.database_url not in indexed:
            index_database(Database.from_settings(settings), store, settings, progress=False)
            indexed.add(item.database_url)
        row = replay_one(item, sql, error, settings, store, llms)
        with args.out.open("a") as fh:
            fh.write(json.dumps(row or {"qid": item.qid, "sql": sql}) + "\n")
        if row:
            rows.append(row)
            print(f"{len(rows)}: {item.qid} {error} -> {row['picked']} ({row['outcome']})", file=sys.stderr, flush=True)
    counts = Counter(r["outcome"] for r in rows)
    print(f"failing candidates with a missing column: {len(pairs)}; qualifying: {len(rows)} "
          f"(questions: {len({r['qid'] for r in rows})})")
    print(f"picks: {sum(r['picked'] is not None for r in rows)} (table and column named in the gold query: "
          f"{sum(bool(r.get('pick_in_gold')) for r in rows)}); they run with rows: {counts['rows'] + counts['gold']}"
          f"; match the gold: {counts['gold']}; empty: {counts['empty']}; error: {counts['error']}; "
          f"no query that runs (nothing picked, or still failing): {counts['none']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
