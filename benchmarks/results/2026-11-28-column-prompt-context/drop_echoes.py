"""Remove drafted column descriptions that only repeat their column's values (the gate of 5003883) from files.

Usage: PYTHONPATH=REPO python drop_echoes.py DIR
  DIR holds database/<db_id>/<db_id>.sqlite and its .enriched.yaml; the files are rewritten without the echoing
  entries and DIR/redo.txt lists the databases to run `nl2sql enrich --opaque-only` on again.
"""

import sys
from pathlib import Path

from database.connection import Database
from database.descriptions import dump_enriched, load_enriched, write_atomic
from database.schema_reader import read_schema
from retrieval.enrichment_prompts import SAMPLE_ROWS, echoes

root = Path(sys.argv[1])
total = 0
redo = []
for path in sorted(root.glob("database/*/*.enriched.yaml")):
    sqlite = path.with_name(path.name.replace(".enriched.yaml", ".sqlite"))
    schema = read_schema(Database(f"sqlite:///{sqlite}"), sample_rows=SAMPLE_ROWS, profile=True, use_enriched=False)
    tables = {t.name: t for t in schema}
    data = load_enriched(path)
    dropped = 0
    for table, spec in data["tables"].items():
        for column in list(spec["columns"]):
            if echoes(spec["columns"][column]["text"], tables[table], column):
                print(f"{path.parent.name} {table}.{column}: {spec['columns'][column]['text'][:80]}")
                del spec["columns"][column]
                dropped += 1
    if dropped:
        write_atomic(path, dump_enriched(data))
        redo.append(str(sqlite))
        total += dropped
print("dropped", total)
(root / "redo.txt").write_text("\n".join(redo) + "\n")
