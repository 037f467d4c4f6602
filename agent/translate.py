"""A French question in English before planning: one short structured call, only for French questions.

The detector is :func:`tools.coverage.is_french` (two or more French function words). On failure the question
stays as typed: translation helps, it is never required.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent.context import AgentDeps
from core.llm import LLMError, UsageLog, chat, invoke_structured
from prompts import translate as prompt
from tools.coverage import is_french


class Translation(BaseModel):
    """The model's English version of the question."""

    english: str = Field(min_length=1, max_length=600)


def translate_question(deps: AgentDeps, question: str, usage: UsageLog) -> str | None:
    """``question`` in English when it is French and ``translate_questions`` is on, else None.

    Uses the planner's model (``max_tokens`` 150, temperature 0). Returns None, never raises, when the call
    fails or gives back the same text.
    """
    if not deps.settings.translate_questions or not is_french(question):
        return None
    try:
        out = invoke_structured(deps.llms, "planner", chat(prompt.SYSTEM, prompt.USER.format(question=question)),
                                Translation, usage, temperature=0.0, max_tokens=150, label="translate")
    except LLMError:
        return None
    english = out.english.strip()
    return english if english and english != question.strip() else None
