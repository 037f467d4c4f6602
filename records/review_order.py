"""The order of the review list of wrong answers, and the marker of a verified answer marked wrong.

A thumbs-down on an answer the confidence called **verified** is the most useful record to review: the
confidence model was sure and the analyst says it was wrong, so either the answer or the calibration is off
(``scripts/fit_confidence.py`` refits the model on evaluation records). Such records come first, then the other
thumbs-down records, then the rest of the list (a thumbs-up without SQL also lands there) as before, newest
first. Pure functions over :class:`records.feedback.Feedback` records; nothing is read or written.
"""

from __future__ import annotations

from collections.abc import Iterable

from records.feedback import Feedback

VERIFIED_WRONG = "Marked wrong although verified"
"""The marker of a thumbs-down on a verified answer."""

VERIFIED_WRONG_FIRST, OTHER_WRONG, REST = 0, 1, 2
"""The ranks of :func:`review_rank`, in queue order."""


def review_rank(record: Feedback) -> int:
    """The queue group of ``record``.

    :data:`VERIFIED_WRONG_FIRST` (0) for a thumbs-down whose answer was verified, :data:`OTHER_WRONG` (1) for
    any other thumbs-down (a lower level, or no confidence kept), :data:`REST` (2) for everything else.
    """
    if record.rating != "down":
        return REST
    return VERIFIED_WRONG_FIRST if record.confidence_level == "verified" else OTHER_WRONG


def order_review_queue(records: Iterable[Feedback]) -> list[Feedback]:
    """``records`` in review order: by :func:`review_rank`, then newest first.

    Within the two thumbs-down groups "newest" is the ``created`` time (ties: the higher id first); the rest
    keeps the store's order, the higher id first. Returns a new list (the input is not changed); an empty
    input gives [].
    """
    def key(record: Feedback) -> tuple[int, float, int]:
        rank = review_rank(record)
        return rank, (-record.created if rank != REST else 0.0), -record.id

    return sorted(records, key=key)


def review_marker(record: Feedback) -> str | None:
    """The warning shown with a thumbs-down on a verified answer; None for every other record.

    ``"Marked wrong although verified"``, followed by the confidence reasons kept with the record
    (``"...: reason one; reason two"``) when there are any.
    """
    if review_rank(record) != VERIFIED_WRONG_FIRST:
        return None
    reasons = "; ".join(r for r in record.confidence_reasons if r.strip())
    return f"{VERIFIED_WRONG}: {reasons}" if reasons else VERIFIED_WRONG
