"""Pick and label the Spider-dev part of ``benchmarks/sets/value_linking/labelled.jsonl`` (deterministic; see
the README beside it).

Entities come from the gold SQL: every string literal compared to a column (``=``, ``!=``/``<>``, ``IN``,
``NOT IN``, ``LIKE`` without wildcards) whose exact value is stored in that column of the database. Questions
whose gold SQL holds no string literal are labelled ``[]``. Questions are skipped when a literal cannot be
verified that way (wildcard ``LIKE``, a spelling absent from the column, a literal not compared to a column),
because their right label is unclear. Numeric literals (``'2010'``) are not entities.

Usage (from the repository root; rewrites the ``spider-gold`` lines, keeps the ``hand`` lines)::

    python scripts/make_value_linking_set.py [--seed 20251122] [--per-kind 20]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sqlite3
from pathlib import Path
from typing import Any, cast

import sqlglot
import sqlglot.expressions as exp

ROOT = Path(__file__).resolve().parents[1]
SPIDER = ROOT / "data" / "spider-dev"
LABELLED = ROOT / "benchmarks" / "sets" / "value_linking" / "labelled.jsonl"
_NUMBER = re.compile(r"^\s*[-+]?\d+(\.\d+)?\s*$")


class Unclear(Exception):
    """The question's label cannot be derived safely from its gold SQL."""


def _single_quoted(sql: str) -> str:
    """Spider writes strings in double quotes; sqlglot reads those as identifiers in SQLite."""
    return re.sub(r'"([^"]*)"', lambda m: "'" + m.group(1).replace("'", "''") + "'", sql)


def _columns(conn: sqlite3.Connection) -> dict[str, dict[str, str]]:
    """Stored spelling of every table and column: ``{table_lower: {column_lower: Column}}`` plus ``"": Table``."""
    out: dict[str, dict[str, str]] = {}
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        cols = {row[1].lower(): row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}
        out[table.lower()] = {"": table, **cols}
    return out


def _stored(conn: sqlite3.Connection, table: str, column: str, value: str) -> bool:
    query = f'SELECT 1 FROM "{table}" WHERE "{column}" = ? COLLATE BINARY LIMIT 1'
    return conn.execute(query, (value,)).fetchone() is not None


def _compared(tree: exp.Expression) -> list[tuple[exp.Column, str, exp.Expression]]:
    """(column, literal text, comparison node) for each string literal in ``tree``; Unclear otherwise."""
    pairs: list[tuple[exp.Column, str, exp.Expression]] = []
    for lit in tree.find_all(exp.Literal):
        if not lit.is_string:
            continue
        parent = lit.parent
        if isinstance(parent, exp.In):
            column = parent.this
        elif isinstance(parent, exp.EQ | exp.NEQ | exp.Like):
            column = parent.left if parent.right is lit else parent.right
            if isinstance(parent, exp.Like) and ("%" in lit.this or "_" in lit.this):
                raise Unclear(f"wildcard LIKE {lit.this!r}")
        else:
            raise Unclear(f"literal {lit.this!r} under {type(parent).__name__}")
        if not isinstance(column, exp.Column):
            raise Unclear(f"literal {lit.this!r} not compared to a column")
        pairs.append((column, str(lit.this), parent))
    return pairs


def label(item: dict[str, Any], conn: sqlite3.Connection) -> list[dict[str, str]]:
    """The entities of one Spider question (``[]`` when its gold SQL names no string value); Unclear if unsure."""
    schema = _columns(conn)
    tree = cast(exp.Expression, sqlglot.parse_one(_single_quoted(item["query"]), dialect="sqlite"))
    entities: list[dict[str, str]] = []
    for column, value, node in _compared(tree):
        if _NUMBER.match(value):
            continue
        scope = node.find_ancestor(exp.Select) or tree
        tables = list(scope.find_all(exp.Table)) or list(tree.find_all(exp.Table))
        alias = column.table.lower()
        named = [t for t in tables if alias and alias in (t.alias_or_name.lower(), t.name.lower())]
        candidates = [t.name.lower() for t in (named or tables)]
        places = []
        for table in dict.fromkeys(candidates):
            cols = schema.get(table, {})
            if column.name.lower() in cols and _stored(conn, cols[""], cols[column.name.lower()], value):
                places.append((cols[""], cols[column.name.lower()]))
        if len(places) != 1:
            raise Unclear(f"{value!r} found in {places or 'no column'} for {column.sql()}")
        entity = {"table": places[0][0], "column": places[0][1], "value": value}
        if entity not in entities:
            entities.append(entity)
    return entities


def pick(seed: int, per_kind: int) -> list[dict[str, Any]]:
    """``per_kind`` questions with entities and ``per_kind`` without, spread over the databases.

    Order: dev.json shuffled with ``seed``; one question per gold query (Spider has paraphrase pairs);
    databases take turns, at most ``ceil(per_kind / databases)`` questions of each kind per database.
    """
    dev = json.loads((SPIDER / "dev.json").read_text(encoding="utf-8"))
    order = list(range(len(dev)))
    random.Random(seed).shuffle(order)
    databases = sorted({d["db_id"] for d in dev})
    cap = -(-per_kind // len(databases))
    taken: dict[tuple[str, bool], int] = {}
    seen_queries: set[str] = set()
    picked: list[dict[str, Any]] = []
    conns: dict[str, sqlite3.Connection] = {}
    for i in order:
        d = dev[i]
        if d["query"] in seen_queries:
            continue
        db = d["db_id"]
        conn = conns.setdefault(db, sqlite3.connect(f"file:{SPIDER / 'database' / db / db}.sqlite?mode=ro",
                                                    uri=True))
        try:
            entities = label(d, conn)
        except (Unclear, sqlglot.errors.ParseError):
            continue
        kind = (db, bool(entities))
        if taken.get(kind, 0) >= cap or sum(n for (_db, k), n in taken.items() if k == bool(entities)) >= per_kind:
            continue
        taken[kind] = taken.get(kind, 0) + 1
        seen_queries.add(d["query"])
        picked.append({"id": f"spider-dev-{i:03d}", "database": f"spider:{db}", "question": d["question"],
                       "entities": entities, "source": "spider-gold", "gold_sql": d["query"]})
    return sorted(picked, key=lambda p: p["id"])


def main(argv: list[str] | None = None) -> int:
    """Rewrite the ``spider-gold`` lines of labelled.jsonl (``hand`` lines are kept, after them)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20251122)
    parser.add_argument("--per-kind", type=int, default=20)
    args = parser.parse_args(argv)
    kept = []
    if LABELLED.exists():
        kept = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = pick(args.seed, args.per_kind) + [k for k in kept if k.get("source") != "spider-gold"]
    LABELLED.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items), encoding="utf-8")
    with_entities = sum(bool(x["entities"]) for x in items if x["source"] == "spider-gold")
    print(f"{LABELLED}: {len(items)} items ({with_entities} Spider items with entities)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
