"""Abbreviated-copy questions outside a recorded run that should make the opaque-links call (needs no model server).

    python select_fresh.py SPIDER_FOLDER RECORDS.jsonl --count 45 --seed 2027 --out ids.txt

A question qualifies when the tables its gold query reads (a proxy for the tables schema linking puts in the
prompt) have undocumented opaque columns (:func:`tools.question_terms.opaque_columns`) and the question has words
no readable name of those tables accounts for (:func:`tools.question_terms.unnamed_terms`, with the synonym
guard at the shipped threshold) - the two conditions of the call. Questions of RECORDS are left out. At most
one question per database, databases in a seeded random order; the qids are written to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import warnings
from pathlib import Path

import sqlglot
from sqlglot import exp

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.term_similarity import similar_words  # noqa: E402
from tools.question_terms import opaque_columns, readable_phrases, unnamed_terms  # noqa: E402


def gold_tables(sql: str) -> set[str]:
    """Lower-cased names of the tables a gold query reads (empty when it does not parse)."""
    try:
        return {t.name.lower() for t in sqlglot.parse_one(sql, read="sqlite").find_all(exp.Table)}
    except sqlglot.errors.SqlglotError:
        return set()


def main() -> int:
    """Write the qualifying qids; returns the exit code."""
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spider")
    parser.add_argument("records")
    parser.add_argument("--count", type=int, default=45)
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    seen = {json.loads(line)["qid"] for line in Path(args.records).read_text().splitlines() if line.strip()}
    questions = json.loads((Path(args.spider) / "dev.json").read_text())
    by_db: dict[str, list[tuple[str, dict]]] = {}
    for i, q in enumerate(questions):
        qid = f"spider-{q.get('source_index', i)}"
        if qid not in seen:
            by_db.setdefault(q["db_id"], []).append((qid, q))
    settings = Settings(local_llm={"auto_start": False})
    embed, threshold = get_embedding_function(settings), settings.generation.link_synonym_similarity
    rng = random.Random(args.seed)
    dbs = sorted(by_db)
    rng.shuffle(dbs)
    chosen: list[str] = []
    for db_id in dbs:
        if len(chosen) >= args.count:
            break
        path = Path(args.spider) / "database" / db_id / f"{db_id}.sqlite"
        db = Database.from_settings(Settings(database_url=f"sqlite:///{path}", local_llm={"auto_start": False}))
        schema = read_schema(db, sample_rows=0)
        items = by_db[db_id]
        rng.shuffle(items)
        for qid, q in items:
            tables = [t for t in schema if t.name.lower() in gold_tables(q["query"])]
            if not tables or not opaque_columns(tables):
                continue
            phrases = readable_phrases(tables)

            def close(words: list[str], phrases: list[str] = phrases) -> set[str]:
                return similar_words(words, phrases, embed, threshold)

            if unnamed_terms(q["question"], tables, close):
                chosen.append(qid)
                break
    Path(args.out).write_text("".join(f"{q}\n" for q in chosen))
    print(f"{len(chosen)} questions from {len(dbs)} databases written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
