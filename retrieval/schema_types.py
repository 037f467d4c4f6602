"""Plain data shapes describing a database schema, shared by the schema reader, indexing and tools."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ColumnInfo:
    """One column: name, SQL type as text, nullability, primary-key flag and documentation."""

    name: str
    type: str
    nullable: bool = True
    primary_key: bool = False
    comment: str | None = None


@dataclass
class ForeignKey:
    """A foreign key ``columns`` -> ``ref_table(ref_columns)``; column lists have equal length."""

    columns: list[str]
    ref_table: str
    ref_columns: list[str]


@dataclass
class TableInfo:
    """One table with its columns, keys, documentation and a few sample rows (dicts column -> value)."""

    name: str
    columns: list[ColumnInfo]
    primary_key: list[str] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    comment: str | None = None
    sample_rows: list[dict[str, Any]] = field(default_factory=list)

    def column(self, name: str) -> ColumnInfo | None:
        """The column called ``name`` (case-insensitive), or None."""
        low = name.lower()
        return next((c for c in self.columns if c.name.lower() == low), None)
