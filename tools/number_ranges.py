"""Numbers of the question checked against the stored range of the column a candidate compares them with.

"People taller than 200" written as ``WT > 200`` while ``WT`` holds 82..94 and ``c13`` holds 188..200: the
number itself says which column was meant. A candidate that compares a column with a number outside every
value that column stores returns all rows or none - rarely what an analyst asked - and when another candidate
of the same question compares that very number with a column whose stored values do reach it, the stored data
side with the other candidate.

:func:`comparisons` finds the ``column <op> number`` conditions of a query (``=``, ``<>``, ``<``, ``<=``, ``>``,
``>=``, ``BETWEEN``) and resolves each column's table; :func:`stored_range` reads the smallest and largest
stored value of a numeric column (one ``MIN``/``MAX`` query, cached per database and column);
:func:`out_of_range_candidates` applies both to the candidates of one question. The execution step leaves
such candidates out of the vote when another candidate resolves the conflict (setting
``generation.range_check``), and the outcome names the conflicts of the answer that was kept
(:func:`range_conflicts`) so an analyst sees at a glance that a number matched nothing stored.

Model-free. The idea is the database-value grounding of execution-guided selection (e.g. CHESS's and
CHASE-SQL's use of stored values to reject candidates), applied to numeric literals.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp

from database.connection import Database
from database.schema_reader import quote_identifier, read_schema
from rewrites.negated_joins import literal_number

__all__ = ["Comparison", "RangeConflict", "comparisons", "out_of_range_candidates", "owner_table",
           "range_conflicts", "schema_columns", "stored_range"]

_OPS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_LOCK = threading.Lock()
_RANGES: dict[tuple[str, str, str], tuple[float, float] | None] = {}
_COLUMNS: dict[str, dict[str, set[str]]] = {}


@dataclass(frozen=True)
class Comparison:
    """A condition ``table.column <op> number`` of a query: names as written in the SQL, ``number`` a float."""

    table: str
    column: str
    number: float


@dataclass(frozen=True)
class RangeConflict:
    """A comparison whose number lies outside ``low..high``, the stored values of its column."""

    comparison: Comparison
    low: float
    high: float

    def describe(self) -> str:
        """One line for the analyst: ``"200 compared with PPL.WT, whose stored values run from 82 to 94"``."""
        c = self.comparison
        return (f"{_show(c.number)} compared with {c.table}.{c.column}, whose stored values run from "
                f"{_show(self.low)} to {_show(self.high)}")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form: table, column, number, low, high."""
        c = self.comparison
        return {"table": c.table, "column": c.column, "number": c.number, "low": self.low, "high": self.high}


def _show(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def schema_columns(db: Database) -> dict[str, set[str]]:
    """Lower-cased table -> its lower-cased column names (read once per database URL; {} when unreadable)."""
    with _LOCK:
        if db.url in _COLUMNS:
            return _COLUMNS[db.url]
    try:
        found = {t.name.lower(): {c.name.lower() for c in t.columns} for t in read_schema(db, sample_rows=0)}
    except Exception:  # noqa: BLE001 - no schema, no check
        found = {}
    with _LOCK:
        _COLUMNS[db.url] = found
    return found


def comparisons(sql: str, dialect: str, columns: Mapping[str, Collection[str]]) -> list[Comparison]:
    """The ``column <op> number`` conditions of ``sql`` with each column's table resolved.

    ``columns`` maps lower-cased table names to lower-cased column names. A qualified column takes the table
    its qualifier names in the same SELECT; an unqualified one the only table of that SELECT that has it.
    Columns that cannot be resolved that way, and SQL that does not parse, give nothing.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except Exception:  # noqa: BLE001 - unparsable SQL has no checkable condition
        return []
    found: list[Comparison] = []
    for node in tree.find_all(*_OPS, exp.Between):
        if isinstance(node, exp.Between):
            pairs = [(node.this, node.args.get("low")), (node.this, node.args.get("high"))]
        else:
            left, right = node.args.get("this"), node.args.get("expression")
            pairs = [(left, right), (right, left)]
        for col, lit in pairs:
            number = literal_number(lit)
            if not isinstance(col, exp.Column) or number is None:
                continue
            table = owner_table(col, columns)
            if table is not None:
                found.append(Comparison(table, col.name, number))
    return found


def owner_table(col: exp.Column, columns: Mapping[str, Collection[str]]) -> str | None:
    """The table (as written) that ``col`` belongs to in its SELECT, or None when unknown or ambiguous."""
    select = col.find_ancestor(exp.Select)
    if select is None:
        return None
    tables = [t for t in select.find_all(exp.Table) if t.find_ancestor(exp.Select) is select]
    name = col.name.lower()
    if col.table:
        owners = [t.name for t in tables if col.table.lower() in (t.alias_or_name.lower(), t.name.lower())]
    else:
        owners = [t.name for t in tables if name in columns.get(t.name.lower(), ())]
    owners = list(dict.fromkeys(owners))
    if len(owners) != 1 or name not in columns.get(owners[0].lower(), ()):
        return None
    return owners[0]


def stored_range(db: Database, table: str, column: str) -> tuple[float, float] | None:
    """(smallest, largest) stored value of ``table.column`` when both are numbers, else None.

    One read-only ``MIN``/``MAX`` query through :meth:`Database.run_query`, cached per database URL and
    column. Text columns (whose MIN/MAX compare as text), empty tables and failing queries give None.
    """
    key = (db.url, table.lower(), column.lower())
    with _LOCK:
        if key in _RANGES:
            return _RANGES[key]
    col, tab = quote_identifier(column, db.dialect), quote_identifier(table, db.dialect)
    res = db.run_query(f"SELECT MIN({col}), MAX({col}) FROM {tab}", row_cap=1)
    low, high = res.rows[0] if res.ok and res.rows else (None, None)
    found = (float(low), float(high)) if _is_number(low) and _is_number(high) else None
    with _LOCK:
        _RANGES[key] = found
    return found


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _checked(db: Database, sql: str, columns: Mapping[str, Collection[str]]
             ) -> tuple[list[RangeConflict], set[float]]:
    """The conflicts of ``sql`` and the numbers it compares with a column whose stored values reach them."""
    conflicts, fitting = [], set()
    for c in comparisons(sql, db.dialect, columns):
        span = stored_range(db, c.table, c.column)
        if span is None:
            continue
        if span[0] <= c.number <= span[1]:
            fitting.add(c.number)
        else:
            conflicts.append(RangeConflict(c, *span))
    return conflicts, fitting


def range_conflicts(db: Database, sql: str) -> list[RangeConflict]:
    """Comparisons of ``sql`` with a number outside the stored range of their column ([] when none).

    Raises nothing: SQL that does not parse or columns that cannot be resolved give [].
    """
    return _checked(db, sql, schema_columns(db))[0]


def out_of_range_candidates(db: Database, outcomes: Sequence[Mapping[str, Any]]) -> set[int]:
    """Indexes of candidates the stored values argue against.

    A candidate (``status`` ok or empty) counts when it compares a column with a number outside that column's
    stored range, and another candidate that returned rows (``status`` ok) compares the same number with a
    column whose stored values do reach it. ``outcomes`` are :func:`tools.execution.execute_candidates`
    outcomes (``index``, ``sql``, ``status``). Returns an empty set when no candidate has such a rival.
    """
    ran = [o for o in outcomes if o.get("status") in ("ok", "empty") and o.get("sql")]
    if len(ran) < 2:
        return set()
    columns = schema_columns(db)
    checked = {int(o["index"]): _checked(db, str(o["sql"]), columns) for o in ran}
    out = set()
    for o in ran:
        conflicts = checked[int(o["index"])][0]
        rivals = [checked[int(r["index"])][1] for r in ran if r is not o and r.get("status") == "ok"]
        if any(c.comparison.number in fitting for c in conflicts for fitting in rivals):
            out.add(int(o["index"]))
    return out
