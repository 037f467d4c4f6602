"""Ids of the questions of a sample whose database has an undocumented opaque column.

    python opaque_questions.py SEED WIDE_ABBREV > ids-seedSEED.txt

The sample is the evaluation's ``--per-db 2 --seed SEED --limit 134`` selection. On a database without an opaque
undocumented column (``c14``) ``retrieval.opaque_value_hints`` changes no prompt, so the paired runs answer only
the other questions.
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
from tools.question_terms import opaque_columns  # noqa: E402


def main() -> int:
    """Print the qualifying ids, one per line; the sample size and count go to stderr."""
    seed, root = int(sys.argv[1]), Path(sys.argv[2])
    items = select(load_spider(root), per_db=2, seed=seed, limit=134)
    has: dict[str, bool] = {}
    out = []
    for it in items:
        if it.db_id not in has:
            path = next((root / "database" / it.db_id).glob("*.sqlite"))
            has[it.db_id] = bool(opaque_columns(documented_tables(Database(f"sqlite:///{path}"), False)))
        if has[it.db_id]:
            out.append(it.qid)
    print(len(items), len(out), file=sys.stderr)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
