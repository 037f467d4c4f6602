"""What an opaque table is for, said from its keys: a comment for ``t_03``-style tables nobody described.

A table named ``t_10`` says nothing; its columns and keys do. A small model that must find "tracks" among
``TRCK`` and ``t_10 (PLYLST_ID, TRCK_ID)`` reads ``TRCK_ID`` and takes ``t_10`` for the tracks. The keys settle
what the table holds, so :func:`table_role` states it as the comment a person would have written, from the
declared keys only (no model call, no query):

* a linking table - foreign keys to two or more tables, and no key of its own that is not one of them:
  ``each row links PLYLST and TRCK``;
* otherwise its single-column primary key, ``one row per ALBM_ID``, and the columns of other tables that refer to
  it, ``TRCK.ALBM_ID refers to it`` (at most :data:`MAX_REFERENCES`).

Only tables whose name is opaque (:func:`knowledge.abbreviations.is_opaque_name`) and that have no description
get one, so a readable schema renders exactly as before; a description, once approved, replaces it. The idea
is the same as :mod:`retrieval.opaque_hints` for columns: put the evidence where the name should have been.
"""

from __future__ import annotations

from collections.abc import Sequence

from database.schema_types import TableInfo
from knowledge.abbreviations import is_opaque_name

__all__ = ["MAX_REFERENCES", "table_role"]

MAX_REFERENCES = 3
"""Referring columns named in a table's comment."""


def table_role(table: TableInfo, tables: Sequence[TableInfo]) -> str | None:
    """The comment for ``table`` (see the module docstring), or None (a readable or described table, no keys).

    ``tables`` is the schema the table belongs to (the tables whose foreign keys may refer to it; it may include
    ``table`` itself). Names are written as declared; linked tables in the order of their key columns.
    """
    if not is_opaque_name(table.name) or (table.comment or "").strip():
        return None
    position = {c.name.lower(): i for i, c in enumerate(table.columns)}
    keys = sorted(table.foreign_keys, key=lambda fk: position.get(fk.columns[0].lower(), len(position)))
    targets = list(dict.fromkeys(fk.ref_table for fk in keys if fk.ref_table.lower() != table.name.lower()))
    fk_columns = {c.lower() for fk in table.foreign_keys for c in fk.columns}
    own_key = [c for c in table.primary_key if c.lower() not in fk_columns]
    if len(targets) >= 2 and not own_key:
        return f"each row links {', '.join(targets[:-1])} and {targets[-1]}"
    parts = []
    if len(table.primary_key) == 1:
        parts.append(f"one row per {table.primary_key[0]}")
    refs = [f"{other.name}.{fk.columns[0]}" for other in tables if other.name.lower() != table.name.lower()
            for fk in other.foreign_keys if fk.ref_table.lower() == table.name.lower() and len(fk.columns) == 1]
    if refs:
        shown = refs[:MAX_REFERENCES]
        parts.append(f"{', '.join(shown)}{' and others' if len(refs) > len(shown) else ''} "
                     f"refer{'s' if len(shown) == 1 and len(refs) == 1 else ''} to it")
    return "; ".join(parts) or None
