"""The ReWOO graph's nodes and router: ``plan``, ``run_step``, ``solve`` and ``route_after_step``.

``plan`` makes one LLM call, ``run_step`` runs one plan step per visit (no LLM reasoning in between) and
``solve`` is the organizer.

Each node is a plain function of the state and LangGraph's :class:`~langgraph.runtime.Runtime`, whose
``context`` is the :class:`~agent.context.AgentDeps`; it returns the state update (see
:class:`agent.state.AgentState`), including one trace record.
"""

from __future__ import annotations

import json
import time
from typing import Any, Literal

from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime

from agent.compact_plan import compact_model, expand
from agent.context import AgentDeps
from agent.plan import Plan, PlanError, complete_plan, default_plan, draft_model, resolve_refs, validate_plan
from agent.state import AgentState
from agent.translate import translate_question
from core.llm import LLMError, UsageLog, chat, invoke_structured
from prompts import planner as planner_prompt
from tools.base import ToolCall, ToolContext, ToolResult
from tools.organizer import Answer, organize

TRACE_OUTPUT_CHARS = 4000
"""Characters of each step's output kept in its trace record (the local trace view shows them)."""

HISTORY_TURNS = 10
"""Turns kept in a thread's history (prompts use only the last few)."""


def format_history(history: list[dict[str, Any]], limit: int = 3) -> str:
    """Compact text of the last ``limit`` turns (question, SQL, result shape) for prompts."""
    lines = []
    for turn in history[-limit:]:
        shape = f"{turn.get('row_count', 0)} rows x {len(turn.get('columns', []))} cols"
        lines.append(f"- Q: {turn.get('question')}\n  SQL: {turn.get('sql')}\n  Result: {shape}")
    return "Earlier in this conversation:\n" + "\n".join(lines) + "\n" if lines else ""


def turn_summary(question: str, answer: Answer) -> dict[str, Any]:
    """The compact record of one answered turn kept in the thread's history (no rows: only their shape)."""
    return {"question": question, "sql": answer.sql, "columns": answer.columns, "row_count": len(answer.rows),
            "status": answer.status, "kind": answer.kind, "missing": answer.missing}


def plan(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Ask the planner for a typed plan; fall back to the standard plan if it is missing or invalid.

    The planner sees the enabled tools (:meth:`tools.registry.ToolRegistry.enabled_names`) and writes a
    :func:`agent.plan.draft_model` draft; completion adds the judge, verifier and any wanted chart.
    """
    deps = runtime.context
    started = time.perf_counter()
    usage = UsageLog()
    question = complete_follow_up(state.get("history", []), state["question"])
    typed = question
    question = translate_question(deps, question, usage) or question
    tools = deps.registry
    allowed = tools.enabled_names(deps.settings)
    wanted = tools.wanted_names(question)
    system = planner_system(deps)
    user = planner_prompt.USER.format(history=format_history(state.get("history", [])), question=question)
    source, error = "planner", None
    try:
        if deps.settings.plan_format == "compact":
            the_plan, completed = _compact_plan(deps, question, chat(system, user), usage, wanted), True
        else:
            draft = invoke_structured(deps.llms, "planner", chat(system, user),
                                      draft_model(tuple(tools.planned_names())), usage, label="plan")
            the_plan, completed = complete_plan(draft.to_plan(tools.purpose), tools, wanted=wanted)
        validate_plan(the_plan, tools, allowed=[*allowed, *tools.quality_names()])
    except (LLMError, PlanError) as exc:
        the_plan = default_plan(question, tools, use_examples=deps.settings.retrieval.use_examples)
        source, error, completed = "fallback", str(exc), False
    record = {
        "node": "plan",
        "latency_s": round(time.perf_counter() - started, 4),
        "ok": error is None,
        "error": error,
        "source": source,
        "completed": completed,
        "steps": [{"id": s.id, "tool": s.tool, "input": s.input} for s in the_plan.steps],
        **usage.totals(),
    }
    if typed != state["question"]:
        record["completed_question"] = typed  # a follow-up reply completed the pending question
    if question != typed:
        record["translated_from"] = typed  # the question as typed (French); the plan works on the English
    return {
        "question": question,
        "plan": the_plan,
        "plan_source": source,
        "plan_error": error,
        "step_index": 0,
        "trace": [record],
        "usage": [c.to_dict() for c in usage.calls],
    }


def planner_system(deps: AgentDeps) -> str:
    """The planner's system prompt for ``deps``' settings and tools (stable across questions: cacheable).

    Compact format: one line per switch of :meth:`tools.registry.ToolRegistry.flags`; full format: the
    enabled tools' descriptions.
    """
    if deps.settings.plan_format == "compact":
        flags = deps.registry.flags(deps.settings)
        lines = "\n".join(f"- {flag}: {deps.registry.purpose(name)}" for flag, name in flags.items())
        example = json.dumps(dict.fromkeys(flags, 0), separators=(",", ":"))
        return planner_prompt.COMPACT_SYSTEM.format(flags=lines, example=example)
    return planner_prompt.SYSTEM.format(tools=deps.registry.describe(deps.registry.enabled_names(deps.settings)))


def _compact_plan(deps: AgentDeps, question: str, messages: list[BaseMessage], usage: UsageLog,
                  wanted: list[str]) -> Plan:
    """Ask the planner for the compact plan's switches and expand them (:mod:`agent.compact_plan`).

    Raises:
        LLMError: the planner call failed after its retries (the caller falls back to the standard plan).
    """
    flags = deps.registry.flags(deps.settings)
    if not flags:
        return expand(compact_model(())(), deps.registry, flags, question, wanted=wanted)
    compact = invoke_structured(deps.llms, "planner", messages, compact_model(tuple(flags)), usage, label="plan")
    return expand(compact, deps.registry, flags, question, wanted=wanted)


def run_step(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Run the next plan step with its ``#E`` references resolved by exact id.

    A step whose referenced step failed is skipped with that failure, unless its tool ``handles_failures``
    and the failed evidence carries candidates to repair.
    """
    deps = runtime.context
    step = state["plan"].steps[state["step_index"]]
    results = state.get("results", {})
    usage = UsageLog()
    refs = {r: results[r] for r in step.references()}
    failed = [r for r, res in refs.items() if not res.ok]
    repairable = deps.registry.get(step.tool).handles_failures and all(
        "candidates" in refs[r].value or "outcomes" in refs[r].value for r in failed)
    if failed and not repairable:
        result = ToolResult.failure(f"skipped: {failed[0]} failed ({refs[failed[0]].error})")
    else:
        call = ToolCall(state["question"], step.id, step.tool,
                        resolve_refs(step.input, lambda r: results[r].text), refs)
        result = deps.registry.run(call, deps.context(usage, state.get("history")))
    record = {
        "node": "run_step",
        "step": step.id,
        "tool": step.tool,
        "input": step.input,
        "output": result.text[:TRACE_OUTPUT_CHARS],
        "latency_s": result.latency_s,
        "ok": result.ok,
        "error": result.error,
        **usage.totals(),
    }
    if result.value.get("snapshot"):
        record["index_snapshot"] = result.value["snapshot"]
    return {
        "results": {step.id: result},
        "step_index": state["step_index"] + 1,
        "trace": [record],
        "usage": [c.to_dict() for c in usage.calls],
    }


def route_after_step(state: AgentState) -> Literal["run_step", "solve"]:
    """Run the next step while any remain, then solve; solve at once after a decision not to answer."""
    the_plan, index = state["plan"], state["step_index"]
    last = state.get("results", {}).get(the_plan.steps[index - 1].id) if index else None
    if last is not None and last.kind == "decision" and last.value.get("kind", "answer") != "answer":
        return "solve"
    return "run_step" if index < len(the_plan.steps) else "solve"


def solve(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Build the answer from the last executed query (organizer), or explain the first failure."""
    deps = runtime.context
    started = time.perf_counter()
    usage = UsageLog()
    answer = make_answer(state, deps.context(usage))
    record = {
        "node": "solve",
        "latency_s": round(time.perf_counter() - started, 4),
        "ok": answer.status != "error",
        "error": answer.text if answer.status == "error" else None,
        **usage.totals(),
    }
    history = [*state.get("history", []), turn_summary(state["question"], answer)]
    return {"answer": answer, "history": history[-HISTORY_TURNS:], "trace": [record],
            "usage": [c.to_dict() for c in usage.calls]}


def ask_back(decision: dict[str, Any]) -> Answer:
    """The answer of a question the data cannot answer as asked: a clarification, follow-up or refusal."""
    kind, missing, readings = decision["kind"], decision.get("missing") or None, decision.get("readings", [])
    if kind == "clarify":
        text = "This question can be read in more than one way. Which one do you mean?\n" + "\n".join(
            f"- {r}" for r in readings)
    elif kind == "follow_up":
        text = f"To answer this I need {missing}. Please give it (for example in your next message)."
    else:
        text = (f"This database cannot answer that: it holds no data on {missing}. I searched its tables, their "
                "documentation and the business definitions; a table or column with that data would be needed.")
    return Answer(status="ok", text=text, kind=kind, readings=readings, missing=missing)


def complete_follow_up(history: list[dict[str, Any]], message: str) -> str:
    """The pending question completed by ``message`` when the last turn asked a follow-up, else ``message``.

    ``"October 2025"`` after "Top 5 stocks by return?" (follow-up: the period) becomes "Top 5 stocks by
    return? (October 2025)". A message that is itself a full question (a question mark and 5+ words) starts
    afresh.
    """
    last = history[-1] if history else None
    if not last or last.get("kind") != "follow_up":
        return message
    if message.rstrip().endswith("?") and len(message.split()) >= 5:
        return message
    return f"{str(last['question']).rstrip()} ({message.strip()})"


def make_answer(state: AgentState, ctx: ToolContext) -> Answer:
    """The solver's logic: organize the last successful ``rows`` result with the last chart spec.

    The ``rows`` result is the last successful one in plan order (the verifier's, else the judge's, else the
    execution's); without one, the first error is reported.
    """
    the_plan, results = state["plan"], state.get("results", {})
    ordered = [results[s.id] for s in the_plan.steps if s.id in results]
    decision = next((r.value for r in ordered if r.ok and r.kind == "decision"), None)
    if decision is not None and decision.get("kind", "answer") != "answer":
        return ask_back(decision)
    sql = next((str(r.value["sql"]) for r in reversed(ordered) if r.value.get("sql")), None)
    good = [r for r in ordered if r.ok and r.kind == "rows"]
    if good:
        v = good[-1].value
        chart = next((r.value["spec"] for r in reversed(ordered) if r.ok and r.kind == "chart"), None)
        answer = organize(state["question"], v["sql"], v["columns"], v["rows"], v["truncated"], ctx, chart=chart)
        if decision is not None and decision.get("evidence", {}).get("term_checks"):
            answer.term_checks = list(decision["evidence"]["term_checks"])
        return answer
    first_error = next((r.error for r in ordered if not r.ok), None)  # the root cause; later ones cascade
    text = f"I could not answer this question: {first_error or 'no query was executed'}"
    return Answer(status="error", text=text, sql=sql)
