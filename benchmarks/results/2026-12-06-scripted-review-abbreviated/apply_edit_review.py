"""A scripted review that also edits: approve the listed drafts, replace every other one by its original name in words.

    PYTHONPATH=. python apply_edit_review.py WIDE_ABBREV_DRAFTS WIDE_ABBREV_EDITED approved.txt WIDE_ABBREV/renames.json

Like ``apply_review.py``, but a draft not listed in ``approved.txt`` is edited instead of rejected: its text
becomes the original table or column name split into words (``Oppose_rate`` -> "oppose rate",
``date_became_customer`` -> "date became customer"), the least a reviewer who knows the data would write. This is
an upper bound on what one review pass of the drafts can give, not a product default.
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
renames = json.loads(renames_file.read_text(encoding="utf-8"))["databases"]
approved = {tuple(line.split()) for line in approved_file.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")}
if dst.exists():
    shutil.rmtree(dst)
shutil.copytree(src, dst)
counts = {"approved": 0, "edited": 0}
for source_db, info in renames.items():
    sidecar = dst / "database" / info["db_id"] / f"{info['db_id']}.enriched.yaml"
    if not sidecar.exists():
        continue
    back = {t["name"]: (orig, {v: k for k, v in t["columns"].items()}) for orig, t in info["tables"].items()}
    for entry in enrichment_queue(sidecar):
        orig_table, cols = back.get(entry["table"], (entry["table"], {}))
        orig_col = "" if entry["column"] is None else cols.get(entry["column"], entry["column"])
        if (source_db, f"{orig_table}.{orig_col}") in approved:
            review_enrichment(sidecar, entry["table"], entry["column"], "approved")
            counts["approved"] += 1
        else:
            review_enrichment(sidecar, entry["table"], entry["column"], "edited",
                              text=words(orig_col or orig_table))
            counts["edited"] += 1
print(counts)
