"""Typed business-knowledge records of one database, and the knowledge base that holds them.

A record says what a business word means *on this database*: a **metric** (a named computation: its SQL
expression, the joins and filters it always needs, its unit), a **term** (a business word -> the tables,
columns or values that carry it), a **rule** (how a phrase such as "latest", "this year" or "return over a
month" is computed here), an **enum** (code -> meaning), a **synonym** (another name of a table, column or
value), a **view** (a named relation computed by SQL, read by the model like a table and expanded into a WITH
clause before the query runs; :mod:`knowledge.views`) or a **presentation** convention (the columns every answer
of a kind shows - the ticker and name of each listed stock, the date a "latest" price was picked from - added
to the query without a model call; :mod:`rewrites.answer_shape`). Typed records with lifelong updates follow RubikSQL; binding metrics to mandatory constraints follows
BAR-SQL. Every record carries its provenance (human, mined from the query workload, LLM-proposed) and a review
status; only ``approved`` records reach prompts (pending ones too when drafts are opted into:
:meth:`KnowledgeBase.with_drafts`, the setting ``knowledge.use_drafts``).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from knowledge.view_sql import IDENTIFIER, view_columns

RecordType = Literal["metric", "term", "rule", "enum", "synonym", "view", "presentation"]
Convention = Literal["identify", "picked_date", "rank_measure", "ranked_by", "series"]
Provenance = Literal["human", "mined", "llm"]
Status = Literal["pending", "approved", "rejected"]
TYPES: tuple[RecordType, ...] = ("view", "rule", "metric", "term", "enum", "synonym", "presentation")
"""Record types in the order definitions are rendered (views are also listed with the schema; presentation
records are applied to the SQL, never rendered)."""

_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,79}$")


RATE = re.compile(r"^\s*(?P<table>\w+)\.(?P<rate>\w+)\s*=\s*(?P<qtable>\w+)\.(?P<quote>\w+)\s+per\s+"
                  r"(?P<btable>\w+)\.(?P<base>\w+)\s*$", re.IGNORECASE)
"""The form of :attr:`KnowledgeRecord.rate`: ``FX_RT_D.FX_RT = FX_RT_D.QUOTE_CCY per FX_RT_D.BASE_CCY``."""


class KnowledgeRecord(BaseModel):
    """One knowledge record (see the module docstring for the types).

    Attributes:
        id: stable slug, unique in its knowledge base (``market_cap_usd``).
        type: metric | term | rule | enum | synonym | view.
        name: the business phrase (``market cap``); matched in questions together with ``synonyms``. For a view,
            its SQL identifier (``daily_return``): every view is listed with the schema, and a view matched by a
            synonym is also shown in the definitions block, next to the question.
        synonyms: other phrases that mean the same (``market capitalisation``, ``mcap``).
        definition: what it means, in one or two sentences the generator reads.
        sql: for a metric the SQL expression (``EQ_MSTR.SHR_OUT * EQ_PX_D.PX_LST``), for a rule a pattern, for
            a view its query (every output column named).
        tables / columns: what it uses (``EQ_PX_D``; ``EQ_PX_D.PX_LST``).
        filters: conditions or joins the metric or rule always needs.
        values: for an enum, code -> meaning.
        unit: unit of a metric's result (``USD``, ``fraction``).
        requires: parameters a question using the record must state (``period``, ``date`` or
            ``value:TABLE.COLUMN``; see :mod:`knowledge.parameters`); without one the answer is a follow-up.
        readings: for an ambiguous word, the concrete meanings to offer (``by market cap in USD``); a question
            that uses the record and none of the readings' words gets a clarification with these choices.
        convention: for a presentation record, ``identify`` (``columns`` name each listed entity of their one
            table), ``picked_date`` (``columns`` are dates shown whenever the query picks rows by them) or
            ``rank_measure`` (no columns: a list with one computed figure is ordered by it, largest first) or
            ``ranked_by`` (no columns: a top-n pick shows the figure it is ranked by) or ``series`` (``columns``
            are dates: a window computed over one of them shows the date and the column it reads).
        rate: for a metric that is a conversion rate, ``TABLE.RATE = TABLE.QUOTE per TABLE.BASE`` (the rate is
            units of the quote currency for one unit of the base; :mod:`rewrites.rate_direction` checks its use).
        provenance / status: where it came from; pending, approved or rejected (only approved reaches prompts).
        note: free text for reviewers (never shown to the model).
    """

    id: str
    type: RecordType
    name: str = Field(min_length=1, max_length=120)
    synonyms: list[str] = Field(default_factory=list)
    definition: str = Field(min_length=1, max_length=800)
    sql: str | None = Field(None, max_length=4000)
    tables: list[str] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list)
    filters: list[str] = Field(default_factory=list)
    values: dict[str, str] = Field(default_factory=dict)
    unit: str | None = None
    requires: list[str] = Field(default_factory=list)
    readings: list[str] = Field(default_factory=list)
    convention: Convention | None = None
    rate: str | None = Field(None, max_length=200)
    provenance: Provenance = "human"
    status: Status = "pending"
    note: str | None = None

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(f"id {value!r} must be a lower-case slug (letters, digits, _ . -; at most 80)")
        return value

    @field_validator("synonyms")
    @classmethod
    def _clean_synonyms(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(s.strip() for s in value if s.strip()))

    @field_validator("requires")
    @classmethod
    def _known_requirements(cls, value: list[str]) -> list[str]:
        for item in value:
            if item not in ("period", "date") and not re.match(r"^value:[\w$.]+\.[\w$]+(\|[\w$.]+\.[\w$]+)*$", item):
                raise ValueError(f"requirement {item!r} must be period, date or value:TABLE.COLUMN[|TABLE.COLUMN]")
        return value

    @field_validator("rate")
    @classmethod
    def _rate_form(cls, value: str | None) -> str | None:
        if value is not None:
            found = RATE.match(value)
            if not found or len({found["table"].lower(), found["qtable"].lower(), found["btable"].lower()}) != 1:
                raise ValueError(f"rate {value!r} must read TABLE.RATE = TABLE.QUOTE per TABLE.BASE (one table)")
        return value

    @model_validator(mode="after")
    def _complete_for_type(self) -> KnowledgeRecord:
        if self.type == "metric" and not self.sql:
            raise ValueError(f"metric {self.id!r} needs its sql expression")
        if self.type == "view":
            if not IDENTIFIER.match(self.name):
                raise ValueError(f"view {self.id!r}: name {self.name!r} must be an SQL identifier (letters, digits, _)")
            view_columns(self.sql or "")  # ViewError (a ValueError) names the problem
        if self.type == "enum" and not self.values:
            raise ValueError(f"enum {self.id!r} needs values (code: meaning)")
        if self.type == "synonym" and not self.synonyms:
            raise ValueError(f"synonym {self.id!r} needs at least one synonym")
        if self.type == "presentation":
            self._check_presentation()
        if len(self.readings) == 1:
            raise ValueError(f"record {self.id!r}: an ambiguous word needs at least two readings")
        return self

    def _check_presentation(self) -> None:
        if self.convention is None:
            raise ValueError(f"presentation {self.id!r} needs a convention: identify or picked_date")
        pairs = [c.split(".") for c in self.columns]
        if self.convention in ("rank_measure", "ranked_by") and not pairs:
            return
        if not pairs or any(len(p) != 2 or not all(IDENTIFIER.match(x) for x in p) for p in pairs):
            raise ValueError(f"presentation {self.id!r} needs columns as TABLE.COLUMN")
        if self.convention == "identify" and len({p[0].lower() for p in pairs}) != 1:
            raise ValueError(f"presentation {self.id!r}: the identifying columns must all be of one table")

    @property
    def phrases(self) -> list[str]:
        """The name and every synonym (what the matcher looks for in questions)."""
        return [self.name, *self.synonyms]


class KnowledgeBase(BaseModel):
    """The knowledge file of one database: ``version`` (format), ``database`` (its key), ``dialect``, the records.

    Raises (at validation): two records share an id.
    """

    version: int = Field(1, ge=1, le=1)
    database: str = ""
    dialect: str | None = Field(None, description="sqlglot dialect of the records' SQL when it is not the "
                                "database's (a SQLite file's knowledge serving its PostgreSQL copy): transpiled "
                                "before it reaches a prompt.")
    records: list[KnowledgeRecord] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_ids(self) -> KnowledgeBase:
        seen: set[str] = set()
        for record in self.records:
            if record.id in seen:
                raise ValueError(f"record id {record.id!r} appears twice")
            seen.add(record.id)
        return self

    def approved(self) -> list[KnowledgeRecord]:
        """The records that may reach prompts."""
        return [r for r in self.records if r.status == "approved"]

    def with_drafts(self) -> KnowledgeBase:
        """A copy in which every pending record counts as approved (the ``knowledge.use_drafts`` opt-in).

        Only for reading: the copy is what the agent sees, never saved. Rejected records stay rejected.
        """
        drafts = [r.model_copy(update={"status": "approved"}) if r.status == "pending" else r for r in self.records]
        return self.model_copy(update={"records": drafts})

    def views(self) -> list[KnowledgeRecord]:
        """The approved view records, in file order (shown with the schema; :mod:`knowledge.views`)."""
        return [r for r in self.approved() if r.type == "view"]

    def presentations(self) -> list[KnowledgeRecord]:
        """The approved presentation records, in file order (applied to the SQL by :mod:`rewrites.answer_shape`)."""
        return [r for r in self.approved() if r.type == "presentation"]

    def get(self, record_id: str) -> KnowledgeRecord | None:
        """The record with ``record_id``, or None."""
        return next((r for r in self.records if r.id == record_id), None)

    def upsert(self, record: KnowledgeRecord) -> KnowledgeBase:
        """A copy with ``record`` replacing the one with its id (or appended)."""
        others = [r for r in self.records if r.id != record.id]
        index = next((i for i, r in enumerate(self.records) if r.id == record.id), len(others))
        return self.model_copy(update={"records": [*others[:index], record, *others[index:]]})

    def set_status(self, record_id: str, status: Status) -> KnowledgeBase:
        """A copy with the status of ``record_id`` changed.

        Raises:
            KeyError: no record has that id.
        """
        record = self.get(record_id)
        if record is None:
            raise KeyError(f"no knowledge record {record_id!r}")
        return self.upsert(record.model_copy(update={"status": status}))
