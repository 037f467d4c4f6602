"""Open the vector store the settings describe: a local Chroma folder (default) or a shared Chroma server.

``retrieval.chroma_url`` empty (the default): :class:`~retrieval.store.ChromaStore` on the persistent folder
``retrieval.chroma_path``, as a single-user checkout has always used. Set to ``http(s)://host[:port]``
(``NL2SQL_RETRIEVAL__CHROMA_URL``): a ``chromadb.HttpClient`` on that server, so several app replicas share one
index (``chroma run --path DIR`` or the ``chromadb/chroma`` image; ``make chroma`` starts one locally).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import chromadb
from chromadb.api.types import EmbeddingFunction
from chromadb.config import Settings as ChromaSettings

from core.settings import Settings
from retrieval.embeddings import get_embedding_function
from retrieval.store import ChromaStore

DEFAULT_CHROMA_PORT = 8000
"""Port of a Chroma server URL that names none over http (``chroma run``'s and the image's default)."""


class ChromaServerError(RuntimeError):
    """The configured Chroma server URL is malformed or the server does not answer."""


def parse_chroma_url(url: str) -> tuple[str, int, bool]:
    """Split a Chroma server URL into ``(host, port, ssl)``.

    ``http://h`` means port 8000 and ``https://h`` port 443 unless the URL names one; no path is allowed.

    Raises:
        ChromaServerError: not an ``http``/``https`` URL with a host, or it has a path, query or bad port.
    """
    text = url.strip()
    parts = urlsplit(text)
    problem = None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        problem = "expected http://host:port or https://host[:port]"
    elif parts.path not in ("", "/") or parts.query or parts.fragment:
        problem = "a Chroma server URL has no path, query or fragment"
    if problem is None:
        try:
            port = parts.port
        except ValueError:
            problem = "the port is not a number between 0 and 65535"
    if problem is not None:
        raise ChromaServerError(f"Bad retrieval.chroma_url {text!r}: {problem}.")
    ssl = parts.scheme == "https"
    return str(parts.hostname), port or (443 if ssl else DEFAULT_CHROMA_PORT), ssl


def chroma_client(url: str, token: str | None = None) -> Any:
    """A ``chromadb.HttpClient`` on the server at ``url`` (telemetry off), checked with a heartbeat.

    Args:
        url: ``http(s)://host[:port]`` (see :func:`parse_chroma_url`).
        token: when given, sent as ``Authorization: Bearer <token>`` on every request.

    Raises:
        ChromaServerError: bad URL, or the server does not answer (the message names the URL).
    """
    host, port, ssl = parse_chroma_url(url)
    headers = {"Authorization": f"Bearer {token}"} if token else None
    try:
        client = chromadb.HttpClient(host=host, port=port, ssl=ssl, headers=headers,
                                     settings=ChromaSettings(anonymized_telemetry=False))
        client.heartbeat()
    except Exception as exc:  # chromadb raises ValueError/httpx errors; one clear message for all
        raise ChromaServerError(
            f"The Chroma server at {url.strip()} does not answer ({' '.join(str(exc).split())[:200]}); start it "
            "(`make chroma`, or the chroma service of compose.yaml) or clear NL2SQL_RETRIEVAL__CHROMA_URL to use "
            "the local folder."
        ) from exc
    return client


def open_store(settings: Settings, embedding_function: EmbeddingFunction[Any] | None = None) -> ChromaStore:
    """The vector store of ``settings``: the Chroma server at ``retrieval.chroma_url``, else the local folder.

    Args:
        settings: application settings (``retrieval.chroma_url``, ``chroma_token``, ``chroma_path``).
        embedding_function: defaults to :func:`retrieval.embeddings.get_embedding_function` of ``settings``.

    Returns:
        A :class:`ChromaStore`; on a server its ``path`` is None, so index manifests are recomputed from the
        shared records rather than read from one replica's disk.

    Raises:
        ChromaServerError: the server URL is malformed or the server does not answer.
    """
    ef = embedding_function if embedding_function is not None else get_embedding_function(settings)
    retrieval = settings.retrieval
    if not retrieval.chroma_url.strip():
        return ChromaStore(retrieval.chroma_path, ef)
    token = retrieval.chroma_token.get_secret_value() if retrieval.chroma_token else None
    return ChromaStore(None, ef, client=chroma_client(retrieval.chroma_url, token))
