"""``xllamacpp.CommonParams`` for the embedded llama.cpp server, from :class:`core.settings.LocalLLMSettings`.

Kept apart from process management (:mod:`core.local_server`): which slots, cache and speculative-decoding
options the server gets, and why (figures from ``scripts/bench_llm.py`` and ``scripts/bench_speculative.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.settings import LOCAL_MODEL_NAME, LocalLLMSettings

MAX_PREDICT = 2048
"""Server-side cap on generated tokens per request (guards against runaway generations)."""


def build_params(local: LocalLLMSettings) -> Any:
    """``xllamacpp.CommonParams`` for ``local``.

    Loopback HTTP server, alias :data:`LOCAL_MODEL_NAME`, ``n_parallel`` slots sharing one unified KV cache
    of ``ctx_size`` tokens, prompt caching on.
    """
    import xllamacpp  # optional dependency (extra "local"); imported lazily

    params = xllamacpp.CommonParams()
    params.model.path = str(local.model_path)
    params.model_alias = {LOCAL_MODEL_NAME}
    params.hostnames = [local.host]
    params.port = local.port
    params.n_parallel = local.n_parallel
    params.n_ctx = local.ctx_size
    params.kv_unified = True  # any slot may use up to ctx_size tokens; the total is shared
    params.cont_batching = True
    params.cpuparams.n_threads = local.n_threads
    params.cpuparams_batch.n_threads = local.n_threads
    params.cache_prompt = True
    params.cache_ram_mib = local.cache_ram_mib
    if local.slot_save_path:
        Path(local.slot_save_path).mkdir(parents=True, exist_ok=True)
        params.slot_save_path = str(local.slot_save_path)
    params.n_predict = MAX_PREDICT
    params.offline = True
    params.ui = False
    params.endpoint_metrics = True
    _set_speculative(params, local, xllamacpp)
    return params


def _set_speculative(params: Any, local: LocalLLMSettings, xllamacpp: Any) -> None:
    """Speculative decoding per ``local.speculative`` (see ``scripts/bench_speculative.py`` for figures).

    ``ngram``: llama.cpp's ``ngram-simple``: when the last ``ngram_size`` tokens occurred earlier in the context
    (prompt or output), the up to ``ngram_max`` tokens that followed them are the draft. ``draft``: the draft
    model at ``draft_model_path`` proposes up to ``draft_max`` tokens (``draft_min``, ``draft_p_min``) on the
    same threads. The main model verifies every draft, so at temperature 0 the output is the one it would
    write itself (up to llama.cpp's batch-size-dependent arithmetic, which also varies without speculation).
    On 2 CPU cores both kinds were slower than ``off`` (draft: half the speed at 93% acceptance), hence the
    default.
    """
    kinds = xllamacpp.common_speculative_type
    spec = params.speculative
    if local.speculative == "ngram":
        spec.types = [kinds.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
        spec.ngram_simple.size_n = local.ngram_size
        spec.ngram_simple.size_m = local.ngram_max
        spec.ngram_simple.min_hits = 1
        spec.draft.n_max = local.ngram_max
    elif local.speculative == "draft":
        spec.types = [kinds.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE]
        spec.draft.mparams.path = str(local.draft_model_path)
        spec.draft.n_max = local.draft_max
        spec.draft.n_min = local.draft_min
        spec.draft.p_min = local.draft_p_min
        spec.draft.cpuparams.n_threads = local.n_threads
        spec.draft.cpuparams_batch.n_threads = local.n_threads
    else:
        spec.types = [kinds.COMMON_SPECULATIVE_TYPE_NONE]
