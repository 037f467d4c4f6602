"""How often the opaque-column links call names a column the gold query reads (one call per question).

    python link_accuracy.py RECORDS.jsonl WIDE_ABBREV [QID]

For each record whose gold query reads an opaque ``c<N>`` column, the links call
(tools.opaque_columns.link_opaque_columns) is made once over all tables of the question's abbreviated database,
with the whole-schema listing as its cached system prompt (the live call has the linked listing). Prints the
record's EX, the gold query's opaque columns, the links, and the number of questions where a link names one of
them. With QID only that question is asked and its prompt and reply are printed. Needs a model server
(``nl2sql llm serve``).
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
warnings.filterwarnings("ignore")

import tools.opaque_columns as oc  # noqa: E402
from core.llm import LLMProvider, UsageLog  # noqa: E402
from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from tools.base import ToolContext  # noqa: E402
from tools.candidate import system_prompt  # noqa: E402
from tools.whole_schema import whole_schema_listing  # noqa: E402


def gold_opaque(sql: str) -> set[str]:
    """The ``c<N>`` column names ``sql`` reads (none when it does not parse)."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return set()
    return {c.name for c in tree.find_all(exp.Column) if re.fullmatch(r"c\d+", c.name)}


def main() -> int:
    """Ask the links call for every qualifying record (or QID) and print the tally."""
    records = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
    root, only = Path(sys.argv[2]), (sys.argv[3] if len(sys.argv) > 3 else None)
    settings = Settings(local_llm={"auto_start": False})
    llms = LLMProvider(settings)
    if only:
        original = oc.invoke_structured  # type: ignore[attr-defined]

        def shown(*args: Any, **kwargs: Any) -> Any:
            print(args[2][-1].content)
            reply = original(*args, **kwargs)
            print(reply)
            return reply

        oc.invoke_structured = shown  # type: ignore[attr-defined]
    right = total = 0
    for rec in records:
        gold = gold_opaque(rec["gold_sql"])
        if not gold or (only and rec["qid"] != only):
            continue
        db = Database(f"sqlite:///{next((root / 'database' / rec['db_id']).glob('*.sqlite'))}")
        ctx = ToolContext(settings, db, None, llms, UsageLog())  # type: ignore[arg-type]
        links = oc.link_opaque_columns(ctx, system_prompt("sqlite", whole_schema_listing(db)), rec["question"], [])
        total += 1
        right += bool(gold & {link.column.column for link in links})
        print(rec["qid"], rec["ex"], sorted(gold), [(k.term, k.column.column) for k in links], rec["question"][:80],
              flush=True)
    print("right", right, "of", total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
