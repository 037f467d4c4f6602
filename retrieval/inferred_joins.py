"""Join hints for a database that declares no foreign key: candidate joins checked on the data stand in for them.

A warehouse, or a database loaded from CSV files, often declares no foreign key at all. The agent's join hints
(the ``REFERENCES`` clauses of the schema listing, the join graph that adds bridge tables and the join paths
shown to the candidates) all come from declared keys, so on such a database the model gets no join hint and
guesses the join columns from names alone. :func:`with_inferred_joins` adds onboarding's candidate joins
(:func:`retrieval.onboarding.joins.candidate_joins`: compatible kinds, the child's values inside a candidate key
of the parent, at least 95% of its distinct values found there) that the names support too (``CUST_ID`` ->
``CUST.CUST_ID``, ``customer_id`` -> ``customers.id``) as foreign keys of the copies the index renders, so the
listing, the graph and the paths see them as they would see declared ones. Joins found by values alone are left
to onboarding's review: a billing address equal to a customer's address is not a relation. A column whose values
fit the keys of two tables gets both (the review queue shows one per column,
:func:`retrieval.onboarding.joins.best_joins`). Keeping one per column here too drops 26 joins with name evidence
on the 138 spider-wide databases with their keys removed, 25 of them not declared keys, but covers 11 fewer of
the 3,718 gold join conditions of the key-dropped abbreviated copies (2,825 against 2,836): the gold queries do
join such columns to both tables (``benchmarks/results/2026-12-07-reviewed-joins/``).

Only when the database declares no foreign key: one declared key means someone modelled the relations, and a
guess beside them would add joins they chose not to declare. Relations a team wrote into the metadata file
(``references``) or approved in onboarding's review are kept and win over a guess for the same column, and a
join a reviewer rejected (:func:`database.descriptions.rejected_references`) is never inferred. The join rewrite steps read the declared
keys from the database itself (:mod:`rewrites.join_facts`) and never see these, and neither does the whole-schema
candidate (:mod:`tools.whole_schema`), whose listing is the database's own text by design: a second view whose
errors are less correlated with the hinted candidates'. Measured on the 138 spider-wide
databases with their keys removed (``benchmarks/results/2026-12-07-inferred-joins/``): the joins with name
evidence recover 488 of the 625 declared single-column keys (recall 0.78) at precision 0.87 (558 found).
Inferring relations from inclusion dependencies between columns is the classic approach of profiling tools
(e.g. Rostin et al. 2009, "A machine learning approach to foreign key discovery"; the SPIDER
inclusion-dependency algorithm, Bauckmann et al. 2007).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Collection, Sequence

from database.connection import Database
from database.profiling import attach_profiles
from database.schema_types import ForeignKey, TableInfo
from retrieval.example_joins import example_foreign_keys
from retrieval.onboarding.joins import candidate_joins
from retrieval.onboarding.profile import ENUM_MAX_CODES, LOW_CARDINALITY, summarise

__all__ = ["inferred_foreign_keys", "with_inferred_joins"]


def inferred_foreign_keys(db: Database, tables: Sequence[TableInfo], rejected: Collection[tuple[str, str]] = (),
                          example_sql: Sequence[str] = ()) -> dict[str, list[ForeignKey]]:
    """Single-column foreign keys inferred from the data of ``tables``, by child table name.

    Tables without a column profile are profiled first, as copies (``tables`` are not changed).
    Returns ``{}`` when any table of ``tables`` has a foreign key the database declares (``origin`` declared);
    keys from the metadata file's ``references`` or a review do not stop the inference, and no join is inferred
    for a column they already cover nor for a ``(table, column)`` in ``rejected`` (lower-cased). Read-only
    statements only (the containment checks of :func:`retrieval.onboarding.joins.candidate_joins`, at most its
    ``MAX_CHECKS``); a check that fails skips its pair. The joins the SQL of ``example_sql`` states
    (:func:`retrieval.example_joins.example_foreign_keys`, ``origin="examples"``) come first: a query a person
    wrote or approved is better evidence than the data; the data then fills the columns they leave.
    """
    if not tables or any(fk.origin == "declared" for t in tables for fk in t.foreign_keys):
        return {}
    stated = {(t.name.lower(), c.lower()) for t in tables for fk in t.foreign_keys for c in fk.columns}
    stated |= set(rejected)
    bare = [copy.deepcopy(t) for t in tables if any(c.profile is None for c in t.columns)]
    attach_profiles(db, bare, top_n=ENUM_MAX_CODES, low_cardinality=LOW_CARDINALITY)
    by_name = {t.name: t for t in bare}
    profiled = [by_name.get(t.name, t) for t in tables]
    summaries = {t.name: summarise(t) for t in profiled}
    found: dict[str, list[ForeignKey]] = {}
    for child, keys in example_foreign_keys(example_sql, db.dialect, summaries).items():
        for fk in keys:
            if (child.lower(), fk.columns[0].lower()) not in stated:
                found.setdefault(child, []).append(fk)
                stated.add((child.lower(), fk.columns[0].lower()))
    joins, _checked = candidate_joins(db, summaries)
    for join in joins:
        if join["declared"] or join["evidence"] != "name+values":
            continue
        child, column = join["child"].split(".", 1)
        if (child.lower(), column.lower()) in stated:
            continue
        parent, key = join["parent"].split(".", 1)
        found.setdefault(child, []).append(ForeignKey([column], parent, [key], origin="inferred"))
    return found


def with_inferred_joins(db: Database, tables: Sequence[TableInfo], rejected: Collection[tuple[str, str]] = (),
                        example_sql: Sequence[str] = ()) -> tuple[list[TableInfo], int]:
    """Copies of ``tables`` carrying :func:`inferred_foreign_keys`, and how many were added.

    For rendering and the indexed join graph only: ``tables`` themselves are not changed. Returns ``tables``
    unchanged (and 0) when the database declares a foreign key or none can be inferred; ``rejected`` and
    ``example_sql`` as in :func:`inferred_foreign_keys`. Keys from the metadata
    file come first in each table's list.
    """
    found = inferred_foreign_keys(db, tables, rejected, example_sql)
    if not found:
        return list(tables), 0
    out = [dataclasses.replace(t, foreign_keys=[*t.foreign_keys, *found[t.name]]) if t.name in found else t
           for t in tables]
    return out, sum(len(v) for v in found.values())
