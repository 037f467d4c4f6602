"""Profiles and the value index on tables of millions of rows: scaled copies of wide-benchmark databases.

The benchmark databases are small (most tables under a thousand rows); an analyst's fact tables are not. This
script copies ``--dbs`` databases of a Spider-layout benchmark and grows, in each, the table whose text columns
the gold queries filter on most to ``--rows`` rows by repeating its rows (an integer primary key is shifted so
it stays unique and real-typed measures are nudged so they are about as distinct as a fact table's; text values stay
as stored, so every value a question names is still there). Then, with the checkout's own code, it profiles every table
(:func:`database.profiling.profile_table`) and reads every table's value entries
(:func:`retrieval.value_entries.read_entries`, what ``nl2sql index`` embeds), and prints per database: the grown
table's rows, whether its profile came back and how many columns have distinct counts, its indexed values, the
seconds both took, and value recall: of the gold queries' string literals compared with a column of the grown
table (``col = 'x'``, ``col IN (...)``), the share found among that column's indexed values. No model call.

    python scripts/bench_large_tables.py --spider ../shared/benchmarks/spider-wide --work /tmp/large-tables \\
        [--dbs 8] [--rows 3000000] [--json results.json]

The copies are written once under ``--work/database/`` and reused (delete the folder to rebuild), with
``--work/dev.json`` holding their questions, so ``nl2sql eval --dataset spider --path WORK`` asks them on the grown
copies (the gold queries run there too). Run it from two
checkouts (``PYTHONPATH`` or a worktree) on the same ``--work`` to compare code; run it with nothing else on the
machine for seconds that mean something.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import sqlglot
import sqlglot.expressions as exp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from database.connection import Database  # noqa: E402
from database.profiling import profile_table  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from retrieval.value_entries import read_entries  # noqa: E402


def gold_literals(sql: str, columns: dict[str, set[str]]) -> list[tuple[str, str, str]]:
    """``(table, column, literal)`` for each string literal the query compares a column with (lower case).

    ``columns``: lower-case table name -> its lower-case column names (to place unqualified columns).
    """
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return []
    out = []
    for select in tree.find_all(exp.Select):
        aliases = {t.alias_or_name.lower(): t.name.lower() for t in select.find_all(exp.Table)}
        for node in select.find_all(exp.EQ, exp.In):
            col = node.this if isinstance(node.this, exp.Column) else node.expression
            if not isinstance(col, exp.Column):
                continue
            values = node.expressions if isinstance(node, exp.In) else [node.expression, node.this]
            literals = [v.this for v in values if isinstance(v, exp.Literal) and v.is_string]
            name = col.name.lower()
            owners = ([aliases.get(col.table.lower(), col.table.lower())] if col.table
                      else [t for t in aliases.values() if name in columns.get(t, set())])
            if len(owners) == 1:
                out += [(owners[0], name, lit.lower()) for lit in literals]
    return out


def _integer_key(conn: sqlite3.Connection, table: str) -> tuple[str | None, bool]:
    """(the single INTEGER primary-key column or None, whether the table can be grown by repeating rows)."""
    info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    keys = [r for r in info if r[5]]
    unique = [r for r in conn.execute(f'PRAGMA index_list("{table}")').fetchall() if r[2] and r[3] != "pk"]
    if unique or len(keys) > 1:
        return None, False
    if not keys:
        return None, True
    return (keys[0][1], True) if "INT" in (keys[0][2] or "").upper() else (None, False)


def grow(path: Path, table: str, rows: int) -> int:
    """Repeat ``table``'s rows in the SQLite file ``path`` until it has ``rows`` (returns the row count).

    Each round doubles the table: the integer key is shifted past the largest one, and every column declared
    REAL, FLOAT, DOUBLE, DECIMAL or NUMERIC gets ``2**round * 1e-6`` added, so measures end up about as distinct
    as a real fact table's (repeated values would make ``COUNT(DISTINCT)`` unrealistically cheap) while every text
    value stays as stored.
    """
    conn = sqlite3.connect(path)
    key, ok = _integer_key(conn, table)
    if not ok:
        raise ValueError(f"{table} has a key that repeated rows would break")
    info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    measures = {r[1] for r in info if any(t in (r[2] or "").upper() for t in ("REAL", "FLOA", "DOUB", "DEC", "NUM"))}
    count = conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
    step = 0
    while 0 < count < rows:
        shift = conn.execute(f'SELECT MAX("{key}") - MIN("{key}") + 1 FROM "{table}"').fetchone()[0] if key else 0
        cols = ", ".join(f'"{n}" + {shift}' if n == key else f'"{n}" + {2 ** step * 1e-6!r}' if n in measures
                         else f'"{n}"' for n in (r[1] for r in info))
        conn.execute(f'INSERT INTO "{table}" SELECT {cols} FROM "{table}" LIMIT {rows - count}')
        count = conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
        step += 1
    conn.commit()
    conn.close()
    return int(count)


def choose(spider: Path, n: int) -> list[tuple[str, str]]:
    """``(db_id, table)``: the ``n`` databases with the most gold literals on one growable table, that table."""
    questions = json.loads((spider / "dev.json").read_text(encoding="utf-8"))
    by_db: dict[str, Counter[str]] = {}
    schemas: dict[str, tuple[dict[str, set[str]], dict[str, str]]] = {}
    for q in questions:
        db_id = q["db_id"]
        if db_id not in schemas:
            path = spider / "database" / db_id / f"{db_id}.sqlite"
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            schemas[db_id] = ({t.lower(): {r[1].lower() for r in conn.execute(f'PRAGMA table_info("{t}")')}
                               for t in tables}, {t.lower(): t for t in tables if _integer_key(conn, t)[1]})
            conn.close()
        columns, growable = schemas[db_id]
        for owner, _col, _lit in gold_literals(q.get("query") or q.get("SQL") or "", columns):
            if owner in growable:
                by_db.setdefault(db_id, Counter())[growable[owner]] += 1
    ranked = sorted(by_db.items(), key=lambda kv: (-max(kv[1].values()), kv[0]))
    return [(db_id, counts.most_common(1)[0][0]) for db_id, counts in ranked[:n]]


def measure(spider: Path, work: Path, db_id: str, table: str, rows: int) -> dict[str, Any]:
    """Grow (once) and measure one database; see the module docstring for the fields."""
    copy = work / "database" / db_id / f"{db_id}.sqlite"
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        partial = copy.with_suffix(".partial")
        shutil.copy(spider / "database" / db_id / f"{db_id}.sqlite", partial)
        grow(partial, table, rows)
        partial.rename(copy)
    db = Database(f"sqlite:///{copy}")
    tables = read_schema(db, sample_rows=0)
    grown = next(t for t in tables if t.name == table)
    start = time.perf_counter()
    profile = profile_table(db, grown)
    profile_s = time.perf_counter() - start
    start = time.perf_counter()
    entries = [e for t in tables for e in read_entries(db, t, ())]
    values_s = time.perf_counter() - start
    indexed = {(e.table.lower(), e.column.lower(), e.value.lower()) for e in entries}
    columns = {t.name.lower(): {c.name.lower() for c in t.columns} for t in tables}
    questions = [q for q in json.loads((spider / "dev.json").read_text(encoding="utf-8")) if q["db_id"] == db_id]
    literals = [lit for q in questions for lit in gold_literals(q.get("query") or q.get("SQL") or "", columns)
                if lit[0] == table.lower()]
    rows_now = db.run_query(f'SELECT COUNT(*) FROM "{table}"', row_cap=1)
    return {"db_id": db_id, "table": table, "rows": rows_now.rows[0][0] if rows_now.ok else None,
            "profiled_columns": sum(p.distinct_count is not None for p in profile.values()),
            "columns": len(grown.columns), "profile_s": round(profile_s, 2),
            "values_grown_table": sum(e.table == table for e in entries), "values_s": round(values_s, 2),
            "literals": len(literals), "literals_found": sum(lit in indexed for lit in literals)}


def write_questions(spider: Path, work: Path, db_ids: set[str]) -> None:
    """``work/dev.json``: the chosen databases' questions, each with its ``source_index`` in ``spider/dev.json``.

    The grown copies are then a Spider-layout folder ``nl2sql eval --dataset spider --path WORK`` reads, and its
    qids pair with runs on the source.
    """
    questions = json.loads((spider / "dev.json").read_text(encoding="utf-8"))
    kept = [{**q, "source_index": q.get("source_index", i)} for i, q in enumerate(questions) if q["db_id"] in db_ids]
    (work / "dev.json").write_text(json.dumps(kept, indent=1), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, measure every chosen database, print the table (and write ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spider", type=Path, required=True, help="Spider-layout folder (dev.json, database/)")
    parser.add_argument("--work", type=Path, required=True, help="where the grown copies are written and reused")
    parser.add_argument("--dbs", type=int, default=8)
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    chosen = choose(args.spider, args.dbs)
    results = [measure(args.spider, args.work, db_id, table, args.rows) for db_id, table in chosen]
    write_questions(args.spider, args.work, {db_id for db_id, _table in chosen})
    print(f"{'database':34} {'grown table':24} {'rows':>9} {'profiled':>9} {'s':>6} {'values':>7} {'s':>6} "
          f"{'literals found':>15}")
    for r in results:
        print(f"{r['db_id']:34} {r['table']:24} {r['rows']:>9} {r['profiled_columns']:>4}/{r['columns']:<4} "
              f"{r['profile_s']:>6} {r['values_grown_table']:>7} {r['values_s']:>6} "
              f"{r['literals_found']:>7}/{r['literals']:<7}")
    found, total = sum(r["literals_found"] for r in results), sum(r["literals"] for r in results)
    print(f"value recall on the grown tables: {found}/{total}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
