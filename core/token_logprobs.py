"""Token log-probabilities of a chat reply, as OpenAI-compatible endpoints report them.

With ``logprobs=true`` (and ``top_logprobs`` >= 1, which llama.cpp's server needs before it sends any) a chat
completion carries ``choices[0].logprobs.content``: one ``{"token", "logprob", ...}`` per written token, the
natural log of the probability the model gave that token. Under a JSON-schema grammar llama.cpp reports the
model's own probabilities before the grammar masks tokens, so a reply the grammar forced shows as improbable.
LangChain keeps the list in the message's ``response_metadata["logprobs"]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

TokenLogprobs = list[tuple[str, float]]
"""``[(token text, natural-log probability <= 0), ...]`` in the order written."""


def logprobs_of(message: Any) -> TokenLogprobs:
    """The ``(token, logprob)`` pairs of a LangChain reply; ``[]`` when the endpoint sent none.

    Entries without a finite numeric ``logprob`` are skipped (some servers send ``-inf`` or null for tokens a
    grammar forced).
    """
    meta = getattr(message, "response_metadata", None) or {}
    content = (meta.get("logprobs") or {}).get("content") if isinstance(meta.get("logprobs"), dict) else None
    out: TokenLogprobs = []
    for entry in content or []:
        if not isinstance(entry, dict):
            continue
        value = entry.get("logprob")
        if isinstance(value, int | float) and math.isfinite(value):
            out.append((str(entry.get("token") or ""), float(value)))
    return out


def span_mean(tokens: Sequence[tuple[str, float]], start: int, end: int | None = None) -> float | None:
    """Mean logprob of the tokens that begin at character ``start`` or later and before ``end`` of the reply.

    Character offsets are into ``"".join(token texts)``; a token that begins before ``start`` but runs past it
    counts too (the SQL's first token often carries a quote or space). None when no token falls in the span.
    """
    values, offset = [], 0
    for text, value in tokens:
        begin, offset = offset, offset + len(text)
        if offset > start and (end is None or begin < end):
            values.append(value)
    return sum(values) / len(values) if values else None
