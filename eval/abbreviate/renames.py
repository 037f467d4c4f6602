"""The renaming of one database: each table's and column's new name, chosen deterministically for a seed."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from eval.abbreviate.naming import ABBREVIATIONS, _claim, _drop_vowels, abbreviate_name, split_words
from eval.abbreviate.schema import TableInfo


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
