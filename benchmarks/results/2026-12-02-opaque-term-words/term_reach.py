"""Which recorded opaque-column links a change of term finding drops (needs no model server).

    git show 9dbe8f1:tools/question_terms.py > before_terms.py
    python term_reach.py SPIDER_FOLDER RECORDS.jsonl before_terms.py [--ids OUT.txt]

For every question of RECORDS that made the opaque-links call, the question's terms are found over all tables of
its database (an upper bound: the agent looks at the prompt's tables) with the module given (``before``) and with
today's :func:`tools.question_terms.unnamed_terms`, both with the synonym guard at the shipped threshold. A
recorded link is dropped when its word is in no term of today's. "right" means the gold query names the link's
column (a rough proxy: the gold query may read it for another word). Prints each dropped link and the totals;
``--ids`` writes the questions whose terms differ.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.term_similarity import similar_words  # noqa: E402
from tools.question_terms import readable_phrases, unnamed_terms  # noqa: E402


def main() -> int:
    """Print the dropped links and the totals; returns the exit code."""
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spider")
    parser.add_argument("records")
    parser.add_argument("before")
    parser.add_argument("--ids")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("before_terms", args.before)
    assert spec and spec.loader
    before = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(before)
    settings = Settings(local_llm={"auto_start": False})
    embed, threshold = get_embedding_function(settings), settings.generation.link_synonym_similarity
    rows = [json.loads(line) for line in Path(args.records).read_text().splitlines() if line.strip()]
    tally = {"dropped right": 0, "dropped wrong": 0, "kept right": 0, "kept wrong": 0}
    asked, no_call, changed = 0, 0, []
    for rec in rows:
        if not any(u.get("label") == "opaque links" for u in rec.get("usage") or []):
            continue
        asked += 1
        path = Path(args.spider) / "database" / rec["db_id"] / f"{rec['db_id']}.sqlite"
        db = Database.from_settings(Settings(database_url=f"sqlite:///{path}", local_llm={"auto_start": False}))
        tables = read_schema(db, sample_rows=0)
        phrases = readable_phrases(tables)

        def close(words: list[str], phrases: list[str] = phrases) -> set[str]:
            return similar_words(words, phrases, embed, threshold)

        old, new = before.unnamed_terms(rec["question"], tables, close), unnamed_terms(rec["question"], tables, close)
        changed += [rec["qid"]] if old != new else []
        no_call += not new
        for link in rec.get("column_links") or []:
            right = bool(re.search(rf"\b{re.escape(link['column'])}\b", rec["gold_sql"], re.IGNORECASE))
            kept = any(link["term"] in t or t in link["term"] for t in new)
            tally[f"{'kept' if kept else 'dropped'} {'right' if right else 'wrong'}"] += 1
            if not kept:
                print(f"{rec['qid']}: {link['term']!r} -> {link['table']}.{link['column']} "
                      f"({'right' if right else 'wrong'}); terms {old} -> {new}")
    print(f"questions with the call: {asked}; terms changed: {len(changed)}; no call any more: {no_call}")
    print("recorded links: " + ", ".join(f"{k} {v}" for k, v in tally.items()))
    if args.ids:
        Path(args.ids).write_text("".join(f"{q}\n" for q in changed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
