"""Schema-linking recall of the retrieve_schema tool at several token budgets, on original and abbreviated names.

For each question the gold query's tables and ``table.column`` pairs (sqlglot, qualified against the schema;
:mod:`eval.linking`) are compared with the tables of the schema text the retrieve_schema tool chooses. Reported
per budget: table recall, column recall, the share of questions whose every gold table and column is shown, the
share whose schema was cut (did not fit whole) and the mean schema tokens. Small budgets force a cut, which is
where ranking decides what the generator can see.

    python scripts/measure_linking.py --spider ../shared/benchmarks/spider-wide \\
        [--abbreviated /path/to/wide-abbrev] [--per-db 2 --seed 2026] [--set benchmarks/sets/wide-dev.jsonl] \\
        [--budgets 2400,1200,600] [--chroma DIR] [--out linking.json] [--limit N]

The questions are ``eval.datasets.select(load_spider(SPIDER), per_db=2, seed=2026)``, the selection
``nl2sql eval --per-db 2 --seed 2026`` evaluates (for spider-wide: the wide development set; with ``--set`` the
qids are checked against that file). ``--abbreviated`` is a copy written by ``scripts/abbreviate_db.py`` (its own
``dev.json`` with rewritten gold queries and ``source_index``): its questions with the same qids are measured too,
so the two rows pair. Each database is indexed as ``nl2sql index`` does (profiled schema documents; no value
index, which table ranking does not read) into ``--chroma`` (kept and refreshed incrementally) or a temp folder.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from eval.datasets import EvalItem, load_spider, select  # noqa: E402
from eval.linking import gold_links, linking_for_budgets, summarize, tool_context  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.hybrid import load_catalog  # noqa: E402
from retrieval.indexing import build_indexes  # noqa: E402
from retrieval.store import ChromaStore  # noqa: E402


def load_items(spider: Path, abbreviated: Path | None, per_db: int, seed: int,
               set_file: Path | None, limit: int | None) -> dict[str, list[EvalItem]]:
    """``{"original": items, "abbreviated": the copy's items with the same qids}`` (the second only when given).

    Prints a warning when ``set_file`` lists other qids than the per-database selection.
    """
    original = select(load_spider(spider), per_db=per_db, seed=seed)[:limit]
    if set_file is not None and set_file.exists():
        listed = [json.loads(line)["qid"] for line in set_file.read_text().splitlines() if line.strip()]
        if limit is None and listed != [it.qid for it in original]:
            print(f"warning: {set_file} lists other questions than the selection", file=sys.stderr)
    sets = {"original": original}
    if abbreviated is not None:
        by_qid = {it.qid: it for it in load_spider(abbreviated)}
        sets["abbreviated"] = [by_qid[it.qid] for it in original if it.qid in by_qid]
        lost = len(original) - len(sets["abbreviated"])
        if lost:
            print(f"{lost} questions have no abbreviated copy (their rewrite was dropped)", file=sys.stderr)
    return sets


def index_all(store: ChromaStore, settings: Settings, items: list[EvalItem], *, refresh: bool = True) -> dict[str, str]:
    """Index each database of ``items`` (incrementally; without ``refresh`` only those not indexed yet); returns
    db_id -> database key."""
    cfg = settings.retrieval
    keys: dict[str, str] = {}
    started = time.perf_counter()
    for item in items:
        if item.db_id in keys:
            continue
        db = Database(item.database_url)
        if refresh or store.count("description_index", where={"db": db.key}) == 0:
                build_indexes(db, store, sample_rows=cfg.sample_rows, progress=False, profile=True,
                          sensitive_patterns=cfg.sensitive_patterns)
        keys[item.db_id] = db.key
        db.dispose()
    print(f"indexed {len(keys)} databases in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return keys


def measure(store: ChromaStore, settings: Settings, items: list[EvalItem], keys: dict[str, str],
            budgets: list[int]) -> list[dict[str, Any]]:
    """One row per question and budget (:func:`eval.linking.link_row` plus qid, db_id, budget, gold)."""
    rows = []
    for item in items:
        catalog = load_catalog(store, keys[item.db_id])
        gold = gold_links(item.gold_sql, catalog.columns) if catalog else None
        if gold is None:
            print(f"skipped {item.qid}: gold SQL not linked", file=sys.stderr)
            continue
        ctx = tool_context(settings, store, keys[item.db_id])
        for budget, row in linking_for_budgets(item.question, gold, ctx, budgets).items():
            rows.append({"qid": item.qid, "db_id": item.db_id, "budget": budget,
                         "gold_tables": sorted(gold.tables),
                         "gold_columns": sorted(f"{t}.{c}" for t, c in gold.columns), **row})
    return rows


def table(summary: dict[str, dict[str, dict[str, float]]]) -> str:
    """Markdown table of the summaries by names set and budget."""
    lines = ["| names | budget | questions | table recall | column recall | all gold columns | cut | tokens |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for names, by_budget in summary.items():
        for budget, s in by_budget.items():
            lines.append(f"| {names} | {budget} | {s['questions']} | {s['table_recall']:.1f} | "
                         f"{s['column_recall']:.1f} | {s['complete']:.1f} | {s['cut']:.1f} | {s['tokens']:,} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spider", type=Path, default=ROOT.parent / "shared" / "benchmarks" / "spider-wide")
    parser.add_argument("--abbreviated", type=Path, default=None, help="abbreviated copy (scripts/abbreviate_db.py)")
    parser.add_argument("--per-db", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--set", default=str(ROOT / "benchmarks" / "sets" / "wide-dev.jsonl"),
                        help="set file whose qids the selection should equal (checked when it exists; '' for none)")
    parser.add_argument("--budgets", default="2400,1200,600", help="comma-separated token budgets")
    parser.add_argument("--limit", type=int, default=None, help="at most N questions (of the selection)")
    parser.add_argument("--chroma", type=Path, default=None, help="Chroma folder to keep (default: a temp folder)")
    parser.add_argument("--no-refresh", action="store_true",
                        help="with --chroma: do not re-read databases already indexed there (documents unchanged)")
    parser.add_argument("--out", type=Path, default=None, help="JSON file: settings, summary and per-question rows")
    args = parser.parse_args(argv)

    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    settings = Settings(retrieval={"use_knowledge": False}, local_llm={"auto_start": False})
    sets = load_items(args.spider, args.abbreviated, args.per_db, args.seed, Path(args.set) if args.set else None,
                      args.limit)
    summary: dict[str, dict[str, dict[str, float]]] = {}
    rows: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="nl2sql-linking-") as tmp:
        store = ChromaStore(args.chroma or Path(tmp) / "chroma", get_embedding_function(settings))
        for names, items in sets.items():
            keys = index_all(store, settings, items, refresh=not args.no_refresh)
            started = time.perf_counter()
            rows[names] = measure(store, settings, items, keys, budgets)
            print(f"{names}: {len(items)} questions scored in {time.perf_counter() - started:.0f} s",
                  file=sys.stderr)
            summary[names] = {str(b): summarize([r for r in rows[names] if r["budget"] == b]) for b in budgets}
    print(table(summary))
    if args.out:
        config = {"spider": str(args.spider), "abbreviated": str(args.abbreviated or ""), "per_db": args.per_db,
                  "seed": args.seed, "budgets": budgets, "k": settings.retrieval.top_k_tables,
                  "core_fraction": settings.retrieval.core_block_fraction}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"config": config, "summary": summary, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
