"""How much of the bare demo a data dictionary documents: the demo's metadata file as a team's CSV, imported.

    python scripts/bare_demo.py /tmp/dict/markets.sqlite --drop-foreign-keys
    python benchmarks/results/2026-12-07-data-dictionary/measure.py /tmp/dict        # from the repository root

Writes ``dictionary.csv`` (table, column, description) from ``data/markets/markets.metadata.yaml``, imports it into
the bare copy's enrichment file with :func:`retrieval.onboarding.dictionary.import_dictionary` and prints how many
tables and columns are still undocumented, i.e. left for the model's ``describe`` step and the review queue. No
model call.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import yaml

from database.connection import Database
from database.schema_reader import read_schema
from retrieval.onboarding.dictionary import import_dictionary, read_dictionary

folder = Path(sys.argv[1])
raw = yaml.safe_load(Path("data/markets/markets.metadata.yaml").read_text(encoding="utf-8"))
sheet = folder / "dictionary.csv"
with sheet.open("w", newline="", encoding="utf-8") as f:
    writer = csv.writer(f)
    writer.writerow(["table", "column", "description"])
    for table, spec in raw["tables"].items():
        if spec.get("description"):
            writer.writerow([table, "", spec["description"]])
        for column, text in (spec.get("columns") or {}).items():
            writer.writerow([table, column, text])
db = Database(f"sqlite:///{folder / 'markets.sqlite'}")
tables = read_schema(db, sample_rows=0, use_enriched=False)
out = folder / "markets.enriched.yaml"
out.unlink(missing_ok=True)
rows = read_dictionary(sheet)
report = import_dictionary(tables, rows, out, source=sheet.name)
after = read_schema(db, sample_rows=0)
print(f"bare demo: {len(tables)} tables, {sum(len(t.columns) for t in tables)} columns, none documented; "
      f"dictionary rows {len(rows)}; imported {report.tables} table and {report.columns} column descriptions "
      f"(unknown rows: {len(report.unknown)}); left undocumented for the model: "
      f"{sum(1 for t in after if not t.comment)} tables, {sum(1 for t in after for c in t.columns if not c.comment)} columns")
