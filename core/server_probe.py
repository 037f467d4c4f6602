"""Is a llama.cpp server up, and is it ours? Health probes of an OpenAI-compatible local server.

:mod:`core.local_server` starts and stops the embedded server; these functions only look at one, over HTTP
without a proxy, and never raise.
"""

from __future__ import annotations

from typing import Literal

import httpx

from core.settings import LOCAL_MODEL_NAME

Probe = Literal["down", "loading", "ok", "foreign"]
"""What :func:`probe` saw."""


def server_root(base_url: str) -> str:
    """``http://host:port`` of an OpenAI base URL such as ``http://127.0.0.1:8765/v1``."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def probe(base_url: str, *, model: str = LOCAL_MODEL_NAME, timeout_s: float = 2.0) -> Probe:
    """State of the server at ``base_url``: ``down``, ``loading``, ``ok`` or ``foreign``.

    ``down``: no HTTP answer; ``loading``: ``/health`` not 200; ``ok``: healthy and ``/v1/models`` lists
    ``model`` as id or alias; ``foreign``: healthy, other model.
    """
    root = server_root(base_url)
    try:
        with httpx.Client(timeout=timeout_s, trust_env=False) as client:
            if client.get(f"{root}/health").status_code != 200:
                return "loading"
            resp = client.get(f"{root}/v1/models")
            names: set[str] = set()
            for entry in resp.json().get("data", []) if resp.status_code == 200 else []:
                names.add(entry.get("id", ""))
                names.update(entry.get("aliases", []) or [])
            return "ok" if model in names else "foreign"
    except (httpx.HTTPError, ValueError, AttributeError):
        return "down"


def is_healthy(base_url: str, *, model: str = LOCAL_MODEL_NAME, timeout_s: float = 2.0) -> bool:
    """True when a llama.cpp server at ``base_url`` answers ``/health`` with 200 and serves ``model``.

    ``base_url`` may be ``.../v1`` or the root. Never raises; uses no proxy.
    """
    return probe(base_url, model=model, timeout_s=timeout_s) == "ok"
