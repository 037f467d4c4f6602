"""Generation profiles by model capability: ``small`` models get the cascade, ``large`` ones CoT candidates.

The profile decides how SQL candidates are generated (see :class:`core.settings.GenerationSettings`). It follows
the model, not the URL it is served from: the same 1.5B model behind another port or another server (llama.cpp,
Ollama, vLLM) must get the small profile. Measured on held-out real-world databases with the embedded 1.5B model
(docs/pipeline.md, "SQL candidates"): the small profile (direct -> Query-Plan -> Divide-and-Conquer cascade) beat single-shot by
18 points, while the large profile (four concurrent CoT candidates and a judge) lost 16 points to it.
"""

from __future__ import annotations

import re
from typing import Literal

Profile = Literal["small", "large"]
"""``small``: sequential cascade of direct, Query-Plan and Divide-and-Conquer candidates (first with rows wins);
``large``: concurrent chain-of-thought candidates selected by the judge."""

SMALL_MAX_BILLIONS = 10.0
"""Models of at most this many billion parameters get the small profile."""

_SIZE = re.compile(r"(?<![\d.a-z])(\d+(?:\.\d+)?)\s*b(?![a-z])", re.IGNORECASE)
_ACTIVE = re.compile(r"-a\d+(?:\.\d+)?b", re.IGNORECASE)
_SMALL_FAMILIES = re.compile(r"tinyllama|smollm|phi-?[34](?:\.\d)?-mini|gemma-?3n|qwen2\.5-coder-1\.5b",
                             re.IGNORECASE)
"""Small models whose names may carry no parameter count."""


def model_size_billions(model: str) -> float | None:
    """Parameter count in billions read from a model name, e.g. 1.5 for ``qwen2.5-coder-1.5b-instruct``.

    The total, not the active count, of mixture-of-experts names (``qwen3-30b-a3b`` -> 30). None when the
    name carries no size (``gpt-4o-mini``, ``claude-sonnet``).
    """
    sizes = [float(m.group(1)) for m in _SIZE.finditer(_ACTIVE.sub("", model))]
    return max(sizes) if sizes else None


def is_small_model(model: str) -> bool:
    """True for a model name known to be small: a size of at most :data:`SMALL_MAX_BILLIONS`, or a small family."""
    size = model_size_billions(model)
    return (size is not None and size <= SMALL_MAX_BILLIONS) or bool(_SMALL_FAMILIES.search(model))


def detect_profile(model: str, *, local_server: bool) -> Profile:
    """The profile of ``model``: small for the embedded local server or a known small model, else large."""
    return "small" if local_server or is_small_model(model) else "large"
