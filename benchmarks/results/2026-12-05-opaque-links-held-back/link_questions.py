"""Ids of the questions of a sample on which the opaque-column links call can happen.

    python link_questions.py SEED WIDE_ABBREV > ids-seedSEED.txt

The sample is the evaluation's ``--per-db 2 --seed SEED --limit 134`` selection. A question qualifies when its
database has an undocumented opaque column and the question has a word no readable name accounts for
(tools.question_terms.unnamed_terms over all tables, without the embedding synonyms: a superset of the
questions where tools.opaque_columns.link_opaque_columns makes its call). On the other questions
``generation.link_opaque_hold_back`` cannot change anything, so the paired runs answer only these.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
warnings.filterwarnings("ignore")

from database.connection import Database  # noqa: E402
from eval.datasets import load_spider, select  # noqa: E402
from tools.opaque_columns import documented_tables  # noqa: E402
from tools.question_terms import opaque_columns, unnamed_terms  # noqa: E402


def main() -> int:
    """Print the qualifying ids, one per line; the sample size and count go to stderr."""
    seed, root = int(sys.argv[1]), Path(sys.argv[2])
    items = select(load_spider(root), per_db=2, seed=seed, limit=134)
    tables: dict[str, list] = {}
    out = []
    for it in items:
        if it.db_id not in tables:
            path = next((root / "database" / it.db_id).glob("*.sqlite"))
            tables[it.db_id] = documented_tables(Database(f"sqlite:///{path}"), False)
        if opaque_columns(tables[it.db_id]) and unnamed_terms(it.question, tables[it.db_id], None):
            out.append(it.qid)
    print(len(items), len(out), file=sys.stderr)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
