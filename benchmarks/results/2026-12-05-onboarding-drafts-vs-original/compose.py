"""Compose a 134-question run: the records of the databases that have drafts, the rest from the bare run.

    python compose.py DRAFTS.jsonl BARE.jsonl OUT.jsonl

A database without an enrichment sidecar is answered by the same code with the same (empty) documentation in
both runs, so its records are taken from the bare run; every question of ``DRAFTS`` replaces its bare record.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Write OUT with the bare run's order; prints how many records came from each run."""
    drafts_path, bare_path, out_path = (Path(a) for a in argv)
    drafts = {r["qid"]: r for r in map(json.loads, drafts_path.read_text().splitlines())}
    bare = [json.loads(line) for line in bare_path.read_text().splitlines()]
    out = [drafts.get(r["qid"], r) for r in bare]
    missing = set(drafts) - {r["qid"] for r in bare}
    if missing:
        raise SystemExit(f"{len(missing)} drafted questions are not in the bare run: {sorted(missing)[:5]}")
    out_path.write_text("".join(json.dumps(r) + "\n" for r in out))
    print(f"{len(drafts)} records from {drafts_path.name}, {len(bare) - len(drafts)} from {bare_path.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
