"""Replay: an existence filter for a role table the question names but the SQL never reads (model-free; not kept).

    python named_joins_replay.py CHECKOUT WIDE_ABBREV       # prints won/lost per record kind and the changed answers

CHECKOUT is a checkout of the repository (its code, its ``benchmarks/results`` records, ``data/spider-dev``);
``../shared`` beside it holds spider-wide. See README.md.
"""
from __future__ import annotations

import glob
import json
import sqlite3
import sys
from collections import Counter
from pathlib import Path

import sqlglot
from sqlglot import exp

CHECKOUT, ABBREV = sys.argv[1], sys.argv[2]
sys.path.insert(0, CHECKOUT)
from eval.metrics import gold_is_ordered, results_match  # noqa: E402
from retrieval.term_expansion import abbreviates  # noqa: E402
from rewrites.negated_joins import negates  # noqa: E402
from tools.coverage import normalise, table_name_words  # noqa: E402


def named(question: str, table: str) -> bool:
    """Every part of ``table``'s name equals or abbreviates a word of ``question``."""
    parts = table_name_words(table)
    if not parts:
        return False
    words = set(normalise(question))
    return all(p in words or any(abbreviates(p, w) for w in words) for p in parts)


UNIQUE: dict[tuple[str, str, str], bool] = {}


def unique(path: str, table: str, column: str) -> bool:
    """``table.column`` holds no repeated value (a role of the entity it references)."""
    key = (path, table, column)
    if key not in UNIQUE:
        rows = run(path, f'SELECT COUNT(*), COUNT(DISTINCT "{column}") FROM "{table}"')
        UNIQUE[key] = bool(rows) and rows[0][0] > 0 and rows[0][0] == rows[0][1]
    return UNIQUE[key]


def join_named(sql: str, question: str, tables: list[str], fks: list[tuple[str, str, str, str]],
               path: str = "") -> str | None:
    """``sql`` with ``key IN (SELECT fk FROM role)`` for each named role table it does not read; None: unchanged."""
    if negates(question):
        return None
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:
        return None
    if not isinstance(tree, exp.Select) or tree.args.get("with") or tree.find(exp.Subquery):
        return None
    read = {t.name.lower(): t for t in tree.find_all(exp.Table)}
    added = False
    for table in tables:
        if table.lower() in read or not named(question, table):
            continue
        edges = [e for e in fks if e[0].lower() == table.lower() and e[2].lower() in read]
        if len(edges) != 1:
            continue
        child, ccol, parent, pcol = edges[0]
        if not unique(path, child, ccol):  # a role of the entity (gymnasts are people), not a many side
            continue
        alias = read[parent.lower()].alias_or_name
        inner = exp.select(exp.column(ccol)).from_(exp.to_table(child))
        tree = tree.where(exp.In(this=exp.column(pcol, table=alias), query=inner.subquery()), copy=False)
        added = True
    return tree.sql(dialect="sqlite") if added else None


def schema(path: str) -> tuple[list[str], list[tuple[str, str, str, str]]]:
    """Table names and foreign keys ``(child, column, parent, column)`` of a SQLite file."""
    con = sqlite3.connect(path)
    tables = [t for (t,) in con.execute("select name from sqlite_master where type='table'")]
    fks = []
    for t in tables:
        for row in con.execute(f'pragma foreign_key_list("{t}")'):
            fks.append((t, row[3], row[2], row[4] or row[3]))
    return tables, fks


def run(path: str, sql: str) -> list | None:
    """Rows of ``sql`` on the read-only SQLite file, None on an error."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    con.execute("PRAGMA query_only = 1")
    try:
        return con.execute(sql).fetchall()
    except Exception:
        return None


wide = str(Path(CHECKOUT).resolve().parent / "shared" / "benchmarks" / "spider-wide")
roots = {"abbrev": ABBREV, "wide-orig": wide, "wide-syn": wide, "spider200": f"{CHECKOUT}/data/spider-dev"}
stats: Counter[str] = Counter()
changed = []
cache = {}
for f in sorted(glob.glob(f"{CHECKOUT}/benchmarks/results/*/*.jsonl")):
    base = f.split("/")[-1]
    kind = next((k for k in roots if base.startswith(k)), None)
    if kind is None:
        continue
    for line in Path(f).read_text().splitlines():
        r = json.loads(line)
        if not r.get("pred_sql") or r.get("ex") is None:
            continue
        path = next(iter(glob.glob(f"{roots[kind]}/database/{r['db_id']}/*.sqlite")), None)
        if path is None:
            continue
        if path not in cache:
            cache[path] = schema(path)
        tables, fks = cache[path]
        new = join_named(r["pred_sql"], r["question"], tables, fks, path)
        stats[f"{kind} answers"] += 1
        if not new:
            continue
        gold = run(path, r["gold_sql"])
        rows = run(path, new)
        ok = int(gold is not None and rows is not None and results_match(gold, rows, ordered=gold_is_ordered(r["gold_sql"])))
        stats[f"{kind} changed"] += 1
        stats[f"{kind} won"] += int(ok and not r["ex"])
        stats[f"{kind} lost"] += int(r["ex"] and not ok)
        changed.append((kind, r["qid"], r["ex"], ok, r["question"][:80], r["pred_sql"][:80], new[-80:]))
print(dict(stats))
seen = set()
for c in changed:
    if (c[0], c[1]) in seen:
        continue
    seen.add((c[0], c[1]))
    if c[2] != c[3]:
        print(c)
print("distinct changed", len(seen))
