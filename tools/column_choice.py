"""Did the answer read a look-alike column for a word the question asks by another name? A column-choice check.

On a schema with opaque columns (``c3``, ``c13``) a small model answering "the names of players" reads the one
readable column of ``PLYR`` with "name" in it, ``SPNSR_NM`` (a sponsor's name), while the players' names sit in
``c3``. Every candidate makes the same choice, so the vote agrees and nothing downstream doubts it; links offered
before generation (:mod:`tools.opaque_columns`) are often ignored at that point, and are right only about half
the time because they offer opaque columns alone.

This check runs on the selected answer. :func:`find_lookalikes` finds a readable column the SQL reads that
shares a word with a question word no readable name accounts for (:func:`tools.question_terms.unnamed_terms`:
"names" is not accounted for by ``SPNSR_NM`` because "sponsor" is not asked), in a table that has opaque
undocumented columns. :func:`choose_column` then asks the model one multiple-choice question with stored values:
which column of that table holds the word - the column read, or one of the opaque ones. Only when it picks an
opaque column is the query rewritten to read it (:func:`substitute_column`); the caller keeps the new query when
it runs and returns rows. So the check costs one short constrained call, and only on the questions it flags,
never on a schema whose columns all have readable names. It is question-conditioned schema linking (RESDSQL's
and CodeS's schema-item classifiers) applied after generation, where the chosen column is known, in the spirit of
a verifier that checks one decision of the query (the column of each question phrase, as in CHESS's and
MAC-SQL's refiners) instead of rewriting it whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import sqlglot
from pydantic import BaseModel, Field, create_model
from sqlglot import exp

from core.llm import chat, invoke_structured
from database.schema_types import TableInfo
from knowledge.abbreviations import EXPANSIONS, expand_name, is_opaque_name, split_words
from knowledge.lookup import normalise
from tools.base import ToolContext, ToolResult
from tools.execution import execute_candidates, rows_result, selection_value
from tools.opaque_columns import OpaqueColumn, documented_tables, stored_samples
from tools.question_terms import is_key_column, name_words, opaque_columns, same_word, unnamed_terms

__all__ = ["LookAlike", "check_columns", "choose_column", "find_lookalikes", "render_choice", "substitute_column"]

MAX_OPTIONS = 8
"""Opaque columns offered beside the column read (the table's first ones, in column order)."""
MAX_TOKENS = 40
"""Cap on the reply's tokens: one short JSON object."""


@dataclass(frozen=True)
class LookAlike:
    """A readable column the query reads for ``term``, in a table that also has opaque columns."""

    table: str
    column: str
    term: str
    """The question's words (a run of :func:`unnamed_terms`) the column's name shares a word with."""


def _tables_and_columns(tree: exp.Expr, tables: list[TableInfo]) -> tuple[
        dict[str, TableInfo], list[tuple[exp.Column, TableInfo]]]:
    """The schema tables the query reads (by alias and name) and each column reference with its table.

    An unqualified column belongs to the one table of the query that has it; ambiguous or unknown ones are left out.
    """
    by_name = {t.name.lower(): t for t in tables}
    aliases: dict[str, TableInfo] = {}
    for node in tree.find_all(exp.Table):
        table = by_name.get(node.name.lower())
        if table is not None:
            aliases[(node.alias or node.name).lower()] = table
            aliases.setdefault(node.name.lower(), table)
    used = list({id(t): t for t in aliases.values()}.values())
    refs: list[tuple[exp.Column, TableInfo]] = []
    for col in tree.find_all(exp.Column):
        if col.table:
            owner = aliases.get(col.table.lower())
            if owner is not None and owner.column(col.name) is not None:
                refs.append((col, owner))
        else:
            owners = [t for t in used if t.column(col.name) is not None]
            if len(owners) == 1:
                refs.append((col, owners[0]))
    return aliases, refs


def find_lookalikes(question: str, sql: str, tables: list[TableInfo], dialect: str) -> list[LookAlike]:
    """The readable columns ``sql`` reads for question words no readable name accounts for.

    ``tables`` is the schema (with documentation; a documented column is not opaque). A column qualifies when
    its table has an opaque undocumented column (:func:`opaque_columns`), its name is readable, it is no key
    column (an identifier, in a primary or foreign key, or compared in a join condition: keys hold no question
    word's data), and one of its name's words is a word of a term of :func:`unnamed_terms` computed over the
    tables the query reads. Returns
    each (table, column) once, in the order the query reads them; [] when the query does not parse.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return []
    aliases, refs = _tables_and_columns(tree, tables)
    used = list({id(t): t for t in aliases.values()}.values())
    if not any(opaque_columns([t]) for t in used):
        return []
    terms = unnamed_terms(question, used)
    joining = {(t.name, c.name.lower()) for c, t in refs
               if any(isinstance(a, exp.Join) or a.arg_key == "on" for a in _ancestors(c))}
    found: dict[tuple[str, str], LookAlike] = {}
    for col, table in refs:
        if (table.name, col.name.lower()) in joining:
            continue
        info = table.column(col.name)
        if info is None or is_opaque_name(info.name) or not opaque_columns([table]) or is_key_column(table, info.name):
            continue
        parts = name_words(info.name)
        term = next((t for t in terms if any(same_word(p, w) for w in normalise(t) for p in parts)), None)
        if term is not None:
            found.setdefault((table.name, info.name), LookAlike(table.name, info.name, term))
    return list(found.values())


def _ancestors(node: exp.Expr) -> list[exp.Expr]:
    """``node`` and its parents up to the statement."""
    chain = [node]
    while chain[-1].parent is not None:
        chain.append(chain[-1].parent)
    return chain


USER = """Question: {question}

The table {table} has these columns, each shown with some of its stored values:
{columns}

Which of these columns holds "{term}" as the question means it? Judge by the stored values more than by the \
name."""


def render_choice(question: str, sql: str, look: LookAlike, options: list[OpaqueColumn]) -> str:
    """The user prompt of the choice: the question, the query, and each option with its stored values.

    An option whose name has abbreviations shows its reading, each known abbreviation expanded
    (:func:`expand_name`, else :data:`EXPANSIONS` part by part): ``SPNSR_NM (spnsr name)``.
    """
    def line(option: OpaqueColumn) -> str:
        parts = split_words(option.column)
        reading = expand_name(option.column) or " ".join(EXPANSIONS.get(p, p) for p in parts)
        shown = f" ({reading})" if reading.split() != parts else ""
        return f"- {option.column}{shown}: {option.values()}"

    return USER.format(question=question, table=look.table, term=look.term,
                       columns="\n".join(line(option) for option in options))


def choose_column(ctx: ToolContext, system: str, question: str, sql: str, look: LookAlike,
                  table: TableInfo) -> str | None:
    """The opaque column of ``table`` the model says holds ``look.term``, or None (it keeps the column read).

    The options are the column read and up to :data:`MAX_OPTIONS` opaque undocumented columns of ``table``, each
    with a few stored values (:func:`tools.opaque_columns.stored_samples`). ``system`` is the generator's system
    prompt (its cached prefix holds the schema). One constrained call with the label ``column choice``; None
    when the call fails.
    """
    read = {c.lower() for c in columns_read(sql, ctx.db.dialect)}
    opaque = [name for _, name in opaque_columns([table]) if name.lower() not in read][:MAX_OPTIONS]
    if not opaque:
        return None
    names = [c.name for c in table.columns if c.name == look.column or c.name in opaque]
    options = [OpaqueColumn(table.name, name, (table.column(name) or table.columns[0]).type,
                            *stored_samples(ctx.db, table.name, name)) for name in names]
    allowed: Any = Literal[tuple(option.column for option in options)]
    schema: type[BaseModel] = create_model("ColumnChoice", column=(allowed, Field(description="the column")))
    try:
        reply = invoke_structured(ctx.llms, "generator", chat(system, render_choice(question, sql, look, options)),
                                  schema, ctx.usage, temperature=0.0, max_tokens=MAX_TOKENS, label="column choice")
    except Exception:  # noqa: BLE001 - keeping the answer is the safe outcome
        return None
    picked = str(reply.model_dump()["column"])
    return picked if picked in opaque else None


def columns_read(sql: str, dialect: str) -> list[str]:
    """The names of the columns ``sql`` references ([] when it does not parse)."""
    try:
        return [col.name for col in sqlglot.parse_one(sql, read=dialect).find_all(exp.Column)]
    except sqlglot.errors.SqlglotError:
        return []


def substitute_column(sql: str, dialect: str, tables: list[TableInfo], table: str, old: str, new: str) -> str:
    """``sql`` with every reference to ``table.old`` reading ``table.new`` instead (qualifiers kept).

    Raises ``sqlglot.errors.SqlglotError`` when ``sql`` does not parse.
    """
    tree = sqlglot.parse_one(sql, read=dialect)
    _, refs = _tables_and_columns(tree, tables)
    for col, owner in refs:
        if owner.name.lower() == table.lower() and col.name.lower() == old.lower():
            col.set("this", exp.to_identifier(new))
    return tree.sql(dialect=dialect)


def check_columns(ctx: ToolContext, value: dict[str, Any]) -> tuple[ToolResult | None, dict[str, Any] | None]:
    """The column-choice check on a selected ``rows`` value: ``(new result or None, record or None)``.

    ``value`` is the execution or judge step's payload (``sql``, ``question``, ``system``, ``outcomes``). For each
    look-alike column of the selected SQL (:func:`find_lookalikes`), :func:`choose_column` asks once; each opaque
    column picked replaces the column read (:func:`substitute_column`). The rewritten query becomes a candidate
    (strategy ``column_choice``) and the selected result when it runs and returns rows; otherwise the result
    stays. The record (``None`` when nothing was flagged) lists each look-alike and the pick, the query checked
    (``from_sql``), the rewrite (``sql``, None when nothing was picked) and the ``outcome`` (``kept``, ``ok``,
    ``empty`` or the database error), for the trace and the evaluation records. Never raises for a bad query or a failed call: the answer stays.
    """
    sql, question = str(value.get("sql") or ""), str(value.get("question") or "")
    if not sql or not question:
        return None, None
    try:
        tables = documented_tables(ctx.db, ctx.settings.knowledge.use_drafts)
    except Exception:  # noqa: BLE001 - an unreadable schema only skips the check
        return None, None
    looks = find_lookalikes(question, sql, tables, ctx.db.dialect)
    if not looks:
        return None, None
    new_sql, picks = sql, []
    for look in looks:
        table = next(t for t in tables if t.name == look.table)
        picked = choose_column(ctx, str(value.get("system") or ""), question, new_sql, look, table)
        picks.append({"table": look.table, "column": look.column, "term": look.term, "picked": picked})
        if picked:
            try:
                new_sql = substitute_column(new_sql, ctx.db.dialect, tables, look.table, look.column, picked)
            except sqlglot.errors.SqlglotError:
                break
    record: dict[str, Any] = {"lookalikes": picks, "from_sql": sql, "sql": None, "outcome": "kept"}
    if new_sql == sql:
        return None, record
    keep = [o for o in value.get("outcomes", []) if o.get("status") == "ok"]
    index = 1 + max((int(o["index"]) for o in value.get("outcomes", [])), default=0)
    terms = "; ".join(f"'{p['term']}' from {p['table']}.{p['picked']} in place of {p['column']}"
                      for p in picks if p["picked"])
    cand = {"index": index, "strategy": "column_choice", "sql": new_sql, "reasoning": f"column choice: {terms}"}
    outcomes, results = execute_candidates(ctx, [*keep, cand], True)
    mine = outcomes[-1]
    record.update(sql=new_sql, outcome=mine["status"] if mine["status"] != "error" else mine["error"])
    if mine["status"] != "ok":
        return None, record
    carry: dict[str, Any] = {k: value[k] for k in ("system", "context", "question", "judge") if k in value}
    new_value = selection_value(outcomes, results, index, carry, ctx.db.dialect)
    rerun = {o["index"] for o in outcomes}
    new_value["outcomes"] = sorted([*(o for o in value.get("outcomes", []) if o["index"] not in rerun), *outcomes],
                                   key=lambda o: o["index"])
    return rows_result(new_value, results[index]), record
