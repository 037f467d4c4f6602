"""Gold join conditions covered by the joins of examples, of the data, and of both, leave-one-out. No model.

    python benchmarks/results/2026-12-07-example-joins/coverage.py WIDE_ABBREV_NOFK   # from the repo root

WIDE_ABBREV_NOFK is ``scripts/abbreviate_db.py ... --seed 2026 --drop-foreign-keys`` (no database declares a
foreign key). For every question whose gold query joins with ``a.x = b.y`` conditions, 40 other questions of its
database (random, seed 0; never one with the same SQL or wording) play its examples, as the evaluation's disjoint
split does. Sources of join hints, as the index would hold them:

- data: :func:`retrieval.inferred_joins.inferred_foreign_keys` without examples (computed once per database);
- examples: :func:`retrieval.example_joins.example_foreign_keys` over the 40 examples' SQL;
- both: the examples' keys first, the data's for the columns they leave (what ``retrieval.example_joins`` indexes).

A condition counts as covered when its two columns are a key of the source, in either direction. Prints the
shares of conditions and of questions with every condition covered, and the keys per database.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

import sqlglot
import sqlglot.expressions as exp

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from database.connection import Database  # noqa: E402
from database.profiling import attach_profiles  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from retrieval.example_joins import example_foreign_keys  # noqa: E402
from retrieval.inferred_joins import inferred_foreign_keys  # noqa: E402
from retrieval.onboarding.profile import ENUM_MAX_CODES, LOW_CARDINALITY, summarise  # noqa: E402


def conditions(sql: str) -> list[frozenset[str]]:
    """The ``a.x = b.y`` conditions of the JOIN ... ON clauses of ``sql``, aliases resolved to table names."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return []
    out = []
    for select in tree.find_all(exp.Select):
        alias = {(t.alias or t.name).lower(): t.name.lower() for t in select.find_all(exp.Table)}
        for join in select.args.get("joins") or []:
            on = join.args.get("on")
            for eq in on.find_all(exp.EQ) if on is not None else []:
                left, right = eq.this, eq.expression
                if isinstance(left, exp.Column) and isinstance(right, exp.Column) and left.table and right.table:
                    out.append(frozenset(f"{alias.get(c.table.lower(), c.table.lower())}.{c.name.lower()}"
                                         for c in (left, right)))
    return out


def pairs(found: dict) -> set[frozenset[str]]:
    """Every key of ``found`` (child table -> foreign keys) as an unordered pair of lower-case ``table.column``."""
    return {frozenset((f"{t}.{fk.columns[0]}".lower(), f"{fk.ref_table}.{fk.ref_columns[0]}".lower()))
            for t, fks in found.items() for fk in fks}


root = Path(sys.argv[1])
dev = json.loads((root / "dev.json").read_text())
by_db: dict[str, list[dict]] = defaultdict(list)
for row in dev:
    by_db[row["db_id"]].append(row)
rng = random.Random(0)
c: Counter[str] = Counter()
for db_id, rows in sorted(by_db.items()):
    db = Database(f"sqlite:///{root}/database/{db_id}/{db_id}.sqlite")
    tables = read_schema(db, sample_rows=0)
    attach_profiles(db, tables, top_n=ENUM_MAX_CODES, low_cardinality=LOW_CARDINALITY)
    data = inferred_foreign_keys(db, tables)
    db.dispose()
    summaries = {t.name: summarise(t) for t in tables}
    data_pairs = pairs(data)
    c["keys from the data"] += len(data_pairs)
    for row in rows:
        conds = conditions(row["query"])
        if not conds:
            continue
        others = [o for o in rows if o["query"] != row["query"] and o["question"] != row["question"]]
        shown = rng.sample(others, min(40, len(others)))
        ex = example_foreign_keys([o["query"] for o in shown], "sqlite", summaries)
        covered = {(t.lower(), fk.columns[0].lower()) for t, fks in ex.items() for fk in fks}
        both = pairs(ex) | {p for t, fks in data.items() for fk in fks if (t.lower(), fk.columns[0].lower())
                            not in covered for p in pairs({t: [fk]})}
        c["questions"] += 1
        c["conditions"] += len(conds)
        c["keys from the examples"] += len(pairs(ex))
        for name, known in (("data", data_pairs), ("examples", pairs(ex)), ("both", both)):
            c[name] += sum(p in known for p in conds)
            c[f"all {name}"] += all(p in known for p in conds)
print(dict(c))
for name in ("data", "examples", "both"):
    print(f"{name}: {c[name]}/{c['conditions']} conditions ({c[name] / c['conditions']:.1%}), every condition of "
          f"{c['all ' + name]}/{c['questions']} questions ({c['all ' + name] / c['questions']:.1%})")
print(f"keys per question from the examples: {c['keys from the examples'] / c['questions']:.1f}")
