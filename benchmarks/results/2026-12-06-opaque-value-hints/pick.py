"""The single-shot question sample: questions of the abbreviated copies whose gold SQL reads an opaque column.

    python pick.py 4101 160 WIDE_ABBREV    # -> opq.jsonl (160 questions, sorted by database)

Every question of ``WIDE_ABBREV/dev.json`` whose gold query names a ``c<N>`` column, shuffled with the seed; the
first N are kept and sorted by database (so the model server's prompt cache serves each schema once per listing).
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path


def main() -> None:
    """Write ``opq.jsonl`` (``{"i", "db_id", "question", "query", ...}`` per line)."""
    seed, count, root = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    items = json.loads(Path(root, "dev.json").read_text(encoding="utf-8"))
    opaque = re.compile(r"\b(c\d+)\b")
    chosen = [dict(x, i=i) for i, x in enumerate(items) if opaque.search(x["query"])]
    random.seed(seed)
    random.shuffle(chosen)
    with open("opq.jsonl", "w", encoding="utf-8") as f:
        for x in sorted(chosen[:count], key=lambda x: x["db_id"]):
            f.write(json.dumps(x) + "\n")


if __name__ == "__main__":
    main()
