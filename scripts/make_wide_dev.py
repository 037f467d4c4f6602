"""Write the wide development set: a fixed, stratified sample of spider-wide (2 questions per database).

    python scripts/make_wide_dev.py [--shared ../shared/benchmarks] [--per-db 2] [--seed 2026]
        [--out benchmarks/sets/wide-dev.jsonl]

The set is exactly what ``nl2sql eval --dataset spider --path ../shared/benchmarks/spider-wide --per-db 2
--seed 2026`` evaluates (and the same qids with ``spider-wide-syn``, whose file has the same questions in the
same order). One JSON line per question: ``qid``, ``db_id``, ``question`` (the synonym wording),
``original_question`` (the Spider wording) and ``query`` (gold SQL), so the set can be read without the
shared folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eval.datasets import load_spider, select  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", default=str(ROOT.parent / "shared" / "benchmarks"),
                        help="folder holding spider-wide/ and spider-wide-syn/")
    parser.add_argument("--per-db", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "sets" / "wide-dev.jsonl"))
    args = parser.parse_args()

    wide, syn = Path(args.shared) / "spider-wide", Path(args.shared) / "spider-wide-syn"
    original = select(load_spider(wide), per_db=args.per_db, seed=args.seed)
    reworded = select(load_spider(syn), per_db=args.per_db, seed=args.seed)
    if [it.qid for it in original] != [it.qid for it in reworded]:
        print("error: the two wordings give different questions; are the files still in the same order?")
        return 1
    syn_raw = json.loads((syn / "dev.json").read_text())
    rows = []
    for a, b in zip(original, reworded, strict=True):
        raw = syn_raw[int(a.qid.removeprefix("spider-"))]
        if (a.db_id, a.gold_sql, a.question) != (b.db_id, b.gold_sql, raw["original_question"]):
            print(f"error: {a.qid} differs between the two files")
            return 1
        rows.append({"qid": a.qid, "db_id": a.db_id, "question": b.question, "original_question": a.question,
                     "query": a.gold_sql})
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    per_db = Counter(r["db_id"] for r in rows)
    databases = len({it.db_id for it in load_spider(wide)})
    print(f"{len(rows)} questions from {len(per_db)} of {databases} databases "
          f"({min(per_db.values())}-{max(per_db.values())} per database) -> {out}")
    print(f"same wording in both files: {sum(r['question'] == r['original_question'] for r in rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
