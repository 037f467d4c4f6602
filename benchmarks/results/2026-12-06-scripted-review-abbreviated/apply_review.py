"""A scripted review of onboarding's drafts on the abbreviated copies: approve the listed drafts, reject (or edit) the rest.

    PYTHONPATH=. python apply_review.py WIDE_ABBREV_DRAFTS WIDE_ABBREV_REVIEWED approved.txt WIDE_ABBREV/renames.json
    PYTHONPATH=. python apply_review.py WIDE_ABBREV_DRAFTS WIDE_ABBREV_EDITED approved.txt WIDE_ABBREV/renames.json --edit

Copies the drafts folder (the 40 abbreviated databases with their ``.enriched.yaml`` sidecars, every entry
pending) and sets each entry's review status with ``records.review.review_enrichment``: ``approved`` when
``approved.txt`` lists it by the source database and the original ``table.column`` (``table.`` for a table's
summary). The others are ``rejected`` (no text edited), or with ``--edit`` ``edited`` to the original table or
column name split into words (``Oppose_rate`` -> "oppose rate"), the least a reviewer who knows the data would
write: an upper bound on one review pass of the drafts, not a product default.
"""

import json
import re
import shutil
import sys
from pathlib import Path

from records.review import enrichment_queue, review_enrichment


def words(name: str) -> str:
    """``Oppose_rate`` -> "oppose rate"; ``roomName`` -> "room name"."""
    return " ".join(re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("_", " ").lower().split())


src, dst, approved_file, renames_file = (Path(a) for a in sys.argv[1:5])
edit = "--edit" in sys.argv[5:]
renames = json.loads(renames_file.read_text(encoding="utf-8"))["databases"]
approved = {tuple(line.split()) for line in approved_file.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")}
if dst.exists():
    shutil.rmtree(dst)
shutil.copytree(src, dst)
counts = {"approved": 0, "rejected": 0, "edited": 0}
for source_db, info in renames.items():
    sidecar = dst / "database" / info["db_id"] / f"{info['db_id']}.enriched.yaml"
    if not sidecar.exists():
        continue
    back = {t["name"]: (orig, {v: k for k, v in t["columns"].items()}) for orig, t in info["tables"].items()}
    for entry in enrichment_queue(sidecar):
        orig_table, cols = back.get(entry["table"], (entry["table"], {}))
        orig_col = "" if entry["column"] is None else cols.get(entry["column"], entry["column"])
        if (source_db, f"{orig_table}.{orig_col}") in approved:
            status, text = "approved", None
        else:
            status, text = ("edited", words(orig_col or orig_table)) if edit else ("rejected", None)
        review_enrichment(sidecar, entry["table"], entry["column"], status, text=text)
        counts[status] += 1
print(counts)
