"""Which databases and questions opaque-column linking can reach, without a model call.

    python opaque_reach.py SPIDER_DIR [RECORDS.jsonl]

Prints how many databases of ``SPIDER_DIR/database/*/*.sqlite`` have undocumented columns with opaque names
(:func:`tools.opaque_columns.opaque_columns`), with the first of them; with RECORDS (evaluation records of that
folder's questions), how many questions have an unnamed term over all tables of their database (an upper bound of
the questions that make the call: the agent looks only at the tables in its prompt).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from database.connection import Database  # noqa: E402
from tools.opaque_columns import _tables, opaque_columns, unnamed_terms  # noqa: E402


def main(argv: list[str]) -> int:
    """Print the reach; returns the exit code."""
    warnings.filterwarnings("ignore")
    root = Path(argv[0])
    paths = {p.parent.name: p for p in sorted(root.glob("database/*/*.sqlite"))}
    tables = {name: _tables(Database(f"sqlite:///{p}"), False) for name, p in paths.items()}
    opaque = {name: opaque_columns(t) for name, t in tables.items()}
    hit = [name for name, cols in opaque.items() if cols]
    print(f"{len(paths)} databases, {len(hit)} with opaque columns")
    for name in hit[:10]:
        print(f"  {name}: " + ", ".join(f"{t.name}.{c}" for t, c in opaque[name][:6]))
    if len(argv) > 1:
        rows = [json.loads(line) for line in Path(argv[1]).read_text().splitlines() if line.strip()]
        reach = [r for r in rows if opaque.get(r["db_id"]) and unnamed_terms(r["question"], tables[r["db_id"]])]
        print(f"{len(rows)} questions, {len(reach)} with an unnamed term on a database with opaque columns")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
