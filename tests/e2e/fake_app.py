"""The app with a scripted fake model (no LLM), for end-to-end browser tests: ``streamlit run`` this file.

The planner, generator and organizer are :class:`tests.support.scripted_model.ScriptedChatModel` scripts over the demo
``markets`` database; the follow-up's SQL is only produced when the generator's prompt carries the earlier
turn (so the test proves the thread's history reaches it).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project root, for ``app``

from agent.runner import build_deps  # noqa: E402
from core.settings import Settings  # noqa: E402
from tests.support.scripted_model import ScriptedChatModel  # noqa: E402
from ui import services  # noqa: E402

PLAN = {"i": 0}
"""The compact plan: no table insights (only asked for when insights are enabled; otherwise the plan is
fixed and the planner is not called)."""
PER_EXCHANGE = ("SELECT e.exchange_name, COUNT(*) AS equities FROM EQ_MSTR m JOIN exchanges e ON e.mic = m.LIMAR "
                "GROUP BY e.exchange_name ORDER BY equities DESC, e.exchange_name")
US_ONLY = ("SELECT e.exchange_name, COUNT(*) AS equities FROM EQ_MSTR m JOIN exchanges e ON e.mic = m.LIMAR "
           "WHERE e.country_code = 'US' GROUP BY e.exchange_name ORDER BY equities DESC, e.exchange_name")


def generate(messages: list[Any]) -> dict[str, str]:
    """SQL for the two scripted questions; the follow-up needs the earlier SQL in the prompt."""
    prompt = "\n".join(str(m.content) for m in messages)
    question = str(messages[-1].content)
    if "United States" in question:
        sql = US_ONLY if "exchange_name" in prompt.split("United States")[0] else "SELECT no_history_seen"
        return {"reasoning": "filter the earlier result to US exchanges", "sql": sql}
    return {"reasoning": "count equities per exchange", "sql": PER_EXCHANGE}


def fake_deps(settings: Settings) -> Any:
    """Agent dependencies with scripted models (everything else real: SQLite, Chroma, tools)."""
    models = {"planner": ScriptedChatModel(replies=[PLAN]), "generator": ScriptedChatModel(script=generate),
              "organizer": ScriptedChatModel(replies=[{"text": "Here is the result."}])}
    return build_deps(settings, llm_overrides=models)  # type: ignore[arg-type]


services.set_deps_factory(fake_deps)

from app import run  # noqa: E402

run()
