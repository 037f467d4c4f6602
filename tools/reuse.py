"""Reuse of an approved answer: a paraphrase of a question a user approved gets the approved SQL.

A thumbs-up that a reviewer approves becomes a few-shot example (source ``feedback``). Shown as an example, the
1.5B model still rewrites it about one time in eight for a paraphrase ("Where are most of the companies
listed?" came back grouped by city), so the approved SQL itself is offered as the first candidate when the new
question asks for the same data. This is a verified semantic cache: the match is decided in two steps, and a
near miss ("fewest" for "most", another year or currency) must not reuse the answer.

1. Deterministic guards, no model: the top retrieved example is user-approved and similar enough
   (``generation.reuse_min_score``); the *literals* agree: every number (dates split into their parts,
   month names as numbers) and upper-case code (USD, ASML) of either question occurs in the other question
   or in the approved SQL; the aggregate asked for and the entities named agree (:mod:`tools.reuse_guard`).
2. One short structured call (:class:`SameQuestion`) on the generator's cached schema prefix: does the approved
   SQL answer the new question exactly as asked?

The caller runs the SQL and keeps it only when it returns rows; otherwise the normal candidates follow.
Idea: query reuse from an approved query log, as in RubikSQL's experience records (seed 000) and semantic
caches for LLM applications; the literal guard and the check are ours.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from pydantic import BaseModel, Field

from core.llm import LLMError, chat, invoke_structured
from prompts import reuse as prompt
from tools.base import ToolContext
from tools.reuse_guard import entity_conflict, shape_conflict

log = logging.getLogger(__name__)

_MONTHS = {m: i for i, m in enumerate(["january", "february", "march", "april", "may", "june", "july", "august",
                                        "september", "october", "november", "december"], start=1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_CODE = re.compile(r"\b[A-Z][A-Z0-9]{1,9}\b")


class SameQuestion(BaseModel):
    """The model's verdict: does the approved SQL answer the new question exactly?"""

    same: bool = Field(description="True only when the approved SQL answers the new question as asked.")


def literals(text: str) -> set[str]:
    """Numbers (leading zeros dropped; month names as their numbers) and upper-case codes of ``text``.

    "USD/CHF on 2025-06-30" -> {"USD", "CHF", "2025", "6", "30"}; "30 June 2025" -> {"30", "6", "2025"}.
    """
    out = {n.lstrip("0") or "0" for n in _NUMBER.findall(text)}
    out |= {str(_MONTHS[w]) for w in re.findall(r"[a-z]+", text.lower()) if w in _MONTHS and w != "may"}
    out |= set(_CODE.findall(text))
    return out


def literals_agree(question: str, approved_question: str, approved_sql: str) -> bool:
    """True when the two questions' literals are compatible with reusing ``approved_sql``.

    Every literal of ``question`` occurs in ``approved_question`` or in the SQL (codes compared upper-cased:
    "CHF" in ``QUOTE_CCY = 'CHF'``, "MSFT" in ``TICKER = 'MSFT'``), and every *number* of
    ``approved_question`` occurs in ``question`` (a date or a count the new question drops is a different
    question). Codes of the approved question may be missing from the new one: "Dollar to Swiss franc" says
    "USD/CHF" in words, which the model check then judges.
    """
    new, old = literals(question), literals(approved_question)
    in_sql = literals(approved_sql) | {w.upper() for w in re.findall(r"[A-Za-z0-9]+", approved_sql)}
    in_sql |= {w.lstrip("0") or "0" for w in in_sql if w.isdigit()}
    return all(x in old or x in in_sql for x in new) and all(x in new for x in old if x.isdigit())


def reusable_example(ctx: ToolContext, system: str, question: str, examples: list[dict[str, Any]],
                     matches: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The approved example whose SQL answers ``question``, or None.

    ``examples`` are retrieve_examples' dicts (``question``, ``sql``, ``score``, ``source``), best first;
    only the first is considered. ``matches`` are the question's confident value matches (ValueMatch dicts)
    for the entity guard. ``system`` is the generator's system prompt (its cached schema prefix).
    Costs one short model call when the deterministic guard passes, none otherwise. Never raises.
    """
    cfg = ctx.settings.generation
    if not cfg.reuse_approved or not examples:
        return None
    top = examples[0]
    if "feedback" not in str(top.get("source") or "") or float(top.get("score") or 0.0) < cfg.reuse_min_score:
        return None
    approved_question, approved_sql = str(top["question"]), str(top["sql"])
    if not literals_agree(question, approved_question, approved_sql):
        return None
    conflict = (shape_conflict(question, approved_question, approved_sql, ctx.db.dialect)
                or entity_conflict(approved_question, approved_sql, matches or [], ctx.db.dialect))
    if conflict:
        log.info("approved answer not reused: %s", conflict)
        return None
    user = prompt.USER.format(approved_question=top["question"], approved_sql=top["sql"], question=question)
    try:
        verdict = invoke_structured(ctx.llms, "generator", chat(system, user), SameQuestion, ctx.usage,
                                    temperature=0.0, max_tokens=20, label="reuse check")
    except LLMError:
        return None
    return top if verdict.same else None
