"""A scripted fake chat model for tests and offline demos of the app's logic (no real LLM).

``ScriptedChatModel`` subclasses langchain-core's ``FakeMessagesListChatModel`` so it is a real
``BaseChatModel`` (callbacks, ``invoke``, ``bind``), and adds ``with_structured_output`` that parses the scripted
reply's JSON exactly as the OpenAI client does with ``method="json_schema"``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, ValidationError

Reply = str | dict[str, Any] | Exception
Script = Callable[[list[BaseMessage]], Reply]


def _words(messages: list[BaseMessage]) -> list[str]:
    return [w for m in messages for w in str(m.content).split()]


def _cached(words: list[str], earlier: list[list[BaseMessage]]) -> int:
    """Words of the longest prefix ``words`` shares with one of the last four prompts (a server with 4 slots)."""
    best = 0
    for prompt in earlier[-4:]:
        shared = 0
        for a, b in zip(words, _words(prompt), strict=False):
            if a != b:
                break
            shared += 1
        best = max(best, shared)
    return best


def _as_message(reply: Reply, messages: list[BaseMessage], earlier: list[list[BaseMessage]],
                logprob: float | None = None) -> AIMessage:
    if isinstance(reply, Exception):
        raise reply
    text = reply if isinstance(reply, str) else json.dumps(reply)
    tokens = re.findall(r"\S+\s*|\s+", text)
    metadata = ({"logprobs": {"content": [{"token": t, "logprob": logprob} for t in tokens]}}
                if logprob is not None else {})
    words = _words(messages)
    prompt_tokens = len(words)
    completion_tokens = max(1, len(text.split()))
    return AIMessage(
        content=text,
        usage_metadata={
            "input_tokens": prompt_tokens,
            "output_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "input_token_details": {"cache_read": _cached(words, earlier)},
        },
        response_metadata=metadata,
    )


class ScriptedChatModel(FakeMessagesListChatModel):
    """Fake chat model whose replies come from a script.

    Either ``script`` (a function of the prompt messages returning a str, a dict (sent as JSON) or an
    exception to raise) or ``replies`` (consumed in order; the last one repeats). ``prompts`` records every
    prompt received, for assertions. With ``logprob`` every reply carries OpenAI-style token log-probabilities
    (one per whitespace-separated piece, all equal to it) in ``response_metadata["logprobs"]``.
    """

    responses: list[BaseMessage] = []
    script: Script | None = None
    replies: list[Any] = []
    prompts: list[list[BaseMessage]] = []
    logprob: float | None = None

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        earlier = list(self.prompts)
        self.prompts.append(list(messages))
        if self.script is not None:
            reply: Reply = self.script(list(messages))
        elif self.replies:
            reply = self.replies[min(self.i, len(self.replies) - 1)]
            self.i += 1
        else:
            raise RuntimeError("ScriptedChatModel has neither a script nor replies")
        return ChatResult(generations=[ChatGeneration(message=_as_message(reply, messages, earlier, self.logprob))])

    @property
    def _llm_type(self) -> str:
        return "scripted-fake-chat-model"

    def bind(self, **kwargs: Any) -> Any:  # sampling parameters do not change a script
        """Return self: bound parameters (temperature etc.) do not affect scripted replies."""
        return self

    def with_structured_output(  # type: ignore[override]
        self, schema: Any, *, method: str = "json_schema", include_raw: bool = False, **kwargs: Any
    ) -> Runnable:
        """Parse the scripted JSON reply into ``schema`` (a Pydantic model class), like ``ChatOpenAI``."""

        def parse(message: AIMessage) -> Any:
            try:
                parsed: Any = schema.model_validate_json(str(message.content))
                error = None
            except (ValidationError, ValueError) as exc:
                parsed, error = None, exc
            if include_raw:
                return {"raw": message, "parsed": parsed, "parsing_error": error}
            if error is not None:
                raise error
            return parsed

        assert isinstance(schema, type) and issubclass(schema, BaseModel), "schema must be a Pydantic model"
        return self | RunnableLambda(parse)
