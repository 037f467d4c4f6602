"""Where the opaque-column links of recorded runs go wrong, by kind.

    python link_errors.py ../*/abbrev*.jsonl

Each distinct (question, word, table, column) link counts once. A link is right when the gold query reads that
column of that table (an unqualified column of a one-table query counts for that table); otherwise it is sorted
by what the gold query reads: no opaque column at all, another column of the same table, a table the gold reads
but none of its opaque columns, or a table the gold does not read.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import sqlglot
from sqlglot import exp


def gold_opaque(sql: str) -> tuple[set[tuple[str, str]], set[str]] | None:
    """((table, column) of each opaque column the gold reads, the gold's tables), or None when it does not parse."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return None
    owners = {}
    for table in tree.find_all(exp.Table):
        owners[table.alias_or_name.lower()] = owners[table.name.lower()] = table.name
    tables = {t.name for t in tree.find_all(exp.Table)}
    only = next(iter(tables)) if len(tables) == 1 else "?"
    read = {(owners.get(c.table.lower(), "?") if c.table else only, c.name)
            for c in tree.find_all(exp.Column) if re.fullmatch(r"c\d+", c.name)}
    return read, tables


def main() -> int:
    """Print the counts."""
    counts: Counter[str] = Counter()
    seen: set[tuple[str, str, str, str]] = set()
    for path in sys.argv[1:]:
        for line in Path(path).read_text().splitlines():
            record = json.loads(line)
            parsed = gold_opaque(record["gold_sql"])
            if parsed is None:
                continue
            read, tables = parsed
            for link in record.get("column_links") or []:
                key = (record["qid"], link["term"], link["table"], link["column"])
                if key in seen:
                    continue
                seen.add(key)
                if (link["table"], link["column"]) in read or ("?", link["column"]) in read:
                    counts["right"] += 1
                elif not read:
                    counts["gold reads no opaque column"] += 1
                elif link["table"] in {t for t, _ in read}:
                    counts["another opaque column of the same table"] += 1
                elif link["table"] in tables:
                    counts["a gold table, none of whose opaque columns the gold reads"] += 1
                else:
                    counts["a table the gold does not read"] += 1
    total = sum(counts.values())
    for kind, n in counts.most_common():
        print(f"{kind}: {n} ({100 * n / total:.0f}%)")
    print(f"links: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
