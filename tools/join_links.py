"""Joins on links no foreign key states: a note under the answer and a signal that holds its confidence back.

A join is only as good as the link it follows. ``FROM PPL JOIN GYMNST ON PPL.PPL_ID = GYMNST.GYMNST_ID`` follows a
declared foreign key; ``ON PPL.NM = GYMNST.c3`` or ``ON t_04.CSTMR_ID = FRST_NTFCTN_OF_LOSS.CSTMR_ID`` follows
whatever the model thought two columns had in common. :func:`unstated_joins` finds, in the executed SQL, every
equality between columns of two different tables of one ``SELECT`` (in ``ON`` or ``WHERE``) that no stated key
joins: stated means declared by the database, given in the metadata file's ``references`` or approved by a
reviewer in onboarding (:class:`database.schema_types.ForeignKey` ``origin`` ``declared``, ``metadata`` or
``reviewed``). Joins found in the data and not reviewed (``inferred``) or read from examples are not stated.

On the recorded runs of 2026-12-02..07 (6,011 answers on Spider dev, the wide set and its abbreviated copies), the
answers that join on such a link on a database that states keys were right 34% of the time (123 answers) against
65% for joins on stated keys only and 80% without a join. So the answer names the link it assumed, and the count
is a feature and a reason of the confidence (:mod:`agent.confidence`, ``unstated_joins``; weight 0 in the shipped
model: the answers it would demote were already below verified when wrong, see there). On a database that states
no key at all every join is unstated (62% right on the key-dropped copies, 135 answers): the note is still shown
but the feature is 0, since nothing there tells a stated link from an assumed one.
(``benchmarks/results/2026-12-07-unstated-joins/``.)

Model-free: one schema read per database and enrichment file state (:func:`tools.opaque_columns.documented_tables`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from database.connection import Database
from database.schema_types import TableInfo
from tools.number_ranges import owner_table
from tools.opaque_columns import documented_tables

__all__ = ["STATED", "JoinLink", "UnstatedJoins", "assumed_candidates", "join_links", "stated_links",
           "unstated_joins"]

STATED = frozenset({"declared", "metadata", "reviewed"})
"""Foreign-key origins a person or the database stated (see :class:`database.schema_types.ForeignKey`)."""

Side = tuple[str, str]
"""``(table, column)`` in the SQL's spelling."""


@dataclass(frozen=True)
class JoinLink:
    """One ``left = right`` equality between columns of two tables, names as the SQL spells them."""

    left: Side
    right: Side

    def key(self) -> frozenset[Side]:
        """The unordered pair, lower-cased (a join works both ways)."""
        return frozenset({(self.left[0].lower(), self.left[1].lower()), (self.right[0].lower(), self.right[1].lower())})

    def describe(self) -> str:
        """``"PPL.NM = GYMNST.c3"``."""
        return f"{self.left[0]}.{self.left[1]} = {self.right[0]}.{self.right[1]}"


@dataclass(frozen=True)
class UnstatedJoins:
    """The answer's links that no stated key joins, and whether the database states any key at all."""

    links: tuple[JoinLink, ...]
    states_keys: bool
    """False when the database states no foreign key: every join is then a guess of the same kind."""

    def lines(self) -> list[str]:
        """One ``"A.x = B.y"`` per link, in the SQL's order."""
        return [link.describe() for link in self.links]


def join_links(sql: str, dialect: str, columns: Mapping[str, Collection[str]]) -> list[JoinLink]:
    """The ``column = column`` equalities of ``sql`` that link two different tables of the same SELECT.

    ``columns`` maps lower-cased table names to lower-cased column names. Each column is placed in a table of
    its own SELECT (subqueries and set operations included) by :func:`tools.number_ranges.owner_table`; a column
    whose table cannot be told is left out, and so is SQL that does not parse. Distinct links in the SQL's order.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except Exception:  # noqa: BLE001 - unparsable SQL has no link to check
        return []
    found: dict[frozenset[Side], JoinLink] = {}
    for select in tree.find_all(exp.Select):
        conditions = [j.args.get("on") for j in select.args.get("joins") or []] + [select.args.get("where")]
        for eq in (e for c in conditions if c is not None for e in c.find_all(exp.EQ)):
            if eq.find_ancestor(exp.Select) is not select:
                continue  # an equality of a nested subquery belongs to that SELECT
            a, b = eq.this, eq.expression
            if not (isinstance(a, exp.Column) and isinstance(b, exp.Column)):
                continue
            ta, tb = owner_table(a, columns), owner_table(b, columns)
            if ta and tb and ta.lower() != tb.lower():
                link = JoinLink((ta, a.name), (tb, b.name))
                found.setdefault(link.key(), link)
    return list(found.values())


def stated_links(tables: Iterable[TableInfo]) -> set[frozenset[Side]]:
    """Lower-cased ``{(table, column), (ref_table, ref_column)}`` pairs of every stated key (:data:`STATED`).

    A composite key gives one pair per column.
    """
    pairs: set[frozenset[Side]] = set()
    for table in tables:
        for fk in table.foreign_keys:
            if fk.origin in STATED:
                pairs |= {frozenset({(table.name.lower(), c.lower()), (fk.ref_table.lower(), r.lower())})
                          for c, r in zip(fk.columns, fk.ref_columns, strict=False)}
    return pairs


def unstated_joins(db: Database, sql: str) -> UnstatedJoins | None:
    """The links of ``sql`` (:func:`join_links`) that no stated key of ``db`` joins; None when there are none.

    Drafts never count as stated, whatever ``knowledge.use_drafts`` says. None as well for SQL that does not
    parse and when the schema cannot be read (the note is a courtesy; it never fails an answer).
    """
    try:
        tables = documented_tables(db, False)
    except Exception:  # noqa: BLE001 - no schema, no note
        return None
    columns = {t.name.lower(): {c.name.lower() for c in t.columns} for t in tables}
    stated = stated_links(tables)
    links = tuple(link for link in join_links(sql, db.dialect, columns) if link.key() not in stated)
    return UnstatedJoins(links, bool(stated)) if links else None


def assumed_candidates(db: Database, outcomes: Iterable[Mapping[str, object]]) -> set[int]:
    """``index`` of each outcome with status ``ok`` whose SQL joins on a link no stated key of ``db`` makes.

    ``outcomes`` are execution outcomes (:func:`tools.execution.execute_candidates`). Empty on a database that
    states no key (every join there is assumed alike) and when the schema cannot be read.
    """
    found: set[int] = set()
    for o in outcomes:
        if o.get("status") == "ok" and o.get("sql"):
            unstated = unstated_joins(db, str(o["sql"]))
            if unstated is not None and unstated.states_keys:
                found.add(int(str(o["index"])))
    return found
