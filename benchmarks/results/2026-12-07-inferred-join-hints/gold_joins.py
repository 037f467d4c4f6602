"""How many gold join conditions of the abbreviated copies the inferred joins cover, against the declared keys.

    python benchmarks/results/2026-12-07-inferred-join-hints/gold_joins.py WIDE_ABBREV WIDE_ABBREV_NOFK

For every question of the copies whose gold query joins tables with ``ON a.x = b.y``, the conditions are resolved
to ``table.column`` pairs (aliases followed, case-insensitive) and looked up among the declared foreign keys of
``WIDE_ABBREV`` and among the joins :func:`retrieval.inferred_joins.with_inferred_joins` gives the key-dropped copy.
Prints, per source, the share of conditions covered and of questions with every condition covered. No model.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import sqlglot
import sqlglot.expressions as exp

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from retrieval.inferred_joins import with_inferred_joins  # noqa: E402


def pairs(tables: list) -> set[frozenset[str]]:
    """Every single-column key of ``tables`` as an unordered pair of lower-case ``table.column``."""
    return {frozenset((f"{t.name}.{c}".lower(), f"{fk.ref_table}.{r}".lower()))
            for t in tables for fk in t.foreign_keys for c, r in zip(fk.columns, fk.ref_columns, strict=False)}


def conditions(sql: str) -> list[frozenset[str]]:
    """The ``a.x = b.y`` conditions of the JOIN ... ON clauses of ``sql``, aliases resolved to table names."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return []
    out = []
    for select in tree.find_all(exp.Select):
        alias = {}
        for table in select.find_all(exp.Table):
            alias[(table.alias or table.name).lower()] = table.name.lower()
        for join in select.args.get("joins") or []:
            on = join.args.get("on")
            for eq in on.find_all(exp.EQ) if on is not None else []:
                left, right = eq.this, eq.expression
                if isinstance(left, exp.Column) and isinstance(right, exp.Column) and left.table and right.table:
                    out.append(frozenset((f"{alias.get(left.table.lower(), left.table.lower())}.{left.name.lower()}",
                                          f"{alias.get(right.table.lower(), right.table.lower())}.{right.name.lower()}")))
    return out


keyed, bare = Path(sys.argv[1]), Path(sys.argv[2])
dev = json.loads((bare / "dev.json").read_text())
known: dict[str, tuple[set[frozenset[str]], set[frozenset[str]]]] = {}
counts: Counter[str] = Counter()
for row in dev:
    db_id = row["db_id"]
    if db_id not in known:
        declared = read_schema(Database(f"sqlite:///{keyed}/database/{db_id}/{db_id}.sqlite"), sample_rows=0)
        db = Database(f"sqlite:///{bare}/database/{db_id}/{db_id}.sqlite")
        inferred, _ = with_inferred_joins(db, read_schema(db, sample_rows=0, profile=True))
        known[db_id] = (pairs(declared), pairs(inferred))
    conds = conditions(row["query"])
    if not conds:
        continue
    declared, inferred = known[db_id]
    counts["questions"] += 1
    counts["conditions"] += len(conds)
    counts["declared"] += sum(c in declared for c in conds)
    counts["inferred"] += sum(c in inferred for c in conds)
    counts["questions all declared"] += all(c in declared for c in conds)
    counts["questions all inferred"] += all(c in inferred for c in conds)
print(dict(counts))
for source in ("declared", "inferred"):
    print(f"{source}: {counts[source]}/{counts['conditions']} conditions "
          f"({counts[source] / counts['conditions']:.1%}), every condition of "
          f"{counts[f'questions all {source}']}/{counts['questions']} questions "
          f"({counts[f'questions all {source}'] / counts['questions']:.1%})")
