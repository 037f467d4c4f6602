"""Step ``review_queue``: every pending draft in one list, the most valuable to review first.

The value of a column ``c`` (and likewise of a table ``T``) is::

    value(c) = 3 * W(c) + 2 * E(c) + J(c) + 1

- ``W(c)``: statements of the query log that read ``c`` (:mod:`retrieval.onboarding.usage`; 0 without a log);
- ``E(c)``: example SQL (the examples file and approved feedback) that reads ``c``: the questions already
  answered with it;
- ``J(c)``: joins with ``c`` on one side, declared or found by the profile (:mod:`retrieval.onboarding.joins`);
- ``+ 1``: every column counts a little, so a database without log or examples is ordered by its joins.

A draft's score is the sum of the values of the columns it touches (a record's ``columns`` and the
``TABLE.COLUMN`` names in its SQL and filters, or in its definition when it has neither columns nor SQL; a
column description its column), or, when it
touches no column, of its tables (a table description, a record with only ``tables``), or 1; an example drafted
from the log scores the mean value of the columns its SQL reads. The description of a table or column whose name
says nothing (``c14``, ``t_03``: :func:`knowledge.abbreviations.is_opaque_name`) scores :data:`OPAQUE_FACTOR`
times its value: it is the only text that tells the model what such a column holds, and the model's drafts of
them are the least reliable (about half named the right property on the abbreviated wide copies, 2026-11-28),
so a wrong one misleads as much as a missing one. A candidate join (a pending ``references`` entry of the
enrichment file, :mod:`retrieval.onboarding.join_drafts`) scores the values of its two columns; when a pending
record states the same join (``A.x = B.y``, mined from the query log) the join is reviewed with that record
(``also``) instead of appearing twice. The queue is
sorted by score, highest first, then by key. The step stores the per-name counts ``[W, E, J]``; the queue
itself is read again from the knowledge, enrichment and examples files whenever it is shown, so reviewed drafts
drop out of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from database.descriptions import load_enriched
from database.guard import sqlglot_dialect
from knowledge.abbreviations import is_opaque_name
from knowledge.files import load_knowledge
from knowledge.records import KnowledgeRecord
from retrieval.examples_store import PENDING, load_examples_file
from retrieval.onboarding.context import StepOutcome, StepRun
from retrieval.onboarding.usage import count_references, references, schema_of

WEIGHTS = (3, 2, 1)
"""Multipliers of ``W`` (query log), ``E`` (examples) and ``J`` (joins) in a column's value."""

OPAQUE_FACTOR = 2
"""Multiplier of the score of a description whose table or column name says nothing."""

_NAME = re.compile(r"\b(\w+)\.(\w+)\b")
_EQUALITY = re.compile(r"^\s*(\w+\.\w+)\s*=\s*(\w+\.\w+)\s*$")


@dataclass
class QueueItem:
    """One pending draft in the review queue.

    ``key`` is ``record:<id>``, ``table:<T>``, ``column:<T>.<C>``, ``join:<T>.<C>`` or ``example:<id>``;
    ``kind`` "record" (knowledge file), "description" or "join" (enrichment file; ``table`` and ``column`` name
    the entry) or "example" (examples file; ``record_id`` is the example's id); ``type`` the record type or
    "table"/"column"/"join"/"example"; ``score`` as in the module docstring; ``touches`` the ``TABLE.COLUMN``
    (or table) names it was scored on; ``also`` the keys of drafts decided with this one (a candidate join
    stated by the record).
    """

    key: str
    kind: Literal["record", "description", "join", "example"]
    type: str
    title: str
    text: str
    score: float
    table: str | None = None
    column: str | None = None
    record_id: str | None = None
    provenance: str = ""
    touches: list[str] = field(default_factory=list)
    also: list[str] = field(default_factory=list)


def value(counts: list[int] | tuple[int, ...] | None) -> int:
    """``3W + 2E + J + 1`` of one ``[W, E, J]`` (1 when unknown)."""
    w, e, j = counts or (0, 0, 0)
    return WEIGHTS[0] * w + WEIGHTS[1] * e + WEIGHTS[2] * j + 1


def usage_weights(profile: dict[str, Any], mined: dict[str, Any], examples: list[str],
                  dialect: str) -> dict[str, dict[str, list[int]]]:
    """``{"columns": {"T.C": [W, E, J]}, "tables": {"T": [W, E, J]}}`` for every profiled table and column."""
    tables = profile["tables"]
    schema = schema_of({t: list(s["columns"]) for t, s in tables.items()})
    ex_tables, ex_columns = count_references(examples, sqlglot_dialect(dialect), schema)
    log_tables, log_columns = mined.get("table_uses") or {}, mined.get("column_uses") or {}
    columns = {f"{t}.{c}": [0, 0, 0] for t, s in tables.items() for c in s["columns"]}
    by_table = {t: [0, 0, 0] for t in tables}
    for name, n in log_columns.items():
        columns.setdefault(name, [0, 0, 0])[0] = n
    for name, n in ex_columns.items():
        columns.setdefault(name, [0, 0, 0])[1] = n
    for name, n in log_tables.items():
        by_table.setdefault(name, [0, 0, 0])[0] = n
    for name, n in ex_tables.items():
        by_table.setdefault(name, [0, 0, 0])[1] = n
    for join in profile["joins"]:
        for side in (join["child"], join["parent"]):
            columns.setdefault(side, [0, 0, 0])[2] += 1
            by_table.setdefault(side.split(".", 1)[0], [0, 0, 0])[2] += 1
    return {"columns": columns, "tables": by_table}


def _touches(record: KnowledgeRecord, columns: dict[str, str]) -> list[str]:
    text = " ".join([record.sql or "", *record.filters, "" if record.columns or record.sql else record.definition])
    found = [*record.columns, *(f"{t}.{c}" for t, c in _NAME.findall(text))]
    return list(dict.fromkeys(columns[n.lower()] for n in found if n.lower() in columns))


def _score(names: list[str], weights: dict[str, list[int]]) -> float:
    return float(sum(value(weights.get(n)) for n in names)) if names else 1.0


def example_items(examples_path: Path | None, columns: dict[str, str], weights: dict[str, list[int]],
                  dialect: str = "sqlite") -> list[QueueItem]:
    """The pending examples of ``examples_path`` (drafted from the log) as queue items.

    An example serves the questions shaped like it, not every question on its columns, so its score is the
    mean value of the columns its SQL reads (:func:`retrieval.onboarding.usage.references`), or 1.
    """
    if examples_path is None or not examples_path.is_file():
        return []
    tables: dict[str, list[str]] = {}
    for name in columns.values():
        table, _, column = name.partition(".")
        tables.setdefault(table, []).append(column)
    schema = schema_of(tables)
    items = []
    for ex in load_examples_file(examples_path):
        if (ex.status or "").lower() != PENDING or not ex.id:
            continue
        read = sorted(references(ex.sql, sqlglot_dialect(dialect), schema)[1])
        score = _score(read, weights) / len(read) if read else 1.0
        items.append(QueueItem(key=f"example:{ex.id}", kind="example", type="example",
                               title=f"example {ex.question}", text=ex.sql, score=round(score, 2),
                               record_id=ex.id, provenance=ex.source or "log", touches=read))
    return items


def review_queue(weights: dict[str, dict[str, list[int]]], *, knowledge_path: Path | None,
                 enriched_path: Path | None, examples_path: Path | None = None,
                 dialect: str = "sqlite") -> list[QueueItem]:
    """The pending records, descriptions and examples, scored with ``weights`` (:func:`usage_weights`), best first.

    Missing files give no items. Raises KnowledgeFileError / ValueError for an invalid knowledge, enrichment
    or examples file.
    """
    columns = {n.lower(): n for n in weights["columns"]}
    tables = {n.lower(): n for n in weights["tables"]}
    items = []
    enriched = load_enriched(enriched_path) if enriched_path is not None and enriched_path.is_file() else None
    pending_joins = {frozenset((f"{t}.{c}".lower(), ref["target"].lower())): f"join:{t}.{c}"
                     for t, spec in (enriched or {"tables": {}})["tables"].items()
                     for c, ref in (spec.get("references") or {}).items() if ref["status"] == "pending"}
    folded: set[str] = set()
    kb = load_knowledge(knowledge_path) if knowledge_path is not None else None
    for record in kb.records if kb is not None else []:
        if record.status != "pending":
            continue
        touched = _touches(record, columns)
        names = touched or [tables[t.lower()] for t in record.tables if t.lower() in tables]
        score = _score(touched, weights["columns"]) if touched else _score(names, weights["tables"])
        text = record.definition + (f" SQL: {record.sql}" if record.sql else "")
        equality = _EQUALITY.match(record.sql or "")
        join = pending_joins.get(frozenset(n.lower() for n in equality.groups())) if equality else None
        folded |= {join} if join else set()
        items.append(QueueItem(key=f"record:{record.id}", kind="record", type=record.type,
                               title=f"{record.type} {record.name}", text=text, score=score,
                               record_id=record.id, provenance=record.provenance, touches=names,
                               also=[join] if join else []))
    for table, spec in (enriched or {"tables": {}})["tables"].items():
        entries = [(None, spec.get("description"))] + list((spec.get("columns") or {}).items())
        for column, entry in entries:
            if not entry or entry["status"] != "pending":
                continue
            name = f"{table}.{column}" if column else table
            known = columns.get(name.lower()) if column else tables.get(name.lower())
            score = _score([known], weights["columns" if column else "tables"]) if known else 1.0
            if is_opaque_name(column or table):
                score *= OPAQUE_FACTOR
            items.append(QueueItem(key=f"{'column' if column else 'table'}:{name}", kind="description",
                                   type="column" if column else "table", title=f"description of {name}",
                                   text=entry["text"], score=score, table=table, column=column,
                                   provenance=str(entry.get("model") or "llm"), touches=[known] if known else []))
        for column, ref in (spec.get("references") or {}).items():
            if ref["status"] != "pending" or f"join:{table}.{column}" in folded:
                continue
            names = [n for n in (columns.get(f"{table}.{column}".lower()), columns.get(ref["target"].lower())) if n]
            items.append(QueueItem(key=f"join:{table}.{column}", kind="join", type="join",
                                   title=f"join {table}.{column} -> {ref['target']}", text=str(ref.get("evidence")
                                   or "found in the data"), score=_score(names, weights["columns"]), table=table,
                                   column=column, provenance="profile", touches=names))
    items += example_items(examples_path, columns, weights["columns"], dialect)
    return sorted(items, key=lambda i: (-i.score, i.key))


def counts(queue: list[QueueItem]) -> str:
    """``"N records, M descriptions, J joins, K examples"`` of a queue."""
    kinds = [sum(i.kind == k for i in queue) for k in ("record", "description", "join", "example")]
    return f"{kinds[0]} records, {kinds[1]} descriptions, {kinds[2]} joins, {kinds[3]} examples"


def run_review_queue(run: StepRun) -> StepOutcome:
    """Compute the usage weights, keep them in the state and count the queue."""
    job = run.job
    weights = usage_weights(run.results["profile"], run.results.get("mine_log") or {},
                            [e["sql"] for e in job.examples if e.get("sql")], job.db.dialect)
    queue = review_queue(weights, knowledge_path=job.knowledge_path, enriched_path=job.enriched_path,
                         examples_path=job.examples_path, dialect=job.db.dialect)
    run.item(1, 1, f"{len(queue)} drafts")
    note = f"{len(queue)} drafts await review ({counts(queue)})"
    return StepOutcome(items=len(queue), result={"weights": weights, "top": [i.key for i in queue[:10]]},
                       note=note)
