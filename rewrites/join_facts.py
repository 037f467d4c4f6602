"""Which inner joins cannot change a query's rows, from the database's declared keys and NOT NULL columns.

``FROM orders JOIN customers ON customers.id = orders.customer_id`` keeps every order exactly once when
``orders.customer_id`` is a declared foreign key onto the whole primary key of ``customers`` and is NOT NULL: each
order then has exactly one customer (as far as the declaration is kept). Any other join may drop rows (an order
without a customer, a singer who never performed) or repeat them, so it is an existence filter or a fan-out and
not dangling. :func:`lossless_join` answers that question for :func:`rewrites.dangling.prune_dangling_joins`
from the SQLAlchemy inspector, one table at a time, cached per database and table. Anything it cannot read (a
view, an unknown table, an inspector error) counts as "may change the rows". Never raises.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import inspect as sa_inspect

from database.connection import Database
from rewrites.dangling import JoinCheck


@dataclass(frozen=True)
class TableKeys:
    """One table's declared keys, lower-cased: ``primary_key``, ``not_null`` columns and ``foreign_keys``.

    ``foreign_keys`` are ``(columns, referred table, referred columns)``; referred columns are empty when the
    declaration names only the table (its primary key).
    """

    primary_key: tuple[str, ...]
    not_null: frozenset[str]
    foreign_keys: tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...]


_CACHE: dict[tuple[str, str], TableKeys | None] = {}
_LOCK = threading.Lock()
CACHE_SIZE = 1024
"""At most this many tables' keys are kept (the cache is emptied when full)."""


def table_keys(db: Database, table: str) -> TableKeys | None:
    """``table``'s declared keys (name matched case-insensitively); None when they cannot be read."""
    key = (db.url, table.lower())
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    found = _read(db, table)
    with _LOCK:
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = found
    return found


def _read(db: Database, table: str) -> TableKeys | None:
    """Read ``table``'s keys through the inspector (None on any failure or an unknown table)."""
    try:
        insp = sa_inspect(db.engine)
        name = next((t for t in insp.get_table_names() if t.lower() == table.lower()), None)
        if name is None:
            return None
        pk = insp.get_pk_constraint(name).get("constrained_columns") or []
        columns = insp.get_columns(name)
        fks = insp.get_foreign_keys(name)
    except Exception:  # noqa: BLE001 - any driver or permission error: the keys are unknown
        return None
    return TableKeys(
        primary_key=tuple(c.lower() for c in pk),
        not_null=frozenset(c["name"].lower() for c in columns if not c.get("nullable", True)),
        foreign_keys=tuple((tuple(c.lower() for c in fk["constrained_columns"]), str(fk["referred_table"]).lower(),
                            tuple(c.lower() for c in fk.get("referred_columns") or [])) for fk in fks),
    )


def lossless_join(db: Database) -> JoinCheck:
    """A :data:`rewrites.dangling.JoinCheck` reading ``db``'s declared keys (see the module docstring)."""

    def check(kept: str, kept_columns: Sequence[str], dropped: str, dropped_columns: Sequence[str]) -> bool:
        mine, theirs = table_keys(db, kept), table_keys(db, dropped)
        if mine is None or theirs is None or not theirs.primary_key:
            return False
        pairs = {(k.lower(), d.lower()) for k, d in zip(kept_columns, dropped_columns, strict=True)}
        if {d for _k, d in pairs} != set(theirs.primary_key) or len(pairs) != len(theirs.primary_key):
            return False
        if not all(k in mine.not_null for k, _d in pairs):
            return False
        return any(ref == dropped.lower() and set(zip(cols, refs or theirs.primary_key, strict=False)) == pairs
                   for cols, ref, refs in mine.foreign_keys)

    return check
