"""Candidate joins where no foreign key is declared: by name and by value overlap, checked on the data.

A column ``A.x`` may reference a candidate key ``B.y`` (another table; no NULLs, one row per value) when:

1. the kinds agree (text with text, integers with integers; dates and floats never), ``A.x`` has no more distinct
   values than ``B.y`` and, for numbers, its range lies inside ``B.y``'s;
2. there is evidence beyond the values for numbers (:func:`name_evidence`: ``EQ_ID`` = ``EQ_ID``, ``IDX_ID`` ->
   ``indices.index_id``, ``customer_id`` -> ``customers.id``), since small integers overlap everywhere; text
   needs the name, or at least :data:`MIN_TEXT_CODES` distinct values (``LIMAR`` -> ``exchanges.mic``); a
   table's own single-column primary key references another table only under the key's own name;
3. at least :data:`MIN_CONTAINMENT` of ``A.x``'s distinct values occur in ``B.y``: computed from both profiles'
   value lists when both are complete, else with one statement
   ``SELECT COUNT(DISTINCT a.x), COUNT(DISTINCT b.y) FROM (first rows of A) a LEFT JOIN B b ON a.x = b.y WHERE
   a.x IS NOT NULL`` through the guarded read-only path (at most :data:`MAX_CHECKS` statements per run; the first
   :data:`database.profiling.SAMPLE_ROWS` rows of ``A``).

Declared foreign keys are listed too (``declared: true``) and never re-checked. Names are read through
:func:`knowledge.abbreviations.expand_name`, so abbreviations match their words.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import sqlglot.expressions as exp

from database.connection import Database
from database.profiling import SAMPLE_ROWS, sample_of, spread_step
from knowledge.abbreviations import expand_name, split_words
from retrieval.term_expansion import abbreviates

MIN_CONTAINMENT = 0.95
MIN_TEXT_CODES = 3
MAX_CHECKS = 200
GENERIC = frozenset({"id", "code", "cd", "key", "name", "number", "num", "nbr", "no", "type"})
"""Name words that say nothing about which table a column points to."""


@lru_cache(maxsize=65536)
def _words(name: str) -> tuple[str, ...]:
    return tuple((expand_name(name) or " ".join(split_words(name))).split())


@lru_cache(maxsize=65536)
def _singulars(word: str) -> frozenset[str]:
    forms = {word}
    if word.endswith("ices"):
        forms |= {word[:-4] + "ex", word[:-4] + "ix"}
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    if word.endswith("es"):
        forms.add(word[:-2])
    if word.endswith("s") and not word.endswith("ss"):
        forms.add(word[:-1])
    return frozenset(forms)


@lru_cache(maxsize=65536)
def _forms(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(form for word in words for form in _singulars(word))


@lru_cache(maxsize=65536)
def _stem(table: str) -> frozenset[str]:
    return _forms(tuple(w for w in _words(table) if w not in GENERIC))


def name_evidence(column: str, table: str, key: str) -> bool:
    """True when the name of ``column`` points at ``table.key``.

    Either both names read the same and not only generic words (``EQ_ID`` / ``EQ_ID``, ``IDX_ID`` /
    ``index_id``), or the column names the table (a word of it, singular or plural) and every non-generic word of
    the key is a word of the column or abbreviated by one (``customer_id`` -> ``customers.id``, ``CTRY_CD`` ->
    ``countries.country_code``, ``GICS_SECT`` -> ``gics_sectors.sector_code``,
    ``start_station_id`` -> ``station.id``; not ``engineer_id`` -> ``engineer_visits.engineer_visit_id`` nor
    ``customer_id`` -> ``customer_orders.order_id``).
    """
    col, ref = _words(column), _words(key)
    if col == ref and not set(ref) <= GENERIC:
        return True
    if not (set(col) - GENERIC) & _stem(table):
        return False
    forms = _forms(col)
    return all(_singulars(w) & forms or any(abbreviates(c, w) for c in col) for w in set(ref) - GENERIC)


def quoted(name: str, dialect: str) -> str:
    """``name`` as a quoted identifier of sqlglot ``dialect`` (``"EQ_MSTR"``)."""
    return exp.to_identifier(name, quoted=True).sql(dialect=dialect)


def overlap_query(child: str, column: str, parent: str, key: str, dialect: str, sample: int = SAMPLE_ROWS,
                  step: int | None = None) -> str:
    """The containment statement of the module docstring, identifiers quoted for ``dialect``.

    The child side is a sample of at most ``sample`` rows (:func:`database.profiling.sample_of`: the first rows,
    or spread over the table by ``step``, see :func:`database.profiling.spread_step`; the whole table when it is
    smaller): on a fact table of millions of rows the whole-table join does not fit the query timeout, and the
    share of a sample's distinct values found in the key estimates the table's.
    """
    a, b = f"a.{quoted(column, dialect)}", f"b.{quoted(key, dialect)}"
    source = sample_of(child, sample, "a", step=step, dialect=dialect).sql(dialect=dialect)
    return (f"SELECT COUNT(DISTINCT {a}), COUNT(DISTINCT {b}) FROM {source} "
            f"LEFT JOIN {quoted(parent, dialect)} b ON {a} = {b} WHERE {a} IS NOT NULL")


def _compatible(col: dict[str, Any], key: dict[str, Any]) -> bool:
    kind = col.get("kind")
    if kind not in ("text", "number") or kind != key.get("kind") or col.get("masked") or key.get("masked"):
        return False
    if not col.get("distinct") or col["distinct"] > (key.get("distinct") or 0):
        return False
    if kind == "number":
        values = (col.get("min"), col.get("max"), key.get("min"), key.get("max"))
        if any(not isinstance(v, int) or isinstance(v, bool) for v in values):
            return False
        return bool(key["min"] <= col["min"] and col["max"] <= key["max"])
    return True


def _known_values(col: dict[str, Any]) -> set[str] | None:
    top = col.get("top") or []
    return {str(v) for v, _n in top} if top and len(top) == col.get("distinct") else None


def declared_joins(tables: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The declared foreign keys as joins ``{"child": "A.x", "parent": "B.y", "declared": True}`` (one per column)."""
    out = []
    for name, table in tables.items():
        for fk in table["foreign_keys"]:
            for own, ref in zip(fk["columns"], fk["ref_columns"], strict=False):
                out.append({"child": f"{name}.{own}", "parent": f"{fk['ref_table']}.{ref}", "declared": True,
                            "containment": None, "evidence": "foreign key"})
    return out


def candidate_joins(db: Database, tables: dict[str, dict[str, Any]],
                    on_check: Callable[[int, int, str], None] | None = None) -> tuple[list[dict[str, Any]], int]:
    """Declared joins plus the candidate joins found in the profiles ``tables`` (see the module docstring).

    Args:
        db: where overlaps are measured (read-only statements; failures skip the pair).
        tables: ``{table: summary}`` as :func:`retrieval.onboarding.profile.summarise` writes it.
        on_check: called as ``(j, m, "A.x -> B.y")`` before pair ``j`` of the ``m`` candidate pairs.

    Returns:
        ``(joins, statements run)``; a join is ``{"child": "A.x", "parent": "B.y", "declared": bool,
        "containment": share 0..1 (None when declared), "evidence": "foreign key" | "name+values" | "values"}``.
    """
    joins = declared_joins(tables)
    linked = {frozenset((j["child"].lower(), j["parent"].lower())) for j in joins}
    pairs = []
    for parent, ptable in tables.items():
        for key in ptable["keys"]:
            pkey = ptable["columns"][key]
            for child, ctable in tables.items():
                if child == parent:
                    continue
                for name, col in ctable["columns"].items():
                    pair = frozenset((f"{child}.{name}".lower(), f"{parent}.{key}".lower()))
                    if pair in linked or not _compatible(col, pkey):
                        continue
                    if ctable["primary_key"] == [name] and _words(name) != _words(key):
                        continue  # a table's own identifier is not a reference unless it reads as the key
                    named = name_evidence(name, parent, key)
                    if named or (col["kind"] == "text" and col["distinct"] >= MIN_TEXT_CODES):
                        pairs.append((child, name, parent, key, named))
    checked, seen = 0, set(linked)
    steps: dict[str, int | None] = {}
    for j, (child, name, parent, key, named) in enumerate(pairs, start=1):
        pair = frozenset((f"{child}.{name}".lower(), f"{parent}.{key}".lower()))
        if pair in seen:
            continue
        if on_check is not None:
            on_check(j, len(pairs), f"{child}.{name} -> {parent}.{key}")
        mine, theirs = _known_values(tables[child]["columns"][name]), _known_values(tables[parent]["columns"][key])
        if mine is not None and theirs is not None:
            share = len(mine & theirs) / len(mine)
        elif checked < MAX_CHECKS:
            checked += 1
            if child not in steps:
                steps[child] = spread_step(db, child, tables[child].get("rows"), SAMPLE_ROWS)
            res = db.run_query(overlap_query(child, name, parent, key, db.dialect, step=steps[child]), row_cap=1)
            if not res.ok or not res.rows or not res.rows[0][0]:
                continue
            share = int(res.rows[0][1] or 0) / int(res.rows[0][0])
        else:
            continue
        if share >= MIN_CONTAINMENT:
            seen.add(pair)
            joins.append({"child": f"{child}.{name}", "parent": f"{parent}.{key}", "declared": False,
                          "containment": round(share, 4), "evidence": "name+values" if named else "values"})
    return joins, checked


def best_joins(joins: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The undeclared candidate joins of ``joins``, one per child column, by ``(table, column)``.

    ``joins`` as :func:`candidate_joins` returns them; a column with several candidates keeps the one with name
    evidence, then the higher containment, then the first parent by name: a reference names one table. On the
    138 spider-wide databases with their keys dropped this keeps 544 of 574 joins found, 494 of them declared
    keys (precision 0.908 against 0.866; ``benchmarks/results/2026-12-07-reviewed-joins/``). The review queue
    shows these; the inference at question time keeps every join with name evidence
    (:mod:`retrieval.inferred_joins`).
    """
    def rank(join: dict[str, Any]) -> tuple[int, float, str]:
        return (join["evidence"] != "name+values", -(join.get("containment") or 0.0), join["parent"])

    best: dict[tuple[str, str], dict[str, Any]] = {}
    for join in sorted((j for j in joins if not j["declared"]), key=rank):
        table, _, column = join["child"].partition(".")
        best.setdefault((table, column), join)
    return best
