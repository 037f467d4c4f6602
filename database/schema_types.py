"""Plain data shapes describing a database schema, shared by the schema reader, indexing and tools."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ColumnProfile:
    """Statistics of one column's data (see :func:`database.profiling.profile_table`).

    ``kind`` is "number", "date" (DATE/TIMESTAMP values or text 'YYYY-MM-DD[ HH:MM[:SS]]'), "text" or
    "other" (binary/LOB columns: only nulls are counted). ``row_count`` is the table's row count;
    ``null_share`` the fraction of NULLs (0..1; 0 for an empty table); ``distinct_count`` the number of
    distinct non-NULL values (None when not computed); ``min``/``max`` the smallest/largest value for
    numbers and dates (None otherwise); ``top_values`` the most frequent ``(value, count)`` pairs, most
    frequent first, for low-cardinality text columns ([] otherwise). ``masked`` is True once
    :func:`database.masking.mask_table` replaced the values of a sensitive column. ``distinct_sample`` is None when
    every statistic covers the whole table; on a table too large to sort whole within the query timeout it is
    the number of rows (the first the engine returns) ``distinct_count`` was counted over, so that count is a
    lower bound (:func:`database.profiling.profile_table`).
    """

    kind: str = "other"
    row_count: int = 0
    null_share: float = 0.0
    distinct_count: int | None = None
    min: Any = None
    max: Any = None
    top_values: list[tuple[Any, int]] = field(default_factory=list)
    masked: bool = False
    distinct_sample: int | None = None


@dataclass
class ColumnInfo:
    """One column: name, SQL type as text, nullability, primary-key flag, documentation, optional profile.

    The data profile (:class:`ColumnProfile`) is attached by ``read_schema(profile=True)``. ``drafted`` is True
    when ``comment`` is a drafted description nobody reviewed yet, used because ``knowledge.use_drafts`` is on
    (:func:`database.descriptions.merge_enriched`): a guess, which listings show beside the stored evidence.
    """

    name: str
    type: str
    nullable: bool = True
    primary_key: bool = False
    comment: str | None = None
    profile: ColumnProfile | None = None
    drafted: bool = False


@dataclass
class ForeignKey:
    """A foreign key ``columns`` -> ``ref_table(ref_columns)``; column lists have equal length.

    ``origin`` says who stated it: ``declared`` (the database's catalog), ``metadata`` (a ``references`` entry of
    the metadata file, :func:`database.descriptions.merge_metadata`), ``reviewed`` (a candidate join found in the
    data and approved in onboarding's review, :func:`database.descriptions.merge_enriched`) or ``inferred``
    (found in the data and not reviewed: of a database that declares none, :mod:`retrieval.inferred_joins`, or
    a pending draft used under ``knowledge.use_drafts``). Only declared keys are constraints the data is known to
    satisfy.
    """

    columns: list[str]
    ref_table: str
    ref_columns: list[str]
    origin: str = "declared"


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
