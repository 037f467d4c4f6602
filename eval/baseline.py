"""The single-shot baseline: the same model answers in one call, SQL only.

The prompt holds the whole schema (DDL and 3 sample rows per table) and the question. It is the bar the agent
has to beat; its outcome has the shape of :func:`agent.runner.ask`'s, so the evaluation scores both the same
way.
"""

from __future__ import annotations

import time

from agent.outcome import Outcome
from core.llm import LLMError, LLMProvider, UsageLog, chat, invoke_text
from database.connection import Database
from prompts import baseline as prompt
from tools.candidate import extract_sql
from tools.whole_schema import whole_schema_listing


def single_shot(db: Database, llms: LLMProvider, question: str) -> Outcome:
    """Answer ``question`` with one generator call; returns an outcome like :func:`agent.runner.ask`'s.

    The outcome has ``sql``, ``status``, ``answer``, ``latency_s``, ``llm_calls``, tokens, ``usage`` and
    ``plan_source`` "single_shot". The SQL is not executed here (the evaluation does that). Never raises.
    """
    started = time.perf_counter()
    usage = UsageLog()
    sql, error = "", None
    try:
        system = prompt.SYSTEM.format(dialect=db.dialect, schema=whole_schema_listing(db))
        sql = extract_sql(invoke_text(llms, "generator", chat(system, prompt.USER.format(question=question)),
                                      usage))
        if not sql:
            error = "the reply held no SELECT statement"
    except LLMError as exc:
        error = str(exc)
    totals = usage.totals()
    return Outcome(sql=sql or None, status="error" if error else "ok", answer=error or "",
                   latency_s=round(time.perf_counter() - started, 3), llm_calls=int(totals["llm_calls"]),
                   prompt_tokens=int(totals["prompt_tokens"]), completion_tokens=int(totals["completion_tokens"]),
                   usage=[c.to_dict() for c in usage.calls], plan_source="single_shot", question=question,
                   database=db.key)
