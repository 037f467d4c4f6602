"""Model-free reach of opaque-table links over the abbreviated questions.

Of the questions whose gold query reads an opaque table (``t_05``), how many get an unnamed term at all (the link
call's input), over every table of the database; and how many questions make the call with and without opaque
tables as a reason for it. The first 1,500 questions of a seed-0 shuffle:

    python reach.py CHECKOUT_OF_c658048 WIDE_ABBREV
"""

import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, sys.argv[1])

from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from tools.opaque_tables import opaque_tables  # noqa: E402
from tools.question_terms import opaque_columns, unnamed_terms  # noqa: E402

root = Path(sys.argv[2])
questions = json.loads((root / "dev.json").read_text())
random.Random(0).shuffle(questions)
schemas: dict[str, list] = {}
stats = {"n": 0, "gold_t": 0, "term": 0, "call_before": 0, "call_now": 0}
for q in questions[:1500]:
    if q["db_id"] not in schemas:
        path = next((root / "database" / q["db_id"]).glob("*.sqlite"))
        schemas[q["db_id"]] = read_schema(Database(f"sqlite:///{path}"), sample_rows=0)
    tables = schemas[q["db_id"]]
    stats["n"] += 1
    dark = {t.name.lower() for t in opaque_tables(tables)}
    reads = {m.lower() for m in re.findall(r"\bt_\d+\b", q["query"], re.I)}
    terms = unnamed_terms(q["question"], tables)
    has_opaque_columns = bool(opaque_columns(tables))
    stats["call_before"] += bool(terms and has_opaque_columns)
    stats["call_now"] += bool(terms and (has_opaque_columns or dark))
    if reads & dark:
        stats["gold_t"] += 1
        stats["term"] += bool(terms)
print(stats)
