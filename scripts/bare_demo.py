"""Build the "bare demo": the demo database as an undocumented warehouse would hand it over.

    python scripts/bare_demo.py /tmp/bare/markets.sqlite                       # tables, rows, keys kept
    python scripts/bare_demo.py /tmp/bare/markets.sqlite --drop-foreign-keys   # joins left for onboarding to find
    nl2sql onboard --database sqlite:////tmp/bare/markets.sqlite

The copy keeps every table and column name (``EQ_MSTR``, ``CO_NM``, ``LIMAR``), type, NOT NULL, default,
primary key, UNIQUE constraint, index and row (same rowids), and has no documentation: SQLite stores no comments,
and the statements are written afresh from the catalog (eval/abbreviate's copy machinery with every name kept),
so not even SQL comments of the original DDL survive; none of the demo's companion files (data dictionary
``.metadata.yaml``, ``.knowledge.yaml``, ``.examples.jsonl``, ``.enriched.yaml``) is copied, and such files
already beside the output (from an earlier build or onboarding) are removed. Deterministic: the same source
gives the same rows. Prints one line per table with its row count.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.settings import DEMO_DB_PATH  # noqa: E402
from eval.abbreviate import SchemaRename, TableRename, copy_database, read_tables  # noqa: E402

COMPANIONS = (".metadata.yaml", ".knowledge.yaml", ".examples.jsonl", ".enriched.yaml")
"""Suffixes of the files the app reads beside a SQLite database ``<stem><suffix>``."""


def build(source: Path, out: Path, *, drop_foreign_keys: bool = False) -> dict[str, int]:
    """Write the bare copy of ``source`` to ``out``; returns ``{table: rows}``.

    Raises:
        FileNotFoundError: ``source`` does not exist. ValueError: ``out`` is ``source``.
        sqlite3.Error: a table could not be copied.
    """
    if not source.is_file():
        raise FileNotFoundError(f"{source} not found (make it with `nl2sql setup`)")
    if out.resolve() == source.resolve():
        raise ValueError("the output must not be the source database")
    with closing(sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        tables = read_tables(conn)
    if drop_foreign_keys:
        for table in tables:
            table.foreign_keys = []
    same = SchemaRename(source.stem, out.stem, {
        t.name: TableRename(t.name, {c.name: c.name for c in t.columns}) for t in tables})
    copy_database(source, out, tables, same)
    for suffix in COMPANIONS:
        out.with_name(f"{out.stem}{suffix}").unlink(missing_ok=True)
    with closing(sqlite3.connect(out)) as conn:
        return {t.name: int(conn.execute(f'SELECT COUNT(*) FROM "{t.name}"').fetchone()[0]) for t in tables}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the bare database file to write (replaced if present)")
    parser.add_argument("--source", type=Path, default=DEMO_DB_PATH, help="database to copy (default: the demo)")
    parser.add_argument("--drop-foreign-keys", action="store_true",
                        help="leave the foreign keys out, so that onboarding has joins to find")
    args = parser.parse_args(argv)
    try:
        rows = build(args.source, args.out, drop_foreign_keys=args.drop_foreign_keys)
    except (OSError, ValueError, sqlite3.Error) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    for table, n in rows.items():
        print(f"{table:14} {n:>8} rows")
    print(f"Bare copy written to {args.out}: {len(rows)} tables, no descriptions, no knowledge file.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
