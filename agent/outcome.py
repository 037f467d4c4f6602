"""The typed result of one turn: what :func:`agent.runner.ask` returns and the UI, records, CLI and eval read."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent.confidence import Confidence, assess
from agent.state import AgentState
from knowledge.lookup import cited
from knowledge.records import KnowledgeRecord
from tools.join_links import UnstatedJoins
from tools.opaque_reads import UnreadTerms
from tools.sql_account import describe_sql

Status = Literal["ok", "empty", "error"]
"""``ok``: rows came back; ``empty``: the query ran and matched nothing; ``error``: no answer (the text says
why: bad input, planner/LLM failure, SQL that would not run, an unreachable endpoint...)."""

JSON_EXCLUDE = frozenset({"row_count"})
"""Fields left out of :meth:`Outcome.to_json` (the CLI's ``--json`` keys are those of earlier versions)."""


class Outcome(BaseModel):
    """One answered (or refused) question, JSON-friendly.

    Stored runs (:class:`records.runs.RunStore`) are this model as JSON; reading an older record fills the
    fields it lacks with their defaults and ignores fields it no longer has.
    """

    model_config = ConfigDict(extra="ignore")

    answer: str | None = Field(None, description="The answer text, or why there is none (status error).")
    status: Status = Field("error", description="ok | empty | error.")
    sql: str | None = Field(None, description="The executed SQL (the selected candidate), if any.")
    columns: list[str] = Field(default_factory=list, description="Result column names.")
    rows: list[list[Any]] = Field(default_factory=list, description="Result rows (at most the row cap).")
    row_count: int | None = Field(
        None, description="Rows of the result before a stored copy was cut (None: ``len(rows)``).")
    truncated: bool = Field(False, description="True when the row cap cut the result.")
    chart: dict[str, Any] | None = Field(None, description="Chart spec (tools.charts.ChartSpec) when one was built.")
    show_sql: bool = Field(False, description="The user asked to see the SQL (it is always in the trace).")
    candidates: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Each SQL candidate: index, strategy, status, row_count, sql, error, rewrites (the rewrite "
        "steps that changed its SQL, with the SQL before and after: rewrites.inputs.StepTrace dicts), logprob (the "
        "mean token log-probability of its SQL as written; None when the endpoint sent none).")
    judge: dict[str, Any] | None = Field(None, description="The judge's record (scores, choice), if it ran.")
    agreement: float | None = Field(
        None, description="Share (0..1) of the candidates that ran whose result equals the answer's "
        "(self-consistency); None when no candidate ran.")
    confidence: Confidence | None = Field(
        None, description="How far to trust the answer: score, level (verified, likely, unsure) and reasons "
        "(agent.confidence.assess); None for errors, clarifications, follow-up questions and refusals.")
    verifier: dict[str, Any] | None = Field(None, description="The verifier's record (needed, repaired...).")
    kind: Literal["answer", "clarify", "follow_up", "refuse"] = Field(
        "answer", description="answer, or instead of SQL a clarification (readings), a follow-up question "
        "(missing parameter) or a refusal (missing data); see tools.answerability.")
    readings: list[str] = Field(default_factory=list, description="clarify: rephrased questions to choose from.")
    missing: str | None = Field(None, description="follow_up: the parameter to give; refuse: the missing data.")
    term_checks: list[dict[str, Any]] = Field(
        default_factory=list, description="Question words no documented column accounts for, with the likeliest "
        "columns and stored values (tools.term_check.TermCheck dicts): which column means the word?")
    column_links: list[dict[str, Any]] = Field(
        default_factory=list, description="Question words the model linked to columns whose names say nothing "
        "(``{term, table, column}``, tools.opaque_columns), shown to the candidates as hints.")
    guessed_columns: list[str] = Field(
        default_factory=list, description="``TABLE.column`` of the columns the executed SQL reads whose names say "
        "nothing (``c14``) and that have no description: what they hold was guessed from their stored values "
        "(tools.opaque_reads.guessed_columns).")
    unread_terms: list[str] = Field(
        default_factory=list, description="Question words no readable name of the tables read accounts for, when "
        "those tables have columns whose names say nothing and no description and the SQL reads none of them: "
        "the answer may have missed what was asked (tools.opaque_reads.unread_terms).")
    unread_columns: list[str] = Field(
        default_factory=list, description="``TABLE.column`` of those unread columns (with :attr:`unread_terms`).")
    range_conflicts: list[str] = Field(
        default_factory=list, description="Numbers the executed SQL compares with a column whose stored values "
        "never reach them, one line each (\"200 compared with PPL.WT, whose stored values run from 82 to 94\"): "
        "such a filter keeps every row or none (tools.number_ranges.range_conflicts).")
    text_order: list[str] = Field(
        default_factory=list, description="Columns the executed SQL orders, takes the MIN/MAX of or compares with "
        "<, > while they store numbers or dates as text, one line each: the order is alphabetical ('9' after '10', "
        "'8/21/2015' after '12/1/2014'), not the values' own (tools.text_order.text_order_notes).")
    unstated_joins: list[str] = Field(
        default_factory=list, description="Joins of the executed SQL that follow a link no foreign key states "
        "(declared, in the metadata file or approved in review), one ``A.x = B.y`` each: the link was assumed "
        "(tools.join_links.unstated_joins).")
    keys_stated: bool = Field(
        False, description="True when there are :attr:`unstated_joins` and the database states at least one "
        "foreign key; on a database that states none every join is assumed, and the confidence does not count "
        "them.")
    definitions: list[str] = Field(
        default_factory=list,
        description="Names of the business definitions (knowledge records) shown to the generator that the SQL "
        "applies (knowledge.lookup.cited).")
    account: list[str] = Field(
        default_factory=list,
        description="What was computed, in words: 1-4 lines built from the executed SQL's syntax tree without an "
        "LLM (tables read and joined, rows kept, what is shown; tools.sql_account.SqlAccount.lines); [] without "
        "executed SQL.")
    llm_calls: int = Field(0, description="LLM calls of this turn.")
    prompt_tokens: int = Field(0, description="Prompt tokens of this turn, all calls.")
    cached_tokens: int = Field(
        0, description="Of prompt_tokens, those the model server served from its prompt cache (a shared schema "
        "prefix, an earlier candidate's prompt); prompt_tokens - cached_tokens were read anew, which is what a "
        "local model spends its prompt seconds on. 0 when the server does not report it.")
    completion_tokens: int = Field(0, description="Completion tokens of this turn, all calls.")
    latency_s: float = Field(0.0, description="Wall-clock seconds of the turn.")
    plan: list[dict[str, Any]] = Field(
        default_factory=list, description="The executed plan's steps: id, tool, input, description.")
    plan_source: str | None = Field(None, description="planner | fallback (the standard plan), None: no plan.")
    plan_error: str | None = Field(None, description="Why the planner's plan was rejected.")
    index_snapshot: str | None = Field(None, description="Id of the index snapshot schema retrieval used.")
    trace: list[dict[str, Any]] = Field(
        default_factory=list, description="One record per node visit (see agent.state.AgentState.trace).")
    usage: list[dict[str, Any]] = Field(
        default_factory=list, description="One record per LLM call: role, label, latency_s, tokens, ok.")
    database: str | None = Field(None, description="Key of the database questioned.")
    thread_id: str | None = Field(None, description="Conversation id, when the turn belongs to one.")
    run_id: str = Field(default_factory=lambda: str(uuid.uuid4()), description="Id of this turn (UUID).")
    question: str = Field("", description="The question as asked (stripped).")

    @property
    def total_rows(self) -> int:
        """Rows of the whole result: :attr:`row_count` when a stored copy was cut, else ``len(rows)``."""
        return self.row_count if self.row_count is not None else len(self.rows)

    def to_json(self) -> dict[str, Any]:
        """The dict of the CLI's ``--json`` and of the evaluation (no :data:`JSON_EXCLUDE`).

        Cells keep their Python types, so dump it with ``json.dumps(..., default=str)``.
        """
        return self.model_dump(exclude=set(JSON_EXCLUDE))

    @classmethod
    def failure(cls, text: str, *, question: str = "", database: str | None = None, thread_id: str | None = None,
                run_id: str | None = None, started: float | None = None) -> Outcome:
        """An ``error`` outcome whose answer is ``text`` (e.g. a turn that raised, or bad input).

        ``started`` is a :func:`time.perf_counter` value; the latency is measured from it.
        """
        latency = round(time.perf_counter() - started, 3) if started is not None else 0.0
        return cls(answer=text, status="error", question=question, database=database, thread_id=thread_id,
                   run_id=run_id or str(uuid.uuid4()), latency_s=latency)

    @classmethod
    def from_state(cls, final: AgentState, *, database: str, started: float, question: str,
                   thread_id: str | None, run_id: str, dialect: str = "",
                   descriptions: Mapping[str, str] | None = None, guessed: list[str] | None = None,
                   unread: UnreadTerms | None = None, ranges: list[str] | None = None,
                   text_order: list[str] | None = None, unstated: UnstatedJoins | None = None) -> Outcome:
        """The outcome of a finished graph run (``final`` is its last state); see :func:`agent.runner.ask`.

        ``dialect`` (sqlglot name of the database's SQL) and ``descriptions`` (short table descriptions by
        table name) are for the :attr:`account` of the executed SQL; ``guessed`` is :attr:`guessed_columns`,
        ``unread`` gives :attr:`unread_terms` and :attr:`unread_columns`, ``ranges`` is :attr:`range_conflicts`,
        ``text_order`` is :attr:`text_order`, ``unstated`` gives :attr:`unstated_joins` and :attr:`keys_stated`.
        """
        answer = final.get("answer")
        if answer is None:
            return cls.failure("the agent stopped without an answer", question=question, database=database,
                               thread_id=thread_id, run_id=run_id, started=started)
        usage = final.get("usage", [])
        plan = final.get("plan")
        last = last_selection(final)
        out = cls(
            answer=answer.text, status=answer.status, sql=answer.sql, columns=answer.columns, rows=answer.rows,
            truncated=answer.truncated, chart=answer.chart, show_sql=answer.show_sql,
            kind=answer.kind, readings=answer.readings, missing=answer.missing, term_checks=answer.term_checks,
            candidates=[{k: o.get(k) for k in ("index", "strategy", "status", "row_count", "sql", "error", "rewrites",
                                              "logprob")}
                        for o in last.get("outcomes", [])],
            judge=last.get("judge"), verifier=last.get("verifier"), agreement=agreement(last),
            definitions=_definitions(final, answer.sql or ""), column_links=_column_links(final),
            guessed_columns=list(guessed or []) if answer.status != "error" else [],
            unread_terms=list(unread.terms) if unread and answer.status != "error" else [],
            unread_columns=list(unread.columns) if unread and answer.status != "error" else [],
            range_conflicts=list(ranges or []) if answer.status != "error" else [],
            text_order=list(text_order or []) if answer.status != "error" else [],
            unstated_joins=unstated.lines() if unstated and answer.status != "error" else [],
            keys_stated=bool(unstated and unstated.states_keys and answer.status != "error"),
            account=_account(final, answer.sql, dialect, descriptions) if answer.status != "error" else [],
            llm_calls=len(usage),
            prompt_tokens=sum(u.get("prompt_tokens", 0) for u in usage),
            cached_tokens=sum(u.get("cached_tokens", 0) for u in usage),
            completion_tokens=sum(u.get("completion_tokens", 0) for u in usage),
            latency_s=round(time.perf_counter() - started, 3),
            plan=[s.model_dump() for s in plan.steps] if plan else [],
            plan_source=final.get("plan_source"), plan_error=final.get("plan_error"),
            index_snapshot=next((t["index_snapshot"] for t in final.get("trace", []) if "index_snapshot" in t),
                                None),
            trace=final.get("trace", []), usage=usage, database=database, thread_id=thread_id, run_id=run_id,
            question=question,
        )
        out.confidence = assess(out)  # from the fields above: agreement, candidates, judge, verifier, rows...
        return out


def _column_links(final: AgentState) -> list[dict[str, Any]]:
    """The opaque-column links of the question's SQL generation steps (see :mod:`tools.opaque_columns`)."""
    return [link for res in (final.get("results") or {}).values()
            if res.ok and res.kind == "sql" for link in res.value.get("opaque_links", [])]


def _definitions(final: AgentState, sql: str) -> list[str]:
    """The knowledge records shown to the generator that ``sql`` applies (see :func:`knowledge.lookup.cited`)."""
    shown = [KnowledgeRecord.model_validate(r) for res in (final.get("results") or {}).values()
             if res.ok and res.kind == "knowledge" for r in res.value.get("records", [])]
    return cited(shown, sql) if sql else []


def _account(final: AgentState, sql: str | None, dialect: str, descriptions: Mapping[str, str] | None) -> list[str]:
    """:func:`tools.sql_account.describe_sql` lines of ``sql``; the shown metric records name their expressions."""
    if not sql:
        return []
    measures = {str(r["sql"]): str(r["name"]) for res in (final.get("results") or {}).values()
                if res.ok and res.kind == "knowledge" for r in res.value.get("records", [])
                if r.get("type") == "metric" and r.get("sql") and r.get("name")}
    return describe_sql(sql, dialect, descriptions, measures).lines()


def agreement(selection: dict[str, Any]) -> float | None:
    """Share of the candidate outcomes that ran (status ok or empty) with the selected one's result.

    ``selection`` is a :func:`last_selection` value; None when no candidate ran or nothing is selected.
    """
    ran = [o for o in selection.get("outcomes", []) if o.get("status") in ("ok", "empty")]
    chosen = next((o for o in ran if o.get("index") == selection.get("selected")), None)
    if chosen is None:
        return None
    same: int = sum(o.get("signature") == chosen.get("signature") for o in ran)
    return round(same / len(ran), 3)


def last_selection(final: AgentState) -> dict[str, Any]:
    """Value of the last step result that carries candidate outcomes (execute, judge or verify); {} if none."""
    plan, results = final.get("plan"), final.get("results") or {}
    if not plan:
        return {}
    for step in reversed(plan.steps):
        res = results.get(step.id)
        if res is not None and "outcomes" in res.value:
            return res.value
    return {}
