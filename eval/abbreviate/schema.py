"""A SQLite database's schema as ``PRAGMA`` describes it: tables, columns, keys, UNIQUE, indexes."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field


@dataclass
class ColumnInfo:
    """One column as ``PRAGMA table_info`` describes it (``pk``: position in the primary key, 0 if none)."""

    name: str
    type: str
    notnull: bool
    default: str | None
    pk: int


@dataclass
class ForeignKey:
    """One foreign key as ``PRAGMA foreign_key_list`` describes it (``to`` None: the parent's primary key)."""

    columns: list[str]
    table: str
    to: list[str | None]
    on_update: str = "NO ACTION"
    on_delete: str = "NO ACTION"


@dataclass
class IndexInfo:
    """An index made with ``CREATE [UNIQUE] INDEX``: its columns and whether each is descending."""

    name: str
    unique: bool
    columns: list[tuple[str, bool]]


@dataclass
class TableInfo:
    """A table's columns (in order), foreign keys, UNIQUE constraints and indexes."""

    name: str
    columns: list[ColumnInfo]
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    unique: list[list[str]] = field(default_factory=list)
    indexes: list[IndexInfo] = field(default_factory=list)


def read_tables(conn: sqlite3.Connection) -> list[TableInfo]:
    """The tables of a SQLite database (``sqlite_*`` internal tables left out), in creation order."""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                        "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")]
    tables = []
    for name in names:
        columns = [ColumnInfo(r[1], r[2] or "", bool(r[3]), r[4], int(r[5]))
                   for r in conn.execute(f"PRAGMA table_info({_quote(name)})")]
        keys: dict[int, ForeignKey] = {}
        for r in conn.execute(f"PRAGMA foreign_key_list({_quote(name)})"):
            fk = keys.setdefault(r[0], ForeignKey([], r[2], [], r[5], r[6]))
            fk.columns.append(r[3])
            fk.to.append(r[4])
        table = TableInfo(name, columns, list(keys.values()))
        for r in conn.execute(f"PRAGMA index_list({_quote(name)})"):
            parts = [x for x in conn.execute(f"PRAGMA index_xinfo({_quote(r[1])})") if x[5]]
            if r[3] == "pk" or r[4] or any(x[1] < 0 for x in parts):  # primary key, partial, on expressions
                continue
            if r[3] == "u":
                table.unique.append([x[2] for x in parts])
            else:
                table.indexes.append(IndexInfo(r[1], bool(r[2]), [(x[2], bool(x[3])) for x in parts]))
        tables.append(table)
    return tables


def _quote(name: str) -> str:
    """A double-quoted SQLite identifier."""
    return '"' + name.replace('"', '""') + '"'
