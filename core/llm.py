"""Chat models per role and the single function every LLM call goes through.

Every call records its role, latency (seconds) and prompt/completion tokens into a :class:`UsageLog`, so a
question's cost (calls, tokens, seconds) is known exactly; the figures end up in the answer's accounting.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from core.errors import ModelEndpointError
from core.llm_retry import call_with_retries, is_transient, question_deadline, question_expired
from core.settings import ROLES, LLMSettings, Role, Settings
from core.token_logprobs import TokenLogprobs, logprobs_of

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

__all__ = ["LLMCall", "LLMError", "LLMProvider", "UsageLog", "chat", "invoke_structured", "invoke_text",
           "is_transient", "make_chat_model", "parse_json_output", "question_deadline"]


class LLMError(ModelEndpointError, RuntimeError):
    """An LLM call failed: endpoint unreachable, timeout, or output that never matched its schema.

    A :class:`core.errors.ModelEndpointError` (exit code 2 when it reaches the CLI); its text is the cause only
    (no remedy appended), since it is shown inside answers.
    """

    default_remedy = ""


@dataclass
class LLMCall:
    """Accounting of one LLM request: role, seconds, tokens, and whether it succeeded."""

    role: str
    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ok: bool = True
    error: str | None = None
    label: str | None = None
    """What the call was for within its role, e.g. ``"candidate 2 query_plan"`` or ``"verifier repair 1"``."""
    cached_tokens: int = 0
    """Prompt tokens the server served from its prompt cache (llama.cpp and OpenAI report them); the server read
    ``prompt_tokens - cached_tokens`` anew, which is what a call's prompt costs in seconds on a local model."""
    token_logprobs: TokenLogprobs = field(default_factory=list, repr=False)
    """The reply's tokens with their log-probabilities (core.token_logprobs; ``[]`` when the endpoint sent none);
    kept in memory for the caller, not in :meth:`to_dict`."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "role": self.role,
            "latency_s": round(self.latency_s, 3),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "ok": self.ok,
            "error": self.error,
            "label": self.label,
            "cached_tokens": self.cached_tokens,
        }


@dataclass
class UsageLog:
    """Thread-safe list of :class:`LLMCall` records for one question (calls may run concurrently)."""

    calls: list[LLMCall] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, call: LLMCall) -> None:
        """Append one record."""
        with self._lock:
            self.calls.append(call)

    def last(self, label: str) -> LLMCall | None:
        """The last successful call recorded with ``label`` (None when there is none)."""
        with self._lock:
            return next((c for c in reversed(self.calls) if c.ok and c.label == label), None)

    def totals(self) -> dict[str, float]:
        """``{"llm_calls", "prompt_tokens", "cached_tokens", "completion_tokens", "llm_seconds"}`` over all calls."""
        with self._lock:
            return {
                "llm_calls": len(self.calls),
                "prompt_tokens": sum(c.prompt_tokens for c in self.calls),
                "cached_tokens": sum(c.cached_tokens for c in self.calls),
                "completion_tokens": sum(c.completion_tokens for c in self.calls),
                "llm_seconds": round(sum(c.latency_s for c in self.calls), 3),
            }


def make_chat_model(cfg: LLMSettings) -> BaseChatModel:
    """A ``ChatOpenAI`` for one role's OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp).

    Retries are handled by :func:`invoke_structured` / :func:`invoke_text` (transient errors with backoff
    within the question's budget, :mod:`core.llm_retry`), so the client itself does not retry. With
    ``cfg.logprobs`` the requests ask for token log-probabilities (``top_logprobs`` 1: llama.cpp's server sends
    none with 0), kept on each :class:`LLMCall`.
    """
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=cfg.model,
        base_url=cfg.base_url,
        api_key=cfg.api_key,
        temperature=cfg.temperature,
        max_completion_tokens=cfg.max_tokens,
        timeout=cfg.timeout_s,
        max_retries=0,
        **({"logprobs": True, "top_logprobs": 1} if cfg.logprobs else {}),
    )


class LLMProvider:
    """Hands out one chat model per role; models are created lazily and cached.

    ``overrides`` maps a role to a ready model (tests inject scripted fakes this way).
    """

    def __init__(self, settings: Settings, overrides: dict[str, BaseChatModel] | None = None):
        """Keep ``settings`` for lazily created models and start the cache with ``overrides``."""
        self.settings = settings
        self._models: dict[str, BaseChatModel] = dict(overrides or {})
        self.overridden: frozenset[str] = frozenset(overrides or {})
        self._lock = threading.Lock()

    def get(self, role: Role) -> BaseChatModel:
        """The chat model for ``role``; raises KeyError for an unknown role."""
        if role not in ROLES:
            raise KeyError(f"unknown LLM role {role!r}; expected one of {ROLES}")
        with self._lock:
            if role not in self._models:
                self._models[role] = make_chat_model(self.settings.llm(role))
            return self._models[role]

    def max_retries(self, role: Role) -> int:
        """Configured retries for ``role``."""
        return self.settings.llm(role).max_retries


def usage_of(message: BaseMessage) -> tuple[int, int, int]:
    """``(prompt_tokens, completion_tokens, cached_tokens)`` a reply reports; zeros where it reports none.

    Read from LangChain's ``usage_metadata`` (``input_token_details.cache_read``), else from the raw OpenAI
    ``token_usage`` (``prompt_tokens_details.cached_tokens``, which llama.cpp's server also fills).
    """
    usage = getattr(message, "usage_metadata", None) or {}
    if usage:
        details = usage.get("input_token_details") or {}
        return (int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)),
                int(details.get("cache_read") or 0))
    meta = (getattr(message, "response_metadata", None) or {}).get("token_usage") or {}
    details = meta.get("prompt_tokens_details") or {}
    return (int(meta.get("prompt_tokens", 0)), int(meta.get("completion_tokens", 0)),
            int(details.get("cached_tokens") or 0))


def usage_of_error(exc: BaseException) -> tuple[int, int, int]:
    """``(prompt_tokens, completion_tokens, cached_tokens)`` of a failed call whose reply came back anyway.

    The OpenAI client raises ``LengthFinishReasonError`` when a structured reply reaches ``max_tokens``; the
    server has read the prompt and written every one of those tokens, and the error carries the completion's
    usage. Zeros for errors without one (a refused connection, a timeout).
    """
    usage = getattr(getattr(exc, "completion", None), "usage", None)
    if usage is None:
        return 0, 0, 0
    details = getattr(usage, "prompt_tokens_details", None)
    return (int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0),
            int(getattr(details, "cached_tokens", 0) or 0))


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    name = type(exc).__name__
    if "Connection" in name or "connect" in text.lower():
        return f"LLM endpoint unreachable ({name}): {text[:200]}"
    if "Timeout" in name:
        return f"LLM request timed out ({name})"
    return f"{name}: {text[:300]}"


def _attempt(llms: LLMProvider, role: Role, usage: UsageLog, label: str | None,
             call: Callable[[], T]) -> tuple[T, float]:
    """``call()`` with transient retries; each failed try is recorded in ``usage``; returns (reply, its start)."""

    def once() -> tuple[T, float]:
        started = time.perf_counter()
        try:
            return call(), started
        except Exception as exc:  # recorded here, retried or re-raised by the caller's policy
            prompt_tokens, completion_tokens, cached = usage_of_error(exc)
            usage.add(LLMCall(role, time.perf_counter() - started, prompt_tokens, completion_tokens, ok=False,
                              error=_describe(exc), label=label, cached_tokens=cached))
            raise

    return call_with_retries(llms.settings.llm(role), once)


def _give_up(role: Role, last_error: str) -> LLMError:
    if question_expired():
        last_error = f"{last_error} (the question's time budget is spent)"
    return LLMError(f"{role} call failed: {last_error}")


def parse_json_output(text: str, schema: type[M]) -> M:
    """Parse an LLM's JSON text into ``schema``; tolerates code fences and text around one JSON object.

    Raises:
        ValueError: when no JSON object validating against ``schema`` can be found.
    """
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[body.find("\n") + 1 :] if "\n" in body else body
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        raise ValueError(f"no JSON object in model output: {text[:120]!r}")
    try:
        return schema.model_validate(json.loads(body[start : end + 1]))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise ValueError(f"model output does not match {schema.__name__}: {exc}") from exc


def invoke_structured(
    llms: LLMProvider,
    role: Role,
    messages: Sequence[BaseMessage],
    schema: type[M],
    usage: UsageLog,
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
    label: str | None = None,
) -> M:
    """Call ``role``'s model with JSON-schema constrained output and parse it into ``schema``.

    Uses ``with_structured_output(schema, method="json_schema", include_raw=True)``: the endpoint gets
    ``response_format=json_schema`` (llama.cpp turns it into a grammar, so the small local model cannot leave
    the schema); the reply is validated with Pydantic. Transient endpoint errors (429, 5xx, connection,
    timeout) are retried ``transient_retries`` times with backoff within the question's time budget
    (:mod:`core.llm_retry`); malformed output and other errors ``max_retries`` times; every attempt is recorded
    in ``usage`` (with ``label``).

    Raises:
        LLMError: after the last failed attempt, with a human-readable reason.
    """
    model: Any = llms.get(role)
    overrides: dict[str, Any] = {}
    if temperature is not None:
        overrides["temperature"] = temperature
    if max_tokens is not None:  # per-call cap, e.g. longer documentation texts than the role's default
        overrides["max_tokens"] = max_tokens
    if overrides:  # a copy, not .bind(): with_structured_output on a binding drops the bound kwargs
        model = model.model_copy(update=overrides)
    structured = model.with_structured_output(schema, method="json_schema", include_raw=True)
    last_error = "no attempt made"
    for attempt in range(llms.max_retries(role) + 1):
        if attempt and question_expired():  # the budget bounds retries; the first try always runs
            break
        try:
            out, started = _attempt(llms, role, usage, label, lambda: structured.invoke(list(messages)))
        except Exception as exc:  # recorded by _attempt; transient ones were retried there already
            last_error = _describe(exc)
            if is_transient(exc):
                break
            continue
        elapsed = time.perf_counter() - started
        raw = out.get("raw")
        prompt_tokens, completion_tokens, cached = usage_of(raw) if raw is not None else (0, 0, 0)
        parsed = out.get("parsed")
        if parsed is None and raw is not None:  # lenient second chance: fenced or wrapped JSON
            try:
                parsed = parse_json_output(str(raw.content), schema)
            except ValueError as exc:
                last_error = f"{exc} ({out.get('parsing_error')})"
        elif parsed is None:
            last_error = f"no output ({out.get('parsing_error')})"
        if parsed is None:
            usage.add(LLMCall(role, elapsed, prompt_tokens, completion_tokens, ok=False, error=last_error,
                              label=label, cached_tokens=cached))
            continue
        usage.add(LLMCall(role, elapsed, prompt_tokens, completion_tokens, label=label, cached_tokens=cached,
                          token_logprobs=logprobs_of(raw)))
        return parsed if isinstance(parsed, schema) else schema.model_validate(parsed)
    raise _give_up(role, last_error)


def invoke_text(llms: LLMProvider, role: Role, messages: Sequence[BaseMessage], usage: UsageLog, *,
                temperature: float | None = None, max_tokens: int | None = None, label: str | None = None) -> str:
    """Call ``role``'s model for free text; retries, overrides and ``label`` as in :func:`invoke_structured`.

    Raises:
        LLMError: when every attempt failed.
    """
    model: Any = llms.get(role)
    overrides: dict[str, Any] = {}
    if temperature is not None:
        overrides["temperature"] = temperature
    if max_tokens is not None:
        overrides["max_tokens"] = max_tokens
    if overrides:
        model = model.model_copy(update=overrides)
    last_error = "no attempt made"
    for attempt in range(llms.max_retries(role) + 1):
        if attempt and question_expired():  # the budget bounds retries; the first try always runs
            break
        try:
            reply, started = _attempt(llms, role, usage, label, lambda: model.invoke(list(messages)))
        except Exception as exc:  # recorded by _attempt; transient ones were retried there already
            last_error = _describe(exc)
            if is_transient(exc):
                break
            continue
        prompt_tokens, completion_tokens, cached = usage_of(reply)
        usage.add(LLMCall(role, time.perf_counter() - started, prompt_tokens, completion_tokens, label=label,
                          cached_tokens=cached, token_logprobs=logprobs_of(reply)))
        return reply.content if isinstance(reply.content, str) else str(reply.content)
    raise _give_up(role, last_error)


def chat(system: str, user: str) -> list[BaseMessage]:
    """Two-message prompt: a system message (stable, cache-friendly prefix) and the user turn."""
    return [SystemMessage(system), HumanMessage(user)]
