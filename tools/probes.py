"""Read-only probe queries that ground a SQL repair in the data (RAISE, Granado et al. 2025).

From a failing query, :func:`plan_probes` derives small SELECTs with sqlglot: for each comparison of a
column with a string literal (``=``, ``IN``, ``LIKE``), the DISTINCT values of that column, so the verifier
sees how the value is really spelled ('Alaska' vs 'alaska'); for an unknown-column error, the columns of the
query's tables. Probes run through the same guarded read-only path as every query, and the values of sensitive
columns (``retrieval.sensitive_patterns``) are never shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import sqlglot
from rapidfuzz import fuzz, process
from sqlglot import exp

from database.connection import Database
from database.masking import is_sensitive

PROBE_ROWS = 200
SHOWN_VALUES = 6
_NO_COLUMN = re.compile(r"no such column|invalid identifier|column .* does not exist|unknown column", re.I)


@dataclass
class Probe:
    """One probe: what it checks, its SQL, and the literal it looks for (None for column listings)."""

    purpose: str
    sql: str
    literal: str | None = None


def _tables(tree: exp.Expr) -> dict[str, str]:
    """Alias (or name) -> table name for every table the query reads."""
    return {t.alias_or_name: t.name for t in tree.find_all(exp.Table) if t.name}


def plan_probes(sql: str, dialect: str, error: str | None = None, limit: int = 3) -> list[Probe]:
    """At most ``limit`` probes for ``sql`` (which may be the failing query); [] when it does not parse."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:
        return []
    tables = _tables(tree)
    probes: list[Probe] = []
    if error and _NO_COLUMN.search(error):
        for table in list(dict.fromkeys(tables.values()))[:limit]:
            q = exp.select("*").from_(exp.to_table(table, quoted=True)).limit(1)
            probes.append(Probe(f"columns of {table}", q.sql(dialect=dialect)))
    seen: set[tuple[str, str]] = set()
    for node in tree.find_all(exp.EQ, exp.In, exp.Like, exp.ILike, exp.NEQ):
        column = node.find(exp.Column)
        literals = [lit.this for lit in node.find_all(exp.Literal) if lit.is_string]
        if column is None or not literals:
            continue
        owners = [tables[column.table]] if column.table in tables else list(dict.fromkeys(tables.values()))
        for table in owners[:2]:
            if (table, column.name) in seen:
                continue
            seen.add((table, column.name))
            q = (exp.select(exp.column(column.name, quoted=True)).distinct()
                 .from_(exp.to_table(table, quoted=True)).limit(PROBE_ROWS))
            probes.append(Probe(f"values of {table}.{column.name}", q.sql(dialect=dialect), literals[0]))
    return probes[:limit]


def run_probes(db: Database, probes: list[Probe], sensitive_patterns: Iterable[str] = ()) -> list[str]:
    """Run ``probes`` and describe each outcome in one line (values closest to the literal first).

    A literal probe on a sensitive column (``sensitive_patterns``, :func:`database.masking.is_sensitive`) is left
    out: its stored values never reach the prompt, as they never reach the schema listing's sample rows.
    """
    patterns = tuple(sensitive_patterns)
    lines = []
    for probe in probes:
        res = db.run_query(probe.sql, row_cap=PROBE_ROWS)
        if not res.ok:
            continue  # e.g. the column is not in this table: nothing to report
        if probe.literal is None:
            lines.append(f"- {probe.purpose}: {', '.join(res.columns)}")
            continue
        if is_sensitive(res.columns[0], patterns):
            continue
        values = [str(r[0]) for r in res.rows if r[0] is not None]
        if not values:
            lines.append(f"- {probe.purpose}: no values")
            continue
        exact = probe.literal in values
        close = [v for v, _score, _i in process.extract(probe.literal, values, scorer=fuzz.WRatio,
                                                         limit=SHOWN_VALUES)]
        found = "exists" if exact else "does NOT exist"
        shown = ", ".join(repr(v) for v in close)
        lines.append(f"- {probe.purpose}: {probe.literal!r} {found}; closest values: {shown}")
    return lines
