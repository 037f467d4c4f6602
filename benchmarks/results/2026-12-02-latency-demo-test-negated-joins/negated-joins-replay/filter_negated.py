"""Keep the evaluation records on which ``fix_negated_joins`` can fire.

Those are the records of a negated question with a candidate that holds a JOIN and a ``<>`` / ``!=``. Run from
the repository root: ``python <this file> RECORDS.jsonl OUT.jsonl``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from rewrites.negated_joins import negates  # noqa: E402


def main(src: str, dst: str) -> None:
    """Write the records of ``src`` the step can change to ``dst`` and print how many were kept."""
    kept = total = 0
    with open(src) as records, open(dst, "w") as out:
        for line in records:
            record = json.loads(line)
            total += 1
            sqls = [c.get("sql") or "" for c in record.get("candidates") or []]
            if negates(record.get("question") or "") and any(
                    re.search(r"join", s, re.I) and ("<>" in s or "!=" in s) for s in sqls):
                out.write(line)
                kept += 1
    print(f"{src}: kept {kept} of {total}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
