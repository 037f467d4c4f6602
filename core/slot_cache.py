"""Prompt prefixes kept across server restarts: llama.cpp slot save/restore on the embedded server.

llama.cpp's server can write one slot's KV cache to a file in its ``slot_save_path`` (``POST
/slots/{id}?action=save``) and read it back into a slot (``?action=restore``), so a prefix prefilled once (at
``nl2sql index --warm-up``, or by the previous app process) costs a file read instead of ~40 s of prompt
processing on 2 cores. The server then picks that slot for a request sharing the prefix (it chooses the slot
whose cached prompt has the longest common prefix). A file holds the KV cache of one exact prompt for one
model and context setting: its name is a hash of the messages and the model file, so a changed schema, prompt or
model simply misses. Size: ~28 KB per token for the 1.5B model (f16 K and V, 28 layers, 2 KV heads of 128), so
~85 MB for a 3k-token schema prompt.

Only for the embedded server (whose ``slot_save_path`` this project sets); an external endpoint is never sent
slot requests.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from core.settings import LocalLLMSettings

WARM_SLOT = 0
"""The slot the warm-up prefills, saves and restores."""


@dataclass
class SlotPrefill:
    """What :func:`prefill` did for one prompt.

    ``source`` is ``restored`` (read from a file), ``computed`` (prefilled, then saved when a save path is set)
    or ``failed``; ``prompt_tokens`` the tokens the server processed for it; ``seconds`` the wall time;
    ``error`` the reason of a failure.
    """

    source: str
    prompt_tokens: int = 0
    seconds: float = 0.0
    error: str | None = None


def slot_file_name(messages: list[dict[str, str]], local: LocalLLMSettings) -> str:
    """``prefix-<sha256[:20]>.bin`` of the messages, the model file's name and size and the context size."""
    model = Path(local.model_path)
    size = model.stat().st_size if model.exists() else 0
    key = json.dumps([messages, model.name, size, local.ctx_size], sort_keys=True)
    return f"prefix-{hashlib.sha256(key.encode()).hexdigest()[:20]}.bin"


def _post(client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    reply = client.post(path, json=body)
    if reply.status_code != 200:
        raise RuntimeError(f"{path}: HTTP {reply.status_code}: {reply.text[:200]}")
    data: dict[str, Any] = reply.json()
    return data


def prefill(server_root: str, model: str, messages: list[dict[str, str]], local: LocalLLMSettings,
            *, timeout_s: float = 600.0, transport: httpx.BaseTransport | None = None) -> SlotPrefill:
    """Put ``messages``' prompt in :data:`WARM_SLOT`: restore it from its file if saved, else prefill and save it.

    ``server_root`` is the server's address without ``/v1``; ``model`` its model alias. Sends a one-token chat
    completion pinned to the slot (``id_slot``), so the cached tokens are exactly those of the chat template.
    Never raises: failures (no slot support, endpoint down) come back as ``source="failed"``. ``transport``
    replaces the network (tests).
    """
    started = time.perf_counter()
    folder = Path(local.slot_save_path) if local.slot_save_path else None
    name = slot_file_name(messages, local)
    restored = False
    try:
        with httpx.Client(base_url=server_root, timeout=timeout_s, transport=transport) as client:
            if folder is not None:  # the server's own folder may differ from ours (a server started elsewhere)
                try:
                    _post(client, f"/slots/{WARM_SLOT}?action=restore", {"filename": name})
                    restored = True
                except (RuntimeError, httpx.HTTPError):
                    restored = False  # an incompatible file (other build): prefill and overwrite it
            reply = _post(client, "/v1/chat/completions", {
                "model": model, "messages": messages, "max_tokens": 1, "temperature": 0.0,
                "id_slot": WARM_SLOT, "cache_prompt": True})
            processed = int((reply.get("timings") or {}).get("prompt_n") or 0)
            if folder is not None and not restored:
                folder.mkdir(parents=True, exist_ok=True)
                _post(client, f"/slots/{WARM_SLOT}?action=save", {"filename": name})
    except (RuntimeError, httpx.HTTPError, OSError, ValueError) as exc:
        return SlotPrefill("failed", seconds=round(time.perf_counter() - started, 2),
                           error=f"{type(exc).__name__}: {exc}"[:300])
    return SlotPrefill("restored" if restored else "computed", processed, round(time.perf_counter() - started, 2))
