"""What the rewrite steps read (:class:`RewriteInputs`) and what the runner reports (:class:`StepTrace`).

The tools layer builds the inputs once per candidate: the question, the index's table catalog, the database,
the knowledge-derived inputs (:class:`Knowledge`) and the switches. The package never reads a settings file or
the knowledge file itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from core.settings import RewriteSettings
from database.connection import Database
from knowledge.lookup import KnowledgeMatcher
from retrieval.hybrid import TableCatalog
from rewrites.answer_shape import Convention
from rewrites.code_filters import CodeBinding
from rewrites.rate_direction import RateSpec

Phase = Literal["written", "candidate", "rescue", "fresh"]
"""``written``: every query as the model wrote it, before the read-only guard (text-level fixes, kept when the guard
accepts them; the query need not parse); ``candidate``: every guarded candidate, before its dry run; ``rescue``: after an empty
or degenerate result; ``fresh``: freshly generated candidates only (not repairs, not rescued queries)."""

Need = Literal["question", "knowledge", "index", "database"]
"""An input a step cannot run without: the question, the knowledge file, the index catalog, the database."""


@dataclass(frozen=True)
class Knowledge:
    """The approved knowledge records in the forms the steps use (all empty: no knowledge file).

    ``codes`` and ``matcher``: the codes records bind to columns and the matcher of those records
    (:mod:`rewrites.code_filters`); ``rates``: rate declarations (:mod:`rewrites.rate_direction`);
    ``conventions``: answer conventions of presentation records (:mod:`rewrites.answer_shape`).
    """

    codes: Sequence[CodeBinding] = ()
    matcher: KnowledgeMatcher | None = None
    rates: Sequence[RateSpec] = ()
    conventions: Sequence[Convention] = ()


@dataclass(frozen=True)
class RewriteInputs:
    """Everything a rewrite step may read; a step whose :data:`Need` is missing is skipped.

    Attributes:
        dialect: sqlglot dialect of the database.
        question: the user's question ('' when unknown: question steps are skipped).
        catalog: the index's table catalog (columns, primary keys, foreign-key graph); None without an index.
        db: the database (value probes, dry runs of rescues, declared keys); None: database steps are skipped.
        knowledge: knowledge-derived inputs; None: knowledge steps are skipped.
        matches: confident value matches of the question (ValueMatch dicts).
        names_table: ``names_table(table)`` is True when the question names the table
            (``tools.coverage.question_names_table``); None: tables count as named, so no join is pruned.
        got_rows: the failed query returned one row of NULL/0, not nothing (rescue only: steps that drop a join
            or a filter do not apply to such a result).
        switches: which steps are on.
    """

    dialect: str
    question: str = ""
    catalog: TableCatalog | None = None
    db: Database | None = None
    knowledge: Knowledge | None = None
    matches: Sequence[dict[str, Any]] = ()
    names_table: Callable[[str], bool] | None = None
    got_rows: bool = False
    switches: RewriteSettings = field(default_factory=RewriteSettings)

    def has(self, need: Need) -> bool:
        """Is the input ``need`` present?"""
        present = {"question": bool(self.question), "knowledge": self.knowledge is not None,
                   "index": self.catalog is not None, "database": self.db is not None}
        return present[need]

    def lower_columns(self) -> dict[str, set[str]]:
        """Lower-cased table -> lower-cased column names from the catalog ({} without one or column lists)."""
        if self.catalog is None:
            return {}
        return {t.lower(): {c.lower() for c in cols} for t, cols in self.catalog.columns.items() if cols}

    def primary_keys(self) -> dict[str, list[str]] | None:
        """Lower-cased table -> primary-key columns from the catalog (None without one)."""
        return self.catalog.primary_keys() if self.catalog is not None else None


@dataclass(frozen=True)
class StepTrace:
    """What one step did to one query: ``fired`` when its change was kept (a rescue: when it returned rows).

    ``before``/``after`` are the SQL around a change (both '' when nothing changed); ``note`` says why a change
    was not kept ('the guard refused it', 'still no rows').
    """

    step: str
    phase: Phase
    fired: bool
    before: str = ""
    after: str = ""
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form for the candidate dump and the trace (empty fields left out)."""
        out: dict[str, Any] = {"step": self.step, "phase": self.phase, "fired": self.fired}
        out.update({k: v for k, v in (("before", self.before), ("after", self.after), ("note", self.note)) if v})
        return out
