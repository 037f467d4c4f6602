"""Abbreviated ("warehouse-style") copies of Spider-format databases, with their gold queries rewritten.

Spider's schemas name things in plain words (``customer_name``), and its questions repeat those words. A data
warehouse rarely does: ``CUST_NM``, ``SLRY``, ``c17``. :func:`build_copy` makes such a copy of some databases of
a Spider-format folder, to measure how much an NL2SQL system depends on readable names:

* every table and column is renamed, deterministically for a seed: words of a fixed dictionary get their usual
  abbreviation (:data:`ABBREVIATIONS`; a database uses one variant per word, e.g. ``NUM`` or ``NBR``), other
  words longer than four letters lose their vowels (``salary`` -> ``SLRY``), and a share of the non-key columns
  (and of the tables of larger databases) get positional codes (``c17``, ``t_03``). Names are unique per table
  (per database for tables), valid unquoted identifiers, and never an SQL keyword or function name
  (:func:`is_reserved`); two different column names never get the same new name, so no unqualified column
  becomes ambiguous. Keys (primary, foreign, ``*_id`` and columns shared by several tables) always get the
  dictionary name, so one key has one name everywhere;
* the database file is rebuilt with the new names (declared types, NOT NULL, defaults, primary and foreign
  keys, UNIQUE constraints and indexes kept; foreign keys point to the renamed columns) and the same rows with
  the same rowids;
* each gold query is rewritten with sqlglot (tables and columns renamed, aliases untouched) and kept only when
  it returns, on the copy, the same rows (as a multiset) as the original on the original.

The copy's ``dev.json`` keeps each question's position in the source file as ``source_index``, so
:func:`eval.datasets.load_spider` gives it the source's qid and runs on the copy pair with runs on the source.
Its databases are named ``<db_id>_abbr_<hash>``: the hash of the renaming keeps the evaluation's index (keyed by
the database file name) of one copy from being reused for another.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.sqlite import SQLite
from sqlglot.optimizer.scope import Scope, traverse_scope
from sqlglot.parser import Parser
from sqlglot.tokens import Tokenizer

ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "account": ("ACCT",), "address": ("ADDR", "ADR"), "aircraft": ("ACFT",), "airport": ("ARPT",),
    "amount": ("AMT",), "average": ("AVRG",), "balance": ("BAL",), "budget": ("BDGT",), "building": ("BLDG",),
    "capacity": ("CAP",), "category": ("CAT", "CTGY"), "city": ("CTY",), "code": ("CD",), "college": ("CLG",),
    "company": ("CO", "CMPY"), "count": ("CNT",), "country": ("CNTRY",), "course": ("CRS",), "customer":
    ("CUST", "CSTMR"), "date": ("DT",), "day": ("DY",), "department": ("DEPT", "DPT"), "description":
    ("DSC", "DESCR"), "detail": ("DTL",), "director": ("DIR",), "distance": ("DIST",), "document": ("DOC",),
    "duration": ("DUR",), "email": ("EML",), "employee": ("EMP", "EMPL"), "first": ("FRST", "FST"),
    "flight": ("FLT",), "grade": ("GRD",), "height": ("HT",), "hour": ("HR",), "id": ("ID",),
    "identifier": ("ID",), "information": ("INFO",), "instructor": ("INSTR",), "invoice": ("INV",),
    "last": ("LST",), "length": ("LNGTH",), "level": ("LVL",), "location": ("LOC",), "manager": ("MGR",),
    "maximum": ("MAX",), "member": ("MBR",), "middle": ("MID",), "minimum": ("MIN",), "month": ("MO", "MTH"),
    "name": ("NM",), "number": ("NUM", "NBR"), "order": ("ORD",), "organization": ("ORG",), "payment": ("PMT",),
    "people": ("PPL",), "percent": ("PCT",), "percentage": ("PCT",), "person": ("PRSN",), "phone": ("PHN",),
    "player": ("PLYR",), "population": ("POP",), "position": ("POS",), "price": ("PRC",), "product": ("PROD",),
    "professor": ("PROF",), "quantity": ("QTY",), "rank": ("RNK",), "rating": ("RTG",), "reference": ("REF",),
    "region": ("RGN",), "room": ("RM",), "salary": ("SAL", "SLRY"), "school": ("SCHL",), "score": ("SCR",),
    "season": ("SSN",), "service": ("SVC",), "start": ("STRT",), "state": ("ST", "STE"), "status": ("STS",),
    "street": ("STR",), "student": ("STU", "STDNT"), "supplier": ("SUPP",), "teacher": ("TCHR",),
    "time": ("TM",), "title": ("TTL",), "total": ("TOT",), "transaction": ("TXN",), "type": ("TYP",),
    "university": ("UNIV",), "value": ("VAL",), "version": ("VER",), "weight": ("WT",), "year": ("YR",),
}
"""Common schema words and their warehouse abbreviations (several: one is chosen per database)."""

_SQLITE_KEYWORD_TEXT = """
ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE
CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME
CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE
EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP
GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN
KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER
OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES REGEXP REINDEX
RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN
TIES TO TRANSACTION TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH
WITHOUT ROWID OID _ROWID_
"""
SQLITE_KEYWORDS = frozenset(_SQLITE_KEYWORD_TEXT.split())
"""SQLite's keywords (https://sqlite.org/lang_keywords.html) and its implicit rowid column names."""

_SINGLE_WORD = re.compile(r"[A-Z_][A-Z0-9_]*")
RESERVED = frozenset(
    SQLITE_KEYWORDS
    | {k.upper() for k in (*Tokenizer.KEYWORDS, *SQLite.Tokenizer.KEYWORDS) if _SINGLE_WORD.fullmatch(k.upper())}
    | {k.upper() for k in (*Parser.FUNCTIONS, *SQLite.Parser.FUNCTIONS)})
"""Names a renamed table or column never takes: SQLite's keywords, sqlglot's keywords and function names."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_VOWELS = set("aeiou")


class RewriteError(ValueError):
    """A gold query could not be rewritten to the renamed schema (the message says why)."""


def is_reserved(name: str) -> bool:
    """True when ``name`` is an SQL keyword or function name, or not a plain unquoted identifier."""
    return not _IDENTIFIER.fullmatch(name) or name.upper() in RESERVED


def split_words(name: str) -> list[str]:
    """The lower-case words of an identifier: ``"CustomerName_2"`` -> ``["customer", "name", "2"]``."""
    return [w.lower() for w in _WORDS.findall(name)]


_EXPANSIONS = {form.lower(): word for word, forms in sorted(ABBREVIATIONS.items()) for form in forms}
"""An abbreviation the source already uses -> its dictionary word (``dept`` -> ``department``)."""


def _dictionary_word(word: str) -> str | None:
    """The dictionary word ``word`` is, or is the plural or an abbreviation of (``departments``, ``dept``)."""
    forms = [word]
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("s"):
        forms.append(word[:-1])
    found = next((f for f in forms if f in ABBREVIATIONS), None)
    return found or _EXPANSIONS.get(word)


def _drop_vowels(word: str) -> str:
    """``salary`` -> ``slry``: the first letter, then the consonants (doubles once), at most six letters."""
    out = word[0]
    for ch in word[1:]:
        if ch not in _VOWELS and ch != out[-1]:
            out += ch
    return out[:6]


def abbreviate_word(word: str, variants: dict[str, str] | None = None) -> str:
    """The warehouse form of one lower-case word (upper case).

    ``variants`` picks, per dictionary word, which of its abbreviations to use (default: the first). Numbers
    and words of at most four letters stay; other words lose their vowels.
    """
    key = _dictionary_word(word)
    if key is not None:
        return (variants or {}).get(key, ABBREVIATIONS[key][0])
    if word.isdigit() or len(word) <= 4:
        return word.upper()
    return _drop_vowels(word).upper()


def abbreviate_name(name: str, variants: dict[str, str] | None = None) -> str:
    """The warehouse form of an identifier (``customer_name`` -> ``CUST_NM``; not checked against keywords)."""
    words = split_words(name) or ["x"]
    out = "_".join(abbreviate_word(w, variants) for w in words)
    return out if not out[0].isdigit() else f"N{out}"


def _claim(candidates: Iterable[str], original: str, taken: dict[str, str]) -> str:
    """The first candidate neither reserved nor given to another original name, else one with a suffix.

    ``taken`` maps each new name given so far (upper case) to its original name (lower case); the choice is
    added to it. One original name may keep one new name in several tables (a shared key stays shared), but
    two different original names never share one, so no unqualified column becomes ambiguous.
    """
    def free(name: str) -> bool:
        return not is_reserved(name) and taken.get(name.upper(), original.lower()) == original.lower()

    options = list(candidates)
    chosen = next((name for name in options if free(name)), None)
    n = 2
    while chosen is None:
        chosen = f"{options[0].rstrip('_')}_{n}" if free(f"{options[0].rstrip('_')}_{n}") else None
        n += 1
    taken[chosen.upper()] = original.lower()
    return chosen


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


@dataclass
class TableRename:
    """A table's new name and its columns' (original name -> new name, in column order)."""

    name: str
    columns: dict[str, str]

    def column(self, name: str) -> str | None:
        """The new name of column ``name`` (case-insensitive), None when the table has no such column."""
        return next((new for old, new in self.columns.items() if old.lower() == name.lower()), None)


@dataclass
class SchemaRename:
    """The renaming of one database: its new id and each table's :class:`TableRename` (by original name)."""

    db_id: str
    new_db_id: str
    tables: dict[str, TableRename]

    def table(self, name: str) -> tuple[str, TableRename] | None:
        """``(original name, TableRename)`` of table ``name`` (case-insensitive), None when unknown."""
        return next(((old, t) for old, t in self.tables.items() if old.lower() == name.lower()), None)

    def to_json(self) -> dict[str, Any]:
        """``{"db_id": new id, "tables": {old: {"name": new, "columns": {old: new}}}}``."""
        return {"db_id": self.new_db_id,
                "tables": {old: {"name": t.name, "columns": t.columns} for old, t in self.tables.items()}}


def _key_columns(tables: list[TableInfo]) -> set[tuple[str, str]]:
    """``(table, column)`` (lower case) of every key: primary, foreign (both ends), ``*id`` and shared names."""
    keys: set[tuple[str, str]] = set()
    seen = Counter(c.name.lower() for t in tables for c in t.columns)
    by_lower = {t.name.lower(): t for t in tables}
    for t in tables:
        for c in t.columns:
            words = split_words(c.name)
            if c.pk or seen[c.name.lower()] > 1 or (words and words[-1] in ("id", "ids")):
                keys.add((t.name.lower(), c.name.lower()))
        for fk in t.foreign_keys:
            keys.update((t.name.lower(), col.lower()) for col in fk.columns)
            parent = by_lower.get(fk.table.lower())
            targets = [to for to in fk.to if to] or ([c.name for c in parent.columns if c.pk] if parent else [])
            keys.update((fk.table.lower(), to.lower()) for to in targets)
    return keys


def plan_renames(tables: list[TableInfo], db_id: str, seed: int, *, column_share: float = 0.3,
                 table_share: float = 0.2) -> SchemaRename:
    """The new names of a database's tables and columns (deterministic for ``db_id`` and ``seed``).

    Args:
        tables: the database's tables (:func:`read_tables`).
        db_id: the database's id (seeds its choices, so other databases do not change them).
        seed: random seed.
        column_share: share of each table's non-key columns renamed to their position among all the
            database's columns (``c17``), rounded.
        table_share: share of the tables renamed to their position (``t_03``), rounded down (so databases
            of fewer than 5 tables keep readable table names with the default).

    Returns:
        The :class:`SchemaRename`; its ``new_db_id`` is ``<db_id>_abbr_<first 6 hex digits of the renaming's
        hash>``.
    """
    rng = random.Random(f"{seed}:{db_id}")
    variants = {word: rng.choice(forms) for word, forms in sorted(ABBREVIATIONS.items())}
    keys = _key_columns(tables)
    coded_tables = set(rng.sample(range(len(tables)), int(table_share * len(tables))))
    table_names: dict[str, str] = {}
    column_names: dict[str, str] = {}  # across the database: see _claim
    renamed: dict[str, TableRename] = {}
    position = 0
    for pos, table in enumerate(tables):
        candidates = [f"t_{pos + 1:02d}"] if pos in coded_tables else [
            abbreviate_name(table.name, variants),
            "_".join(_drop_vowels(w).upper() for w in split_words(table.name) or ["t"])]
        new_table = _claim(candidates, table.name, table_names)
        plain = [i for i, c in enumerate(table.columns) if (table.name.lower(), c.name.lower()) not in keys]
        t_rng = random.Random(f"{seed}:{db_id}:{table.name.lower()}")
        coded = set(t_rng.sample(plain, int(column_share * len(plain) + 0.5)))
        columns: dict[str, str] = {}
        for i, col in enumerate(table.columns):
            position += 1
            if i in coded:
                candidates = [f"c{position}"]
            else:
                candidates = [abbreviate_name(col.name, variants),
                              "_".join(_drop_vowels(w).upper() for w in split_words(col.name) or ["c"])]
            columns[col.name] = _claim(candidates, col.name, column_names)
        renamed[table.name] = TableRename(new_table, columns)
    digest = hashlib.sha256(json.dumps({t: [r.name, r.columns] for t, r in renamed.items()},
                                       sort_keys=True).encode()).hexdigest()[:6]
    return SchemaRename(db_id, f"{db_id}_abbr_{digest}", renamed)


def _quote(name: str) -> str:
    """A double-quoted SQLite identifier."""
    return '"' + name.replace('"', '""') + '"'


def _create_statement(table: TableInfo, rename: SchemaRename) -> tuple[str, list[str]]:
    """``CREATE TABLE`` of the renamed ``table`` and a description of each foreign key that had to be left out.

    A foreign key is left out when its parent table or column does not exist in the source (Spider has a few).
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
    dropped = []
    for fk in table.foreign_keys:
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


def copy_database(source: Path, target: Path, tables: list[TableInfo], rename: SchemaRename) -> list[str]:
    """Write ``target`` (replaced if present): ``source``'s tables under the new names, with the same rows.

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
            statement, lost = _create_statement(table, rename)
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


def _scope_of(node: exp.Expression, scopes: dict[int, Scope]) -> Scope | None:
    """The innermost scope whose query contains ``node``."""
    parent = node.parent
    while parent is not None:
        if id(parent) in scopes:
            return scopes[id(parent)]
        parent = parent.parent
    return None


def _leftmost_select(node: exp.Expression) -> exp.Select | None:
    """The first SELECT of a query (the one that names a set operation's output columns)."""
    current: Any = node
    while isinstance(current, exp.SetOperation):
        current = current.left
    return current if isinstance(current, exp.Select) else None


def rewrite_sql(sql: str, rename: SchemaRename) -> str:
    """``sql`` (SQLite) with its tables and columns renamed; aliases (of tables and of outputs) are kept.

    Each column is resolved like SQLite does: a qualified one through its table or alias (of this query or an
    enclosing one), an unqualified one through the tables of the innermost query that has such a column; a
    name that no table has (an output alias, or a double-quoted string) is left alone. A column read from a
    subquery in FROM follows that subquery's renamed output.

    Raises:
        RewriteError: the query does not parse, names an unknown table, or a column is ambiguous.
    """
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError as exc:
        raise RewriteError(f"parse error: {exc}") from exc
    scope_list = list(traverse_scope(tree))
    scopes = {id(s.expression): s for s in scope_list}
    columns: dict[int, list[exp.Column]] = {}
    for column in tree.find_all(exp.Column):
        owner = _scope_of(column, scopes)
        if owner is not None:
            columns.setdefault(id(owner.expression), []).append(column)
    new_names: dict[int, str] = {}  # id(Column) -> its new name
    outputs: dict[int, dict[str, str]] = {}  # id(scope query) -> original output name -> new output name

    def table_of(source: Any) -> TableRename | None:
        if isinstance(source, exp.Table):
            found = rename.table(source.name)
            if found is None:
                raise RewriteError(f"unknown table {source.name}")
            return found[1]
        return None

    def from_source(source: Any, name: str) -> str | None:
        """The new name of column ``name`` read from a table or a subquery, None when it has no such column."""
        table = table_of(source)
        if table is not None:
            return table.column(name)
        if isinstance(source, Scope):
            return outputs.get(id(source.expression), {}).get(name.lower())
        return None

    for scope in scope_list:  # inner queries first
        sources_chain = []
        s: Scope | None = scope
        while s is not None:
            sources_chain.append({k.lower(): v for k, v in s.sources.items()})
            s = s.parent
        select = scope.expression if isinstance(scope.expression, exp.Select) else None
        aliases = {p.alias.lower() for p in select.selects if isinstance(p, exp.Alias)} if select else set()
        for column in columns.get(id(scope.expression), []):
            name = column.name
            if column.table:
                source = next((src[column.table.lower()] for src in sources_chain if column.table.lower() in src),
                              None)
                if source is None:
                    raise RewriteError(f"unknown table or alias {column.table}")
                qualifier = table_of(source)
                if qualifier is not None and isinstance(source, exp.Table) and not source.alias:
                    column.set("table", exp.to_identifier(qualifier.name))
                if not isinstance(column.this, exp.Star):
                    new = from_source(source, name)
                    if new is not None:
                        new_names[id(column)] = new
                continue
            if isinstance(scope.expression, exp.SetOperation):  # ORDER BY of a UNION: its output names
                first = _leftmost_select(scope.expression)
                named = outputs.get(id(first), {}) if first is not None else {}
                if name.lower() in named:
                    new_names[id(column)] = named[name.lower()]
                continue
            if name.lower() in aliases and column.find_ancestor(exp.Order, exp.Having, exp.Group):
                continue
            for sources in sources_chain:
                found = {new for src in sources.values() if (new := from_source(src, name)) is not None}
                if len(found) > 1:
                    raise RewriteError(f"ambiguous column {name}")
                if found:
                    new_names[id(column)] = found.pop()
                    break
        if select is not None:
            out: dict[str, str] = {}
            for p in select.selects:
                if isinstance(p, exp.Column) and not isinstance(p.this, exp.Star):
                    out[p.name.lower()] = new_names.get(id(p), p.name)
                elif p.alias_or_name:
                    out[p.alias_or_name.lower()] = p.alias_or_name
            outputs[id(select)] = out
            for join in select.args.get("joins") or []:
                for ident in join.args.get("using") or []:
                    found = {new for sources in sources_chain[:1] for src in sources.values()
                             if (new := from_source(src, ident.name)) is not None}
                    if len(found) != 1:
                        raise RewriteError(f"USING column {ident.name} renamed differently")
                    ident.replace(exp.to_identifier(found.pop()))
    for column in list(tree.find_all(exp.Column)):
        if id(column) in new_names:
            column.set("this", exp.to_identifier(new_names[id(column)]))
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for node in tree.find_all(exp.Table):
        if node.name.lower() in ctes:
            continue
        entry = rename.table(node.name)
        if entry is None:
            raise RewriteError(f"unknown table {node.name}")
        node.set("this", exp.to_identifier(entry[1].name))
    return tree.sql(dialect="sqlite")


def _normalize(value: Any) -> Any:
    """A cell comparable across runs (floats rounded to 9 significant digits)."""
    return float(f"{value:.9g}") if isinstance(value, float) else value


def query_rows(db_file: Path, sql: str, timeout: float = 60.0) -> Counter[tuple[Any, ...]]:
    """The rows of ``sql`` on a SQLite file opened read-only, as a multiset.

    Raises:
        sqlite3.Error: the query fails, or runs longer than ``timeout`` seconds (interrupted).
    """
    conn = sqlite3.connect(f"{db_file.resolve().as_uri()}?mode=ro", uri=True)
    deadline = time.monotonic() + timeout
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    try:
        return Counter(tuple(_normalize(v) for v in row) for row in conn.execute(sql).fetchall())
    finally:
        conn.close()


@dataclass
class BuildReport:
    """What :func:`build_copy` did: questions kept and dropped (with reasons), renamings, foreign keys lost."""

    kept: int = 0
    dropped: list[dict[str, Any]] = field(default_factory=list)
    per_db: dict[str, dict[str, int]] = field(default_factory=dict)
    renames: dict[str, SchemaRename] = field(default_factory=dict)
    foreign_keys_dropped: dict[str, list[str]] = field(default_factory=dict)


def build_copy(source: Path, out: Path, db_ids: list[str], *, seed: int = 2026,
               indices: set[int] | None = None, column_share: float = 0.3,
               table_share: float = 0.2) -> BuildReport:
    """Write an abbreviated Spider-format copy of ``db_ids`` from the folder ``source`` into ``out``.

    ``out`` receives ``dev.json`` (``db_id`` renamed, ``question``, ``query`` rewritten, ``source_index``,
    ``source_db_id``, ``source_query``, and ``original_question`` when the source has it),
    ``database/<new db_id>/<new db_id>.sqlite`` and ``renames.json`` (the renamings, the questions dropped and
    why, the foreign keys left out). Folders of databases an earlier build listed in ``out/renames.json`` are
    removed first.

    Args:
        source: a Spider-format folder (``dev.json``, ``database/<db_id>/<db_id>.sqlite``).
        out: the folder to write.
        db_ids: the databases to copy.
        seed: random seed of the renaming.
        indices: keep only the questions at these positions of the source file (None: every question of
            ``db_ids``).
        column_share: see :func:`plan_renames`.
        table_share: see :func:`plan_renames`.

    Raises:
        FileNotFoundError: ``source`` lacks dev.json or the SQLite file of one of ``db_ids``.
    """
    questions = json.loads((source / "dev.json").read_text())
    databases = source / "database"
    if databases.is_file():  # a copied link holding the folder's relative path
        databases = source / databases.read_text().strip()
    files = {db: databases / db / f"{db}.sqlite" for db in db_ids}
    for db, path in files.items():
        if not path.exists():
            raise FileNotFoundError(f"{path}: no SQLite file for {db}")
    previous = out / "renames.json"
    if previous.exists():
        for entry in json.loads(previous.read_text()).get("databases", {}).values():
            shutil.rmtree(out / "database" / entry["db_id"], ignore_errors=True)
    report = BuildReport()
    for db in db_ids:
        conn = sqlite3.connect(f"{files[db].resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = read_tables(conn)
        finally:
            conn.close()
        rename = plan_renames(tables, db, seed, column_share=column_share, table_share=table_share)
        target = out / "database" / rename.new_db_id / f"{rename.new_db_id}.sqlite"
        report.renames[db] = rename
        report.foreign_keys_dropped[db] = copy_database(files[db], target, tables, rename)
        report.per_db[db] = {"kept": 0, "dropped": 0}
    wanted = set(db_ids)
    rows = []
    for i, q in enumerate(questions):
        if q["db_id"] not in wanted or (indices is not None and i not in indices):
            continue
        rename = report.renames[q["db_id"]]
        target = out / "database" / rename.new_db_id / f"{rename.new_db_id}.sqlite"
        reason = ""
        try:
            rewritten = rewrite_sql(q["query"], rename)
            if query_rows(target, rewritten) != query_rows(files[q["db_id"]], q["query"]):
                reason = "different rows"
        except (RewriteError, sqlite3.Error) as exc:
            reason = f"{type(exc).__name__}: {exc}"
        if reason:
            report.dropped.append({"source_index": i, "db_id": q["db_id"], "query": q["query"], "reason": reason})
            report.per_db[q["db_id"]]["dropped"] += 1
            continue
        row = {"db_id": rename.new_db_id, "question": q["question"], "query": rewritten, "source_index": i,
               "source_db_id": q["db_id"], "source_query": q["query"]}
        if "original_question" in q:
            row["original_question"] = q["original_question"]
        rows.append(row)
        report.per_db[q["db_id"]]["kept"] += 1
    report.kept = len(rows)
    out.mkdir(parents=True, exist_ok=True)
    (out / "dev.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    previous.write_text(json.dumps({
        "source": str(source), "seed": seed, "column_share": column_share, "table_share": table_share,
        "databases": {db: {**r.to_json(), "foreign_keys_dropped": report.foreign_keys_dropped[db],
                           **report.per_db[db]} for db, r in report.renames.items()},
        "questions": {"kept": report.kept, "dropped": report.dropped}}, indent=1, ensure_ascii=False))
    return report


def databases_from_dev(path: Path, count: int, seed: int) -> tuple[list[str], set[int]]:
    """``count`` databases of a development set file, and the source positions of their questions there.

    ``path`` is a JSONL file with ``qid`` (``spider-<position>``) and ``db_id`` (e.g.
    ``benchmarks/sets/wide-dev.jsonl``). The databases are a ``random.Random(seed)`` choice among its sorted
    ``db_id``s, returned sorted.

    Raises:
        ValueError: ``count`` exceeds the number of databases, or a qid is not ``spider-<n>``.
    """
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    all_dbs = sorted({r["db_id"] for r in rows})
    if count > len(all_dbs):
        raise ValueError(f"{path}: {count} databases asked, {len(all_dbs)} available")
    chosen = sorted(random.Random(seed).sample(all_dbs, count))
    indices = set()
    for r in rows:
        if r["db_id"] in chosen:
            number = str(r["qid"]).removeprefix("spider-")
            if not number.isdigit():
                raise ValueError(f"{path}: qid {r['qid']} is not spider-<n>")
            indices.add(int(number))
    return chosen, indices
