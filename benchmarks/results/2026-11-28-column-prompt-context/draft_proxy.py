"""Score drafted descriptions of c<N> columns against the columns' original names (a word proxy).

Usage: python draft_proxy.py RENAMES_JSON DIR [OUT]
  RENAMES_JSON  renames.json of the abbreviated copy (original -> abbreviated names)
  DIR           holds database/<db_id>/<db_id>.enriched.yaml
  OUT           optional: every description beside its column's original name, "yes" when the first four
                letters of a word (3+ letters) of the original name occur in it
"""

import json
import re
import sys
from pathlib import Path

import yaml

renames = json.loads(Path(sys.argv[1]).read_text())["databases"]
root = Path(sys.argv[2])
original = {}
for spec in renames.values():
    for table in spec["tables"].values():
        for old, new in table["columns"].items():
            original[(spec["db_id"], table["name"], new)] = old
named = total = 0
lines = []
for path in sorted(root.glob("database/*/*.enriched.yaml")):
    db = path.parent.name
    for table, spec in (yaml.safe_load(path.read_text()).get("tables") or {}).items():
        for column, entry in (spec.get("columns") or {}).items():
            if not re.fullmatch(r"c\d+", column):
                continue
            was = original.get((db, table, column), "?")
            words = [w for w in re.findall(r"[A-Za-z][a-z]*", was.replace("_", " ")) if len(w) >= 3]
            hit = any(w[:4].lower() in entry["text"].lower() for w in words)
            total += 1
            named += hit
            lines.append(f"{'yes' if hit else 'no '} {db} {table}.{column} (was {was}): {entry['text'][:100]}")
print(f"named: {named} of {total}")
if len(sys.argv) > 3:
    Path(sys.argv[3]).write_text(f"named: {named} of {total}\n" + "\n".join(lines) + "\n")
