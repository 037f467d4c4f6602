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

Modules, one concern each (every public name is re-exported here, so ``from eval.abbreviate import X`` works):

* :mod:`eval.abbreviate.naming`: the naming rules (:data:`ABBREVIATIONS`, :func:`abbreviate_name`,
  :func:`is_reserved`);
* :mod:`eval.abbreviate.schema`: a database's tables as SQLite describes them (:func:`read_tables`);
* :mod:`eval.abbreviate.renames`: the new names of a database (:func:`plan_renames`, :class:`SchemaRename`);
* :mod:`eval.abbreviate.database`: the renamed SQLite file (:func:`copy_database`);
* :mod:`eval.abbreviate.rewrite`: gold queries rewritten with sqlglot (:func:`rewrite_sql`) and their rows
  (:func:`query_rows`);
* :mod:`eval.abbreviate.build`: the whole copy and its question file (:func:`build_copy`,
  :func:`databases_from_dev`).
"""

from __future__ import annotations

from eval.abbreviate.build import BuildReport, build_copy, databases_from_dev
from eval.abbreviate.database import copy_database
from eval.abbreviate.naming import (
    ABBREVIATIONS,
    RESERVED,
    SQLITE_KEYWORDS,
    abbreviate_name,
    abbreviate_word,
    is_reserved,
    split_words,
)
from eval.abbreviate.renames import SchemaRename, TableRename, plan_renames
from eval.abbreviate.rewrite import RewriteError, query_rows, rewrite_sql
from eval.abbreviate.schema import ColumnInfo, ForeignKey, IndexInfo, TableInfo, read_tables

__all__ = [
    "ABBREVIATIONS",
    "RESERVED",
    "SQLITE_KEYWORDS",
    "BuildReport",
    "ColumnInfo",
    "ForeignKey",
    "IndexInfo",
    "RewriteError",
    "SchemaRename",
    "TableInfo",
    "TableRename",
    "abbreviate_name",
    "abbreviate_word",
    "build_copy",
    "copy_database",
    "databases_from_dev",
    "is_reserved",
    "plan_renames",
    "query_rows",
    "read_tables",
    "rewrite_sql",
    "split_words",
]
