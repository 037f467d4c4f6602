"""Which recorded opaque-column links the synonym guard drops, by similarity threshold (needs no model server).

    python guard_reach.py SPIDER_FOLDER RECORDS.jsonl [--ids OUT.txt]

For every question of RECORDS that made the opaque-links call, the question's terms are found again over all
tables of its database (:func:`tools.question_terms.unnamed_terms`), without and with the guard
(:func:`retrieval.term_similarity.similar_words` against :func:`tools.question_terms.readable_phrases`), for
thresholds 0.45-0.70. A recorded link is "right" when the gold query names its column (a rough proxy: the
gold query may read the column for another word). Prints, per threshold, the recorded links the guard would
drop or keep, right and wrong, and how many questions would make no call; ``--ids`` writes the questions whose
terms change at the shipped threshold against the terms before the guard (no synonyms, negated verbs kept):
the ones worth asking again.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from database.schema_types import TableInfo  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.term_similarity import similar_words  # noqa: E402
from tools import question_terms  # noqa: E402
from tools.question_terms import readable_phrases, unnamed_terms  # noqa: E402

THRESHOLDS = (0.45, 0.5, 0.55, 0.6, 0.65, 0.7)


def before(question: str, tables: list[TableInfo]) -> list[str]:
    """The terms as found before the guard: no synonyms, and negated verbs ("didn't") kept as words."""
    saved, question_terms._NEGATION = question_terms._NEGATION, re.compile(r"(?!)")
    try:
        return unnamed_terms(question, tables)
    finally:
        question_terms._NEGATION = saved


def main() -> int:
    """Print the table; returns the exit code."""
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spider")
    parser.add_argument("records")
    parser.add_argument("--ids")
    args = parser.parse_args()
    settings = Settings(local_llm={"auto_start": False})
    embed, shipped = get_embedding_function(settings), settings.generation.link_synonym_similarity
    rows = [json.loads(line) for line in Path(args.records).read_text().splitlines() if line.strip()]
    tally = {t: [0, 0, 0, 0, 0] for t in THRESHOLDS}  # dropped right, dropped wrong, kept right, kept wrong, no call
    changed, asked = [], 0
    for rec in rows:
        if not any(u.get("label") == "opaque links" for u in rec.get("usage") or []):
            continue
        asked += 1
        db = Database(f"sqlite:///{Path(args.spider) / 'database' / rec['db_id'] / (rec['db_id'] + '.sqlite')}")
        tables = read_schema(db, sample_rows=0)
        phrases = readable_phrases(tables)
        links = rec.get("column_links") or []
        for t in THRESHOLDS:
            terms = unnamed_terms(rec["question"], tables, lambda ws, t=t, p=phrases: similar_words(ws, p, embed, t))
            tally[t][4] += not terms
            for link in links:
                right = re.search(rf"(?<!\w){re.escape(str(link['column']))}(?!\w)", rec["gold_sql"], re.I)
                tally[t][(2 if link["term"] in terms else 0) + (0 if right else 1)] += 1
            if t == shipped and terms != before(rec["question"], tables):
                changed.append(rec["qid"])
    print(f"questions that made the call: {asked}; recorded links: {sum(tally[THRESHOLDS[0]][:4])}")
    print("threshold  dropped right  dropped wrong  kept right  kept wrong  no call any more")
    for t, (dr, dw, kr, kw, none) in tally.items():
        print(f"{t:>9}  {dr:>13}  {dw:>13}  {kr:>10}  {kw:>10}  {none:>16}")
    print(f"terms change at {shipped} on {len(changed)} questions: {' '.join(changed)}")
    if args.ids:
        Path(args.ids).write_text("".join(f"{q}\n" for q in changed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
