"""Prompt-cache warm-up: process the stable prompt prefixes of a database before its first question.

On the local 2-core model a prompt is read at ~60-80 tokens/s while a cached prefix costs nothing, so the first
question of a fresh app pays for the planner's instructions and the generator's schema prompt (1-2k tokens,
~20-30 s). :func:`warm_up` sends each of those prefixes once, with a one-token completion, so llama.cpp keeps
them in a slot (and in its host-memory prompt cache) for the questions that follow. For a database whose schema
fits the budget, the generator's system prompt (rules + the whole schema in canonical order) is the same for
every question, so the warm-up covers it exactly; for larger schemas it covers the tables a general query ranks
first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage

from agent.context import AgentDeps
from agent.nodes import planner_system
from core.llm import UsageLog, chat
from core.local_server import server_root
from core.settings import Role
from core.slot_cache import prefill
from prompts import generator as generator_prompt
from prompts import planner as planner_prompt
from tools.base import ToolCall
from tools.candidate import system_prompt
from tools.whole_schema import planned_whole_schema

WARM_QUESTION = "Give an overview of the data."
"""The stand-in question of the warm-up (only its prefix matters)."""


@dataclass
class WarmUp:
    """What :func:`warm_up` did: seconds per prompt and errors, keyed the same way.

    Seconds look like ``{"planner": 3.1, "generator": 21.4, "whole_schema": 9.8}``.

    ``sources``: for the embedded server's generator prefix, ``restored`` (from a saved slot file) or ``computed``.
    """

    seconds: dict[str, float] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every prefix was sent."""
        return not self.errors


def _send(deps: AgentDeps, role: Role, messages: list[BaseMessage], report: WarmUp, key: str | None = None) -> None:
    """Send ``messages`` to ``role`` for one token; seconds and errors go to ``report`` under ``key`` (the role)."""
    started = time.perf_counter()
    try:
        deps.llms.get(role).bind(max_tokens=1).invoke(messages)
    except Exception as exc:  # a warm-up never fails the app: the first question is just slower
        report.errors[key or role] = f"{type(exc).__name__}: {exc}"
    report.seconds[key or role] = round(time.perf_counter() - started, 2)


def warm_up(deps: AgentDeps) -> WarmUp:
    """Send the planner's (when it is called at all) and the generator's stable prefixes (one token each).

    The generator's prefixes are the linked listing's system prompt and, when the candidate list has a
    ``whole_schema`` candidate and the schema fits its budget, the whole-schema prompt (reported as
    ``whole_schema``).

    Never raises: errors (no index, endpoint down) are reported in the result.
    """
    report = WarmUp()
    if deps.settings.plan_format == "full" or deps.registry.flags(deps.settings):  # else no planner call is made
        user = planner_prompt.USER.format(history="", question=WARM_QUESTION)
        _send(deps, "planner", chat(planner_system(deps), user), report)
    schema = deps.registry.run(ToolCall(WARM_QUESTION, "#E1", "retrieve_schema", ""), deps.context(UsageLog()))
    if not schema.ok:
        report.errors["generator"] = schema.error or "no schema"
        return report
    generator_user = generator_prompt.DIRECT.format(knowledge="", columns="", joins="", history="", examples="",
                                                    values="", insights="", question=WARM_QUESTION)
    messages = chat(system_prompt(deps.db.dialect, schema.text), generator_user)
    local = deps.settings.is_local("generator") and "generator" not in deps.llms.overridden
    if local and deps.settings.local_llm.slot_save_path:
        _prefill_slot(deps, messages, report)
    else:
        _send(deps, "generator", messages, report)
    whole = planned_whole_schema(deps.settings, deps.db)
    if whole is not None:  # the whole-schema candidate's own prefix (kept in another slot / the RAM cache)
        user = generator_prompt.WHOLE_SCHEMA.format(knowledge="", history="", question=WARM_QUESTION)
        _send(deps, "generator", chat(whole, user), report, key="whole_schema")
    return report


def _prefill_slot(deps: AgentDeps, messages: list[BaseMessage], report: WarmUp) -> None:
    """The generator prefix on the embedded server: restored from its saved slot file, else prefilled and saved."""
    as_dicts = [{"role": "system" if m.type == "system" else "user", "content": str(m.content)} for m in messages]
    role = deps.settings.llm("generator")
    done = prefill(server_root(role.base_url), role.model, as_dicts, deps.settings.local_llm)
    report.seconds["generator"] = done.seconds
    report.sources["generator"] = done.source
    if done.error:
        report.errors["generator"] = done.error
