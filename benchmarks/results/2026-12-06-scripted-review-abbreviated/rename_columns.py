"""An experiment, not a product step: the drafted opaque columns renamed to their original names.

    python rename_columns.py WIDE_ABBREV_DRAFTS WIDE_ABBREV_RENAMED WIDE_ABBREV/renames.json

Copies the drafts folder; in each SQLite file every column that has a drafted description (137 columns named
like ``c7`` in 40 databases) is renamed to its original name (``ALTER TABLE ... RENAME COLUMN``), as a
reviewer could do with a view; the sidecars are dropped; the gold SQL in ``dev.json`` is renamed the same way
(``c<N>`` names are unique within each abbreviated database). Everything else keeps its abbreviated name.
"""

import json
import re
import shutil
import sqlite3
import sys
from pathlib import Path

import yaml

src, dst, renames_file = (Path(a) for a in sys.argv[1:4])
renames = json.loads(renames_file.read_text(encoding="utf-8"))["databases"]
if dst.exists():
    shutil.rmtree(dst)
shutil.copytree(src, dst)
maps: dict[str, dict[str, str]] = {}
for info in renames.values():
    db = info["db_id"]
    sidecar = dst / "database" / db / f"{db}.enriched.yaml"
    if not sidecar.exists():
        continue
    data = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
    back = {t["name"]: {v: k for k, v in t["columns"].items()} for t in info["tables"].values()}
    con = sqlite3.connect(dst / "database" / db / f"{db}.sqlite")
    renamed: dict[str, str] = {}
    for table, spec in (data.get("tables") or {}).items():
        existing = {r[1].lower() for r in con.execute(f'pragma table_info("{table}")')}
        for column in spec.get("columns") or {}:
            original = back.get(table, {}).get(column, column)
            if original.lower() in existing:
                print("name taken, left as is:", db, table, column, original)
                continue
            con.execute(f'ALTER TABLE "{table}" RENAME COLUMN "{column}" TO "{original}"')
            existing.add(original.lower())
            renamed[column] = original
    con.commit()
    con.close()
    sidecar.unlink()
    maps[db] = renamed
dev = json.loads((dst / "dev.json").read_text(encoding="utf-8"))
for question in dev:
    for column, original in maps.get(question["db_id"], {}).items():
        question["query"] = re.sub(rf"\b{column}\b", original, question["query"])
(dst / "dev.json").write_text(json.dumps(dev, indent=1), encoding="utf-8")
print("databases", len(maps), "columns renamed", sum(len(m) for m in maps.values()))
