"""Retries of transient endpoint errors with exponential backoff, bounded by the question's time budget.

Transient: HTTP 408/409/429 and 5xx answers, connection refused/reset and timeouts of the OpenAI client (and
httpx transport errors). They are retried up to ``transient_retries`` times per call with exponential backoff
and jitter (``retry_backoff_s`` doubling, at most ``retry_max_wait_s``; a 429's ``Retry-After`` is honoured),
using ``tenacity``. :func:`question_deadline` sets the current question's deadline (a context variable, so it
follows the agent into its worker threads): no retry starts and no backoff waits past it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_any,
    wait_exponential,
    wait_random,
)
from tenacity.stop import stop_base

from core.settings import LLMSettings

T = TypeVar("T")

_DEADLINE: ContextVar[float | None] = ContextVar("nl2sql_question_deadline", default=None)
_STARTED: ContextVar[float | None] = ContextVar("nl2sql_question_started", default=None)
_TRANSIENT_STATUS = {408, 409, 429}


@contextmanager
def question_deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, LLM retries stop ``seconds`` (wall time) from now; None: no deadline.

    The block is also the question's clock (:func:`question_elapsed`).
    """
    now = time.monotonic()
    token = _DEADLINE.set(None if seconds is None else now + seconds)
    started = _STARTED.set(now)
    try:
        yield
    finally:
        _DEADLINE.reset(token)
        _STARTED.reset(started)


def question_elapsed() -> float | None:
    """Seconds since the current question started (its :func:`question_deadline` block), or None outside one."""
    started = _STARTED.get()
    return None if started is None else time.monotonic() - started


def fallback_allowed(budget_s: float | None) -> bool:
    """Whether a fallback LLM step (a later cascade candidate, a verifier repair) may still start.

    False once the current question has run ``budget_s`` seconds; always True without a budget or outside a
    question.
    """
    elapsed = question_elapsed()
    return budget_s is None or elapsed is None or elapsed < budget_s


def remaining_budget() -> float | None:
    """Seconds left of the current question's budget (may be negative), or None when no deadline is set."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


def question_expired() -> bool:
    """True when the current question's time budget is spent."""
    left = remaining_budget()
    return left is not None and left <= 0


def is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying after a pause: 408/409/429/5xx, connection refused/reset, timeouts."""
    import openai

    if isinstance(exc, (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)):
        return True
    if type(exc).__module__.split(".")[0] in ("httpx", "httpx2") and any(
            base.__name__ == "TransportError" for base in type(exc).__mro__):  # the OpenAI client's transport
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _TRANSIENT_STATUS or exc.status_code >= 500
    return False


def retry_after_s(exc: BaseException | None) -> float | None:
    """Seconds asked for by a ``Retry-After`` / ``retry-after-ms`` header of ``exc``'s response, or None."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000.0
        if headers.get("retry-after"):
            return float(headers["retry-after"])
    except (TypeError, ValueError):  # an HTTP date or junk: fall back to the backoff
        return None
    return None


def _wait(cfg: LLMSettings) -> Callable[[RetryCallState], float]:
    backoff = wait_exponential(multiplier=cfg.retry_backoff_s, max=cfg.retry_max_wait_s) + wait_random(
        0, cfg.retry_backoff_s / 2)

    def wait(state: RetryCallState) -> float:
        asked = retry_after_s(state.outcome.exception() if state.outcome else None)
        return max(backoff(state), min(asked, cfg.retry_max_wait_s) if asked is not None else 0.0)

    return wait


class _BudgetSpent(stop_base):
    """Stop when the next backoff wait would end past the question's deadline."""

    def __call__(self, retry_state: RetryCallState) -> bool:
        left = remaining_budget()
        return left is not None and left - retry_state.upcoming_sleep <= 0


def call_with_retries(cfg: LLMSettings, attempt: Callable[[], T]) -> T:
    """``attempt()``, retried on transient errors (see the module docstring); other errors raise at once.

    Raises:
        The last exception of ``attempt`` when it is not transient, the retries are used up, or the question's
        budget would be passed by the next wait.
    """
    retrying = Retrying(retry=retry_if_exception(is_transient),
                        stop=stop_any(stop_after_attempt(cfg.transient_retries + 1), _BudgetSpent()),
                        wait=_wait(cfg), reraise=True)
    return retrying(attempt)
