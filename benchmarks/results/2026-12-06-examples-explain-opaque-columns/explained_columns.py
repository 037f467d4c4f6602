"""Answers held back for an opaque column read: does the examples glossary explain the column, and how often right.

Usage (repository root): ``python THIS.py WIDE_ABBREV RUN.jsonl [RUN.jsonl ...]`` on with-examples runs. The seed is
read from the file name (``seed2034``); each run's examples are rebuilt as the evaluation split them
(``eval.splits.example_split``, 40 per database) and their glossary as ``tools.example_glossary`` builds it.
"""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path
from typing import Any

from database.connection import Database
from eval.datasets import load_spider
from eval.splits import example_split
from tools.example_glossary import Glossary, glossary_from

MODEL = json.loads(Path("agent/confidence_model.json").read_text())
OTHER_HOLDS = ("unread_terms", "term_checks", "degenerate")


def held_only_by_guesses(rec: dict[str, Any]) -> bool:
    """Likely, score above the verified threshold, and no hold-back but the guessed columns."""
    conf = rec.get("confidence")
    if not isinstance(conf, dict) or rec.get("confidence_level") != "likely" or not rec.get("guessed_columns"):
        return False
    features = conf.get("features", {})
    return conf["score"] >= MODEL["verified"] and not any(features.get(k, 0) > 0 for k in OTHER_HOLDS)


def main(root: Path, runs: list[str]) -> None:
    """Print, over ``runs`` (record files) on the copies under ``root``, the counts and the levels before/after."""
    items = load_spider(root)
    by_id = {it.qid: it for it in items}
    total: collections.Counter[tuple[bool, bool, int]] = collections.Counter()
    levels = []
    for run in runs:
        recs = [json.loads(line) for line in Path(run).read_text().splitlines() if line.strip()]
        seed = int(re.search(r"seed(\d+)", run).group(1))  # type: ignore[union-attr]
        split = example_split(items, [by_id[r["qid"]] for r in recs if r["qid"] in by_id], per_db=40, seed=seed)
        glossaries: dict[str, Glossary] = {}
        before = [0, 0]
        after = [0, 0]
        for rec in recs:
            db_id = rec["db_id"]
            if db_id not in glossaries:
                db = Database(f"sqlite:///{root}/database/{db_id}/{db_id}.sqlite")
                glossaries[db_id] = glossary_from(db, False, [(e["question"], e["sql"]) for e in split.get(db_id, [])])
            guessed = rec.get("guessed_columns") or []
            explained = bool(guessed) and all(ref in glossaries[db_id] for ref in guessed)
            held = held_only_by_guesses(rec)
            if guessed and rec.get("confidence_level") is not None:
                total[(explained, held, rec["ex"])] += 1
            level = "verified" if held and explained else rec.get("confidence_level")
            if rec.get("confidence_level") == "verified":
                before = [before[0] + 1, before[1] + rec["ex"]]
            if level == "verified":
                after = [after[0] + 1, after[1] + rec["ex"]]
        n = len(recs)
        levels.append(f"{Path(run).name}: n={n} verified {before[0]} ({before[0] / n:.0%}, {before[1]}/{before[0]} "
                      f"right) -> {after[0]} ({after[0] / n:.0%}, {after[1]}/{after[0]} right)")
    print("answers that read a guessed column (explained by examples, held back only by it): right / all")
    for explained in (True, False):
        for held in (True, False):
            n = total[(explained, held, 1)] + total[(explained, held, 0)]
            print(f"  explained={explained} held-only={held}: {total[(explained, held, 1)]}/{n}")
    print("\nverified answers before -> after (a column the examples explain is no guess)")
    print("\n".join(levels))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
