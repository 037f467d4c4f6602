"""Gold-table recall of schema retrieval (stage 1 + 2), dense-only vs hybrid, on Spider dev and the demo set.

For every question the gold tables are the tables its gold SQL references (sqlglot, CTE names excluded). A
question counts as *covered* at k when all its gold tables are among the top-k ranked tables plus the bridge
tables that join them (stage 1 + 2); *per-table* recall is the mean fraction of gold tables retrieved. The
``tool`` column is the retrieve_schema tool's budgeted selection (k=8 tables, 2400 tokens by default; databases
that fit the budget are shown whole, so it is 100% for small databases). Spider databases are small (most have
at most 8 tables), so the subset of databases with more than 5 tables is reported too.

Usage::

    python scripts/measure_retrieval.py [--spider data/spider-dev] [--limit N] [--ks 1 3 5] [--budget T] [--no-bridges]

Indexes every database into a temporary Chroma folder (about 1 minute on 2 cores) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import sqlglot
import sqlglot.expressions as exp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.settings import DATA_DIR, Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.joins import bridge_tables  # noqa: E402
from eval.datasets import EvalItem, load_demo, load_spider  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.hybrid import TableCatalog, load_catalog  # noqa: E402
from retrieval.indexing import build_indexes  # noqa: E402
from retrieval.retrievers import Mode, TableHit, rank_tables  # noqa: E402
from retrieval.store import ChromaStore  # noqa: E402
from tools.schema_retrieval import select_within_budget  # noqa: E402

MODES: tuple[Mode, ...] = ("dense", "hybrid")


def gold_tables(sql: str, catalog: TableCatalog) -> set[str] | None:
    """Tables of ``catalog`` referenced by ``sql`` (CTE names excluded); None when sqlglot cannot parse it."""
    names = {n.lower(): n for n in catalog.names}
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return None
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    found = {t.name.lower() for t in tree.find_all(exp.Table)} - ctes
    return {names[t] for t in found if t in names} or None


def score_question(
    store: ChromaStore, catalog: TableCatalog, item: EvalItem, gold: set[str], ks: list[int], mode: Mode,
    k_tool: int, budget: int, bridges: bool = True,
) -> dict[str, Any]:
    """Covered / per-table recall at each k (top-k + bridges) and for the tool's budgeted selection."""
    ranked = rank_tables(store, catalog, item.question, max(3 * k_tool, 30, *ks), mode=mode)
    row: dict[str, Any] = {}
    for k in ks:
        top = [h.name for h in ranked[:k]]
        got = set(top) | set(bridge_tables(top, catalog.graph) if bridges else [])
        row[f"all@{k}"] = gold <= got
        row[f"per@{k}"] = len(gold & got) / len(gold)
        row[f"n@{k}"] = len(got)

    def lookup(name: str) -> TableHit:
        return TableHit(name, 0.0, catalog.schema_doc(name), bridge=True)

    graph = catalog.graph if bridges else None
    chosen = {h.name for h in select_within_budget(ranked, k_tool, budget, graph=graph, lookup=lookup)}
    row.update({"all@tool": gold <= chosen, "per@tool": len(gold & chosen) / len(gold), "n@tool": len(chosen)})
    return row


def summarize(rows: list[dict[str, Any]], ks: list[str]) -> str:
    """Markdown cells: covered% / per-table% (mean tables shown) for each k."""
    cells = []
    for k in ks:
        all_k = 100 * statistics.mean(r[f"all@{k}"] for r in rows)
        per_k = 100 * statistics.mean(r[f"per@{k}"] for r in rows)
        n_k = statistics.mean(r[f"n@{k}"] for r in rows)
        cells.append(f"{all_k:.1f} / {per_k:.1f} ({n_k:.1f})")
    return " | ".join(cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spider", type=Path, default=DATA_DIR / "spider-dev")
    parser.add_argument("--limit", type=int, default=None, help="at most N Spider questions")
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 3, 5])
    parser.add_argument("--budget", type=int, default=None, help="token budget of the tool column (default: settings)")
    parser.add_argument("--no-bridges", action="store_true", help="ablation: stage 1 only, no bridge tables")
    parser.add_argument("--chroma", type=Path, default=None, help="Chroma folder (default: a temp folder)")
    args = parser.parse_args(argv)

    settings = Settings()
    cfg = settings.retrieval
    items = {"spider": load_spider(args.spider)[: args.limit], "demo": load_demo()}
    with tempfile.TemporaryDirectory(prefix="nl2sql-measure-") as tmp:
        store = ChromaStore(args.chroma or Path(tmp) / "chroma", get_embedding_function(settings))
        started = time.perf_counter()
        catalogs: dict[str, TableCatalog] = {}
        for item in [*items["spider"], *items["demo"]]:
            if item.db_id not in catalogs:
                db = Database(item.database_url)
                build_indexes(db, store, sample_rows=cfg.sample_rows, progress=False)
                db.dispose()
                catalog = load_catalog(store, db.key)
                assert catalog is not None
                catalogs[item.db_id] = catalog
        print(f"indexed {len(catalogs)} databases in {time.perf_counter() - started:.1f} s", file=sys.stderr)

        results: dict[tuple[str, Mode], list[dict[str, Any]]] = defaultdict(list)
        skipped = 0
        started = time.perf_counter()
        for dataset, dataset_items in items.items():
            for item in dataset_items:
                catalog = catalogs[item.db_id]
                gold = gold_tables(item.gold_sql, catalog)
                if gold is None:
                    skipped += 1
                    continue
                for mode in MODES:
                    row = score_question(store, catalog, item, gold, args.ks, mode, cfg.top_k_tables,
                                         args.budget or cfg.schema_token_budget, bridges=not args.no_bridges)
                    results[(dataset, mode)].append(row)
                    if dataset == "spider" and len(catalog.names) > 5:
                        results[("spider >5 tables", mode)].append(row)
                    if len(gold) >= 2:
                        results[(f"{dataset} multi-table", mode)].append(row)
        print(f"scored in {time.perf_counter() - started:.1f} s; {skipped} gold SQL unparsable", file=sys.stderr)

    ks = [str(k) for k in args.ks] + ["tool"]
    print("covered% / per-table% (mean tables retrieved incl. bridges); covered = all gold tables retrieved\n")
    print("| dataset | questions | mode | " + " | ".join(f"k={k}" for k in ks) + " |")
    print("|---|---|---|" + "---|" * len(ks))
    for (dataset, mode), rows in results.items():
        print(f"| {dataset} | {len(rows)} | {mode} | {summarize(rows, ks)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
