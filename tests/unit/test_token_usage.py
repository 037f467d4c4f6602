"""Token accounting of LLM calls: prompt tokens served from the server's prompt cache, and what they cost."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from core.llm import LLMCall, UsageLog, usage_of
from core.settings import ModelPrice, Settings


def test_cached_tokens_are_read_from_langchain_usage_metadata() -> None:
    reply = AIMessage(content="x", usage_metadata={
        "input_tokens": 1200, "output_tokens": 40, "total_tokens": 1240, "input_token_details": {"cache_read": 900}})
    assert usage_of(reply) == (1200, 40, 900)


def test_cached_tokens_are_read_from_the_openai_token_usage() -> None:
    reply = AIMessage(content="x", response_metadata={"token_usage": {
        "prompt_tokens": 500, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 480}}})
    assert usage_of(reply) == (500, 20, 480)
    bare = AIMessage(content="x", response_metadata={"token_usage": {"prompt_tokens": 7, "completion_tokens": 2}})
    assert usage_of(bare) == (7, 2, 0)
    assert usage_of(AIMessage(content="x")) == (0, 0, 0)


def test_usage_totals_and_records_carry_cached_tokens() -> None:
    usage = UsageLog()
    usage.add(LLMCall("generator", 1.0, 1000, 50, cached_tokens=800))
    usage.add(LLMCall("generator", 0.5, 1100, 30, cached_tokens=1050))
    totals = usage.totals()
    assert totals["prompt_tokens"] == 2100 and totals["cached_tokens"] == 1850
    assert usage.calls[0].to_dict()["cached_tokens"] == 800


def test_cached_prompt_tokens_are_priced_apart_where_a_price_is_set() -> None:
    model = Settings().llm("generator").model
    calls = [{"role": "generator", "prompt_tokens": 1_000_000, "cached_tokens": 600_000, "completion_tokens": 0}]
    priced = Settings(prices={model: ModelPrice(prompt_per_mtok=1.0, cached_prompt_per_mtok=0.25)})
    assert priced.cost_usd(calls) == 0.4 + 0.15
    same = Settings(prices={model: ModelPrice(prompt_per_mtok=1.0)})  # no cached price: the prompt price
    assert same.cost_usd(calls) == 1.0
    odd = [{"role": "generator", "prompt_tokens": 10, "cached_tokens": 50, "completion_tokens": 0}]
    assert priced.cost_usd(odd) == 10 * 0.25 / 1e6  # never more cached than read


def test_a_reply_cut_at_the_length_limit_still_counts_its_tokens() -> None:
    from openai import LengthFinishReasonError
    from openai.types.chat import ChatCompletion
    from pydantic import BaseModel

    from core.llm import LLMError, LLMProvider, invoke_structured, usage_of_error

    completion = ChatCompletion.model_validate({
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": "{\"sql\": \"SEL"}}],
        "usage": {"prompt_tokens": 3722, "completion_tokens": 600, "total_tokens": 4322,
                  "prompt_tokens_details": {"cached_tokens": 3645}}})
    error = LengthFinishReasonError(completion=completion)
    assert usage_of_error(error) == (3722, 600, 3645)
    assert usage_of_error(TimeoutError("slow")) == (0, 0, 0)

    class Reply(BaseModel):
        sql: str

    class Runaway:
        def with_structured_output(self, *args: object, **kwargs: object) -> Runaway:
            return self

        def invoke(self, messages: object) -> object:
            raise error

    llms = LLMProvider(Settings(), overrides={"generator": Runaway()})  # type: ignore[dict-item]
    usage = UsageLog()
    try:
        invoke_structured(llms, "generator", [], Reply, usage, label="candidate 1 direct")
    except LLMError as exc:
        assert "length limit" in str(exc)
    else:
        raise AssertionError("a reply cut at the length limit must fail")
    assert usage.calls and all(not c.ok for c in usage.calls)
    assert all((c.prompt_tokens, c.completion_tokens, c.cached_tokens) == (3722, 600, 3645) for c in usage.calls)
