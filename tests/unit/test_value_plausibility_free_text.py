"""A common word equal to a stored title is no entity unless the question marks it as a name."""

from __future__ import annotations

from retrieval.value_matching import extract_mentions
from retrieval.value_plausibility import plausible


def _mention(question: str, text: str):  # type: ignore[no-untyped-def]
    return next(m for m in extract_mentions(question) if m.text == text)


def test_a_common_word_is_not_a_title_unless_marked() -> None:
    question = "How many tracks run past 600 seconds?"
    run = _mention(question, "run")
    assert not plausible(run, "Run!", frozenset(), free_text=True, question=question)
    # a short list of categories keeps whole-value matching of common words ("rock" the genre)
    assert plausible(run, "Run!", frozenset(), free_text=False, question=question)
    marked = "How long is the track called run?"
    assert plausible(_mention(marked, "run"), "Run!", frozenset(), free_text=True, question=marked)
    quoted = 'How long is "Run"?'
    assert plausible(_mention(quoted, "Run"), "Run!", frozenset(), free_text=True, question=quoted)
