"""Ids of abbreviated questions whose opaque-column terms differ between two checkouts, nobody's reading list.

    python pick_questions.py BEFORE AFTER WIDE_ABBREV > ids-terms-60.txt

For every question of WIDE_ABBREV whose database has an undocumented opaque column, ``unnamed_terms`` over all
its tables (no embedding synonyms) is computed in each checkout (a separate process per checkout). Kept: the
questions whose terms differ, minus the first 2,000 of dev.json shuffled with seed 0 (the questions read while the
change was written, see term_recall.py); then shuffled with seed 2050, the first 60.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

TERMS = '''
import json, sys, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from database.connection import Database
from eval.datasets import load_spider
from tools.opaque_columns import documented_tables
from tools.question_terms import opaque_columns, unnamed_terms
root, tables, out = Path(sys.argv[2]), {}, {}
for it in load_spider(root):
    if it.db_id not in tables:
        path = next((root / "database" / it.db_id).glob("*.sqlite"))
        tables[it.db_id] = documented_tables(Database(f"sqlite:///{path}"), False)
    if opaque_columns(tables[it.db_id]):
        out[it.qid] = [unnamed_terms(it.question, tables[it.db_id], None), it.db_id, it.question]
print(json.dumps(out))
'''


def terms(checkout: Path, root: Path) -> dict[str, list]:
    """Each question id -> [terms, db_id, question], computed by ``checkout``'s code."""
    with tempfile.TemporaryDirectory() as cwd:
        out = subprocess.run([sys.executable, "-c", TERMS, str(checkout.resolve()), str(root.resolve())],
                             check=True, capture_output=True, text=True, cwd=cwd)
    return json.loads(out.stdout)


def main() -> int:
    """Print 60 ids, one per line."""
    before, after, root = (Path(a) for a in sys.argv[1:4])
    old, new = terms(before, root), terms(after, root)
    questions = json.loads((root / "dev.json").read_text())
    random.Random(0).shuffle(questions)
    read = {(q["db_id"], q["question"]) for q in questions[:2000]}
    differ = [q for q in old if old[q][0] != new[q][0] and (old[q][1], old[q][2]) not in read]
    random.Random(2050).shuffle(differ)
    print(len(old), len(differ), file=sys.stderr)
    print("\n".join(differ[:60]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
