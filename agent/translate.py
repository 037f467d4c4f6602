"""A French question in English before planning: one short structured call, only for French questions.

The detector is :func:`tools.coverage.is_french` (two or more French function words). On failure the question
stays as typed: translation helps, it is never required.
"""

from __future__ import annotations

import re
from datetime import datetime

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
    fails, gives back the same text or turns the question into a statement (:func:`still_a_question`).
    """
    if not deps.settings.translate_questions or not is_french(question):
        return None
    try:
        out = invoke_structured(deps.llms, "planner", chat(prompt.SYSTEM, prompt.USER.format(question=question)),
                                Translation, usage, temperature=0.0, max_tokens=150, label="translate")
    except LLMError:
        return None
    english = keep_iso_dates(question, out.english.strip())
    if not english or english == question.strip() or not still_a_question(question, english):
        return None
    return english


def still_a_question(question: str, english: str) -> bool:
    """False when a question (ending in "?") came back as a statement: the model answered instead of translating.

    "Où Tencent est-elle immatriculée ... ?" once came back as "Tencent is incorporated in Shenzhen, China, on
    the Shanghai Stock Exchange ...": invented facts, which the answerability check then refused. The French
    question is kept instead.
    """
    return not question.rstrip().endswith("?") or english.rstrip().endswith("?")


_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_SPELLED = re.compile(rf"\b(?:{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}|\d{{1,2}}(?:st|nd|rd|th)? {_MONTH},? \d{{4}})\b")


def _iso(spelled: str) -> str | None:
    """``"October 31, 2025"`` or ``"31 October 2025"`` as ``"2025-10-31"``; None when it is not a date."""
    text = re.sub(r"(\d)(?:st|nd|rd|th)", r"\1", spelled.replace(",", ""))
    for fmt in ("%B %d %Y", "%d %B %Y"):
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def keep_iso_dates(question: str, english: str) -> str:
    """``english`` with spelled-out dates put back as the ISO dates ``question`` wrote.

    The small model turns "au 2025-10-31" into "on October 31, 2025" although told to keep dates as written;
    the ISO form is the one stored in the database and in the few-shot examples. Only dates the original
    question has in ISO form are restored. "le 30 juin 2025" stays "June 30, 2025".
    """
    wanted = set(_ISO.findall(question))
    if not wanted:
        return english

    def restore(match: re.Match[str]) -> str:
        iso = _iso(match.group(0))
        return iso if iso is not None and iso in wanted else match.group(0)

    return _SPELLED.sub(restore, english)
