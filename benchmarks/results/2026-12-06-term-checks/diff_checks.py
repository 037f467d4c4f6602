"""Which column-meaning questions one run of measure_answerability.py asked and another did not, and why.

    python diff_checks.py BEFORE.json.gz AFTER.json.gz [BEFORE AFTER ...]

Terms are compared folded (knowledge.lookup.normalise), so "coaches" and "coache" are one word. A question asked
before and not after is put under: quoted (its word is inside quotation marks), contraction ("don" of "don't"),
or abbreviated (a table or column name part abbreviates it; "offered at 0.8" when one of the columns it offered
was scored by abbreviation, else the abbreviating name is in a table it did not offer).
"""

from __future__ import annotations

import collections
import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from knowledge.lookup import normalise  # noqa: E402
from tools.coverage import quoted_words  # noqa: E402

CONTRACTIONS = {"don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "haven", "hasn"}


def load(path: str) -> dict[str, dict]:
    """The per-question rows of a ``--json`` output (gzip or plain), by qid."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return {r["qid"]: r for r in json.load(f)}


def fold(term: str) -> str:
    """The folded form of a term."""
    return (normalise(term) or [term])[0]


def main() -> int:
    """Print one line per pair of runs."""
    for before, after in zip(sys.argv[1::2], sys.argv[2::2], strict=True):
        a, b = load(before), load(after)
        why: collections.Counter[str] = collections.Counter()
        added = []
        for qid, row in a.items():
            old = {fold(c["term"]) for c in row["term_checks"]}
            new = {fold(c["term"]) for c in b[qid]["term_checks"]}
            for term in sorted(old - new):
                scores = [o["score"] for c in row["term_checks"] if fold(c["term"]) == term for o in c["options"]]
                if term in quoted_words(row["question"]):
                    why["quoted"] += 1
                elif term in CONTRACTIONS:
                    why["contraction"] += 1
                elif any(s >= 0.8 for s in scores):
                    why["abbreviated, offered at 0.8"] += 1
                else:
                    why["abbreviated, by a table not offered"] += 1
            added += [f"{qid} {t}" for t in sorted(new - old)]
        asked = sum(bool(r["term_checks"]) for r in a.values()), sum(bool(r["term_checks"]) for r in b.values())
        print(f"{Path(before).name} -> {Path(after).name}: answers with a question {asked[0]} -> {asked[1]} of "
              f"{len(a)}; no longer asked: {dict(why)}; asked only after: {added}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
