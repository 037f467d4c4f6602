"""The renamed copy of a SQLite file: same rows and rowids, constraints and indexes under new names."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from eval.abbreviate.renames import SchemaRename
from eval.abbreviate.schema import TableInfo, _quote


def _create_statement(table: TableInfo, rename: SchemaRename,
                      foreign_keys: bool = True) -> tuple[str, list[str]]:
    """``CREATE TABLE`` of the renamed ``table`` and a description of each foreign key that had to be left out.

    A foreign key is left out when its parent table or column does not exist in the source (Spider has a few);
    with ``foreign_keys=False`` every foreign key is left out (a warehouse that declares none) and none is
    reported.
    """
    new = rename.tables[table.name]
    lines = []
    for col in table.columns:
        line = f"{new.columns[col.name]} {col.type}".rstrip()
        if col.notnull:
            line += " NOT NULL"
        if col.default is not None:
            line += f" DEFAULT {col.default}"
        lines.append(line)
    pk = sorted((c for c in table.columns if c.pk), key=lambda c: c.pk)
    if pk:
        lines.append(f"PRIMARY KEY ({', '.join(new.columns[c.name] for c in pk)})")
    lines += [f"UNIQUE ({', '.join(str(new.column(c)) for c in cols)})" for cols in table.unique]
    dropped: list[str] = []
    for fk in table.foreign_keys if foreign_keys else []:
        parent = rename.table(fk.table)
        local = [new.column(c) for c in fk.columns]
        remote = [parent[1].column(to) if to else None for to in fk.to] if parent else []
        if parent is None or None in local or any(to and r is None for to, r in zip(fk.to, remote, strict=True)):
            dropped.append(f"{table.name}({', '.join(fk.columns)}) -> {fk.table}({', '.join(map(str, fk.to))})")
            continue
        target = f" ({', '.join(str(r) for r in remote)})" if all(remote) else ""
        clause = f"FOREIGN KEY ({', '.join(str(c) for c in local)}) REFERENCES {parent[1].name}{target}"
        for action, value in (("ON UPDATE", fk.on_update), ("ON DELETE", fk.on_delete)):
            if value and value.upper() != "NO ACTION":
                clause += f" {action} {value}"
        lines.append(clause)
    return f"CREATE TABLE {new.name} (\n  " + ",\n  ".join(lines) + "\n)", dropped


def _index_statements(table: TableInfo, rename: SchemaRename) -> list[str]:
    """``CREATE [UNIQUE] INDEX IX_<table>_<n>`` of the renamed ``table``'s indexes."""
    new = rename.tables[table.name]
    out = []
    for n, index in enumerate(table.indexes, start=1):
        cols = ", ".join(f"{new.column(c)}{' DESC' if desc else ''}" for c, desc in index.columns)
        out.append(f"CREATE {'UNIQUE ' if index.unique else ''}INDEX IX_{new.name}_{n} ON {new.name} ({cols})")
    return out


def _has_hidden_rowid(conn: sqlite3.Connection, table: TableInfo) -> bool:
    """True when ``src.<table>`` has a rowid that no column names (not WITHOUT ROWID, no INTEGER PRIMARY KEY)."""
    pk = [c for c in table.columns if c.pk]
    names = {c.name.lower() for c in table.columns}
    if (len(pk) == 1 and pk[0].type.upper() == "INTEGER") or names & {"rowid", "oid", "_rowid_"}:
        return False
    try:
        conn.execute(f"SELECT rowid FROM src.{_quote(table.name)} LIMIT 1").fetchall()
    except sqlite3.OperationalError:
        return False
    return True


def copy_database(source: Path, target: Path, tables: list[TableInfo], rename: SchemaRename, *,
                  foreign_keys: bool = True) -> list[str]:
    """Write ``target`` (replaced if present): ``source``'s tables under the new names, with the same rows.

    ``foreign_keys=False`` declares no foreign key in the copy (see :func:`_create_statement`).

    Returns:
        The foreign keys left out (see :func:`_create_statement`).

    Raises:
        sqlite3.Error: a table could not be created or copied.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    dropped: list[str] = []
    conn = sqlite3.connect(target.resolve().as_uri(), uri=True)
    try:
        conn.execute("ATTACH DATABASE ? AS src", (f"{source.resolve().as_uri()}?mode=ro",))
        for table in tables:
            statement, lost = _create_statement(table, rename, foreign_keys)
            dropped += lost
            conn.execute(statement)
            new = rename.tables[table.name]
            targets, sources = list(new.columns.values()), [_quote(c) for c in new.columns]
            if _has_hidden_rowid(conn, table):  # keep each row's rowid, hence the order of a plain scan
                targets, sources = ["rowid", *targets], ["rowid", *sources]
            conn.execute(f"INSERT INTO main.{new.name} ({', '.join(targets)}) "
                         f"SELECT {', '.join(sources)} FROM src.{_quote(table.name)}")
            for index in _index_statements(table, rename):
                conn.execute(index)
        conn.commit()
        conn.execute("DETACH DATABASE src")
    finally:
        conn.close()
    return dropped
