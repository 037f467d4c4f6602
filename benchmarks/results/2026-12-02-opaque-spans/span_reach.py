"""How many opaque-column link prompts the numeric span changes (needs no model server).

    python span_reach.py SPIDER_FOLDER RECORDS.jsonl

For every question of RECORDS that made the opaque-links call, the opaque columns of its database are offered as
:func:`tools.opaque_columns.link_opaque_columns` offers them when every table is in the prompt (an upper bound:
the agent offers only the prompt's tables). A column gains a span when it holds numbers and more distinct values
than the samples show. Prints how many questions and offered columns gain one, and how many of the recorded links
point at such a column, split by whether the gold query reads it (a rough proxy of right and wrong).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from tools import opaque_columns as oc  # noqa: E402


def main() -> int:
    """Print the counts; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spider")
    parser.add_argument("records")
    args = parser.parse_args()
    rows = [json.loads(line) for line in Path(args.records).read_text().splitlines() if line.strip()]
    asked = gained = columns = with_span = 0
    links = {"span, gold reads it": 0, "span, gold does not": 0, "no span": 0}
    for rec in rows:
        if not any(u.get("label") == "opaque links" for u in rec.get("usage") or []):
            continue
        asked += 1
        path = Path(args.spider) / "database" / rec["db_id"] / f"{rec['db_id']}.sqlite"
        db = Database.from_settings(Settings(database_url=f"sqlite:///{path}", local_llm={"auto_start": False}))
        tables = read_schema(db, sample_rows=0)
        offered = oc.opaque_columns(tables)[: oc.MAX_COLUMNS]
        spans = {f"{t.name}.{name}": oc._samples(db, t.name, name)[1] for t, name in offered}
        columns += len(spans)
        with_span += sum(s is not None for s in spans.values())
        gained += any(s is not None for s in spans.values())
        for link in rec.get("column_links") or []:
            ref = f"{link['table']}.{link['column']}"
            if spans.get(ref) is None:
                links["no span"] += 1
            elif re.search(rf"\b{re.escape(link['column'])}\b", rec["gold_sql"], re.IGNORECASE):
                links["span, gold reads it"] += 1
            else:
                links["span, gold does not"] += 1
    print(f"questions with the links call: {asked}; with a spanned column offered: {gained}")
    print(f"offered opaque columns: {columns}; with a span: {with_span}")
    print("recorded links: " + ", ".join(f"{k} {v}" for k, v in links.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
