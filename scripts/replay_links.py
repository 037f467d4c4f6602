"""The opaque-column link call alone, replayed under several settings and scored against the gold query's columns.

    python scripts/replay_links.py --spider /tmp/WIDE_ABBREV --per-db 2 --seed 2042 --chroma DIR \\
        --variants current,readable --out links.jsonl [--limit N] [--skip-qids @file]

A live evaluation answers ~1 question a minute on 2 cores, and most of what changes in the link call does not
reach the answer: whether the model picks the right column for a word can be scored without writing any SQL.
For each question (``eval.datasets.select`` over an abbreviated copy, ``scripts/abbreviate_db.py``) the
retrieve_schema tool chooses the prompt's tables as the agent does (no examples), and
:func:`tools.opaque_columns.link_opaque_columns` is called once per variant with the generator's system prompt
(the variants share it, so the server's prompt cache reads it once). Questions that make no link call (no
opaque column in the prompt, no unnamed word) are passed over without one.

Each link is scored against the gold query's ``table.column`` pairs (:func:`eval.linking.gold_links`): right when
the gold reads that column; otherwise by what the gold reads (no opaque column, another opaque column of the same
table, a gold table but none of its opaque columns, a table the gold does not read). Recall: of the questions
whose gold reads an offered opaque column, those where some link names one. Prints one row per variant; the
JSONL keeps each question's links. Needs the local model server (``nl2sql llm serve``) or starts it.
"""

from __future__ import annotations

import argparse
import json
import random
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
from eval.datasets import EvalItem, load_spider, select  # noqa: E402
from eval.linking import gold_links  # noqa: E402
from knowledge.abbreviations import is_opaque_name  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.hybrid import load_catalog  # noqa: E402
from retrieval.indexing import index_database  # noqa: E402
from retrieval.store import ChromaStore  # noqa: E402
from tools.base import ToolCall, ToolContext  # noqa: E402
from tools.candidate import system_prompt  # noqa: E402
from tools.opaque_columns import documented_tables, link_opaque_columns, opaque_columns  # noqa: E402
from tools.registry import default_registry  # noqa: E402

VARIANTS: dict[str, dict[str, Any]] = {
    "current": {},
    "readable": {"link_readable_choices": True},
}
"""Variant name -> ``generation`` settings it changes."""


def kind_of(link: dict[str, str], gold_columns: set[tuple[str, str]], gold_tables: set[str]) -> str:
    """``right`` or the kind of error of one link (see the module docstring); names compared case-insensitively."""
    table, column = link["table"].lower(), link["column"].lower()
    if (table, column) in gold_columns:
        return "right"
    opaque = {(t, c) for t, c in gold_columns if is_opaque_name(c)}
    if not opaque:
        return "gold reads no opaque column"
    if table in {t for t, _ in opaque}:
        return "another opaque column of the table"
    return "a gold table, none of its opaque columns" if table in gold_tables else "a table the gold does not read"


def replay_one(item: EvalItem, settings: Settings, store: ChromaStore, llms: LLMProvider,
               variants: list[str]) -> dict[str, Any] | None:
    """One question's links under each variant, or None when it makes no link call or its gold cannot be read."""
    db = Database.from_settings(settings)
    catalog = load_catalog(store, db.key)
    gold = gold_links(item.gold_sql, catalog.columns) if catalog else None
    if gold is None:
        return None
    ctx = ToolContext(settings, db, store, llms, UsageLog())
    tool = default_registry().get("retrieve_schema")
    result = tool.run(tool.build_args(ToolCall(item.question, "#E1", "retrieve_schema", item.question), ctx), ctx)
    if not result.ok:
        return None
    tables = list(result.value["tables"])
    wanted = {t.lower() for t in tables}
    shown = [t for t in documented_tables(db, settings.knowledge.use_drafts) if t.name.lower() in wanted]
    offered = {(t.name.lower(), c.lower()) for t, c in opaque_columns(shown)}
    if not offered:
        return None
    system = system_prompt(db.dialect, result.text)
    gold_columns = {(t.lower(), c.lower()) for t, c in gold.columns}
    row: dict[str, Any] = {"qid": item.qid, "db_id": item.db_id, "question": item.question, "gold_sql": item.gold_sql,
                           "tables": tables, "gold_offered": sorted(f"{t}.{c}" for t, c in gold_columns & offered)}
    asked = False
    for name in variants:
        generation = settings.generation.model_copy(update=VARIANTS[name])
        vctx = ToolContext(settings.model_copy(update={"generation": generation}), db, store, llms, UsageLog())
        links = [link.as_dict() for link in link_opaque_columns(vctx, system, item.question, tables)]
        usage = vctx.usage.totals()
        asked = asked or usage["llm_calls"] > 0
        for link in links:
            link["kind"] = kind_of(link, gold_columns, {t.lower() for t in gold.tables})
        row[name] = {"links": links, **usage}
    return row if asked else None


def summary(rows: list[dict[str, Any]], variants: list[str]) -> str:
    """One Markdown row per variant: links, right share, error kinds, recall, tokens per question."""
    kinds = ["gold reads no opaque column", "another opaque column of the table",
             "a gold table, none of its opaque columns", "a table the gold does not read"]
    lines = [f"questions with a link call: {len(rows)}; of them gold reads an offered opaque column: "
             f"{sum(bool(r['gold_offered']) for r in rows)}", "",
             "| variant | links | right | " + " | ".join(kinds) + " | recall | prompt tokens/q |",
             "|---|---:|---:|" + "---:|" * len(kinds) + "---:|---:|"]
    for name in variants:
        counts: Counter[str] = Counter(link["kind"] for r in rows for link in r[name]["links"])
        total = sum(counts.values())
        needed = [r for r in rows if r["gold_offered"]]
        found = sum(any(link["kind"] == "right" for link in r[name]["links"]) for r in needed)
        tokens = sum(r[name]["prompt_tokens"] - r[name]["cached_tokens"] for r in rows) / max(len(rows), 1)
        share = f"{counts['right']} ({100 * counts['right'] / total:.0f}%)" if total else "0"
        lines.append(f"| {name} | {total} | {share} | " + " | ".join(str(counts[k]) for k in kinds)
                     + f" | {found}/{len(needed)} | {tokens:,.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Replay, append each question's row to ``--out`` (resumable) and print the summary; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spider", type=Path, required=True, help="abbreviated copy (scripts/abbreviate_db.py)")
    parser.add_argument("--per-db", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2042)
    parser.add_argument("--limit", type=int, default=None, help="stop after N questions that make the call")
    parser.add_argument("--skip-qids", default=None, help="@file of qids to leave out (questions already read)")
    parser.add_argument("--variants", default="current,readable", help=f"comma-separated of {', '.join(VARIANTS)}")
    parser.add_argument("--chroma", type=Path, required=True, help="Chroma folder (kept; indexed incrementally)")
    parser.add_argument("--out", type=Path, required=True, help="JSONL of per-question rows (resumed)")
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    skip = set(Path(args.skip_qids.lstrip("@")).read_text().split()) if args.skip_qids else set()
    items = [it for it in select(load_spider(args.spider), per_db=args.per_db, seed=args.seed) if it.qid not in skip]
    random.Random(args.seed).shuffle(items)
    done = {json.loads(line)["qid"]: json.loads(line) for line in args.out.read_text().splitlines()} \
        if args.out.exists() else {}
    base = Settings()
    ensure_local_server(base)
    store = ChromaStore(args.chroma, get_embedding_function(base))
    llms = LLMProvider(base)
    no_examples = next(c for c in parse_configs("no_examples"))
    indexed: set[str] = set()
    rows = [r for r in done.values() if "tables" in r]
    for item in items:
        if args.limit is not None and len(rows) >= args.limit:
            break
        if item.qid in done:
            continue
        settings = no_examples.apply(base.with_database(item.database_url))
        if item.database_url not in indexed:
            index_database(Database.from_settings(settings), store, settings, progress=False)
            indexed.add(item.database_url)
        row = replay_one(item, settings, store, llms, variants)
        with args.out.open("a") as fh:
            fh.write(json.dumps(row or {"qid": item.qid}) + "\n")
        if row:
            rows.append(row)
            print(f"{len(rows)}: {item.qid} " + "; ".join(
                f"{v}: {[(lk['term'], lk['column'], lk['kind'][:5]) for lk in row[v]['links']]}" for v in variants),
                file=sys.stderr, flush=True)
    print(summary([r for r in rows if all(v in r for v in variants)], variants))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
