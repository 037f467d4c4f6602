"""Model-free: how often the opaque-column linking call is offered a word when the gold query needs an opaque column.

    python term_recall.py CHECKOUT WIDE_ABBREV [--skip N]

For every question of WIDE_ABBREV (dev.json, shuffled with seed 0; ``--skip N`` leaves out the first N of that
order) whose gold query's tables have an undocumented opaque column (``c10``), ``unnamed_terms`` of CHECKOUT is
computed over those tables, without the embedding synonyms. "reads" = the gold query reads an opaque column
outside its join conditions. Recall = questions that read one and get a term; false triggers = questions that
read none and get a term (each one costs the link call and can hold a right answer back from "verified").
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import warnings
from collections import Counter
from pathlib import Path

warnings.filterwarnings("ignore")


def main() -> int:
    """Print recall and false triggers for one checkout."""
    parser = argparse.ArgumentParser()
    parser.add_argument("checkout", type=Path)
    parser.add_argument("root", type=Path)
    parser.add_argument("--skip", type=int, default=0)
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout.resolve()))
    import sqlglot
    from sqlglot import exp

    from database.connection import Database
    from database.schema_reader import read_schema
    from knowledge.abbreviations import is_opaque_name
    from tools.question_terms import opaque_columns, unnamed_terms

    questions = json.loads((args.root / "dev.json").read_text())
    random.Random(0).shuffle(questions)
    tables: dict[str, list] = {}
    counts: Counter[tuple[str, bool]] = Counter()
    for q in questions[args.skip:]:
        db = q["db_id"]
        if db not in tables:
            tables[db] = read_schema(Database(f"sqlite:///{args.root}/database/{db}/{db}.sqlite"), sample_rows=0)
        try:
            tree = sqlglot.parse_one(q["query"], read="sqlite")
        except sqlglot.errors.SqlglotError:
            continue
        names = {t.name.lower() for t in tree.find_all(exp.Table)}
        used = [t for t in tables[db] if t.name.lower() in names]
        if not opaque_columns(used):
            continue
        in_joins = {id(c) for j in tree.find_all(exp.Join) for c in (j.args.get("on") or exp.true()).find_all(exp.Column)}
        reads = any(is_opaque_name(c.name) and id(c) not in in_joins for c in tree.find_all(exp.Column))
        counts[("reads" if reads else "none", bool(unnamed_terms(q["question"], used)))] += 1
    reads = counts[("reads", True)] + counts[("reads", False)]
    none = counts[("none", True)] + counts[("none", False)]
    print(f"recall {counts[('reads', True)]}/{reads} = {100 * counts[('reads', True)] / reads:.1f}%; "
          f"false triggers {counts[('none', True)]}/{none} = {100 * counts[('none', True)] / none:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
