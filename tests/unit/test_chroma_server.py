"""Chroma client/server mode: the same shop index in a local folder and on a real ``chroma run`` server.

The server is started by the test on a free loopback port (``scripts/chroma_server.py``), waited for by its
heartbeat with a deadline, and always stopped at teardown. Skips only when the server cannot start here.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from types import ModuleType

import pytest

from core.settings import PROJECT_ROOT, Settings
from database.connection import Database
from retrieval.embeddings import OfflineMiniLM
from retrieval.indexing import index_database
from retrieval.manifest import snapshot_id
from retrieval.retrievers import retrieve_examples, retrieve_tables
from retrieval.store import COLLECTIONS, VALUES_INDEX, ChromaStore
from retrieval.store_factory import ChromaServerError, open_store, parse_chroma_url

EXAMPLES = [{"question": "How many orders are there?", "sql": "SELECT COUNT(*) FROM orders"},
            {"question": "Which customers live in Brazil?", "sql": "SELECT name FROM customers WHERE country = 'Brazil'"}]
QUESTIONS = ["total amount of orders per customer", "customers from Sweden", "how many orders were placed"]


def _chroma_server_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("chroma_server", PROJECT_ROOT / "scripts" / "chroma_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a real Chroma server for this module; stopped (process group killed) at teardown."""
    server = _chroma_server_module().ChromaServer(tmp_path_factory.mktemp("chroma-server"))
    try:
        url = str(server.start())
    except RuntimeError as exc:
        server.stop()
        pytest.skip(f"cannot start a Chroma server here: {exc}")
    try:
        yield url
    finally:
        server.stop()
        assert server.process is None or server.process.poll() is not None


def _index(settings: Settings, ef: OfflineMiniLM) -> ChromaStore:
    store = open_store(settings, ef)
    index_database(Database.from_settings(settings), store, settings, examples=EXAMPLES, progress=False)
    return store


def _records(store: ChromaStore) -> dict[str, list[tuple[str, str, str]]]:
    return {c: sorted((h.id, h.document, str(h.metadata.get("hash"))) for h in store.get(c, where={"db": "shop"}))
            for c in COLLECTIONS}


def test_parse_chroma_url() -> None:
    assert parse_chroma_url("http://127.0.0.1:8000") == ("127.0.0.1", 8000, False)
    assert parse_chroma_url(" http://chroma/ ") == ("chroma", 8000, False)
    assert parse_chroma_url("https://vectors.example.org") == ("vectors.example.org", 443, True)
    assert parse_chroma_url("https://vectors.example.org:9443") == ("vectors.example.org", 9443, True)
    for bad in ("chroma:8000", "ftp://h:1", "http://", "http://h:80/api", "http://h:port", "http://h:99999"):
        with pytest.raises(ChromaServerError, match="Bad retrieval.chroma_url"):
            parse_chroma_url(bad)


def test_settings_read_the_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NL2SQL_RETRIEVAL__CHROMA_URL", "http://chroma:8000")
    monkeypatch.setenv("NL2SQL_RETRIEVAL__CHROMA_TOKEN", "s3cret")
    retrieval = Settings().retrieval
    assert retrieval.chroma_url == "http://chroma:8000"
    assert retrieval.chroma_token is not None and retrieval.chroma_token.get_secret_value() == "s3cret"
    assert "s3cret" not in repr(retrieval)


def test_default_is_the_local_folder(shop_settings: Settings, embedding_function: OfflineMiniLM) -> None:
    store = open_store(shop_settings, embedding_function)
    assert store.path == shop_settings.retrieval.chroma_path and store.path.is_dir()


def test_unreachable_server_is_one_clear_error(shop_settings: Settings, embedding_function: OfflineMiniLM) -> None:
    url = f"http://127.0.0.1:{_chroma_server_module().free_port()}"
    settings = shop_settings.model_copy(update={"retrieval": shop_settings.retrieval.model_copy(
        update={"chroma_url": url})})
    with pytest.raises(ChromaServerError, match=f"Chroma server at {url} does not answer"):
        open_store(settings, embedding_function)


def test_folder_and_server_give_the_same_retrieval(shop_settings: Settings, embedding_function: OfflineMiniLM,
                                                   chroma_url: str) -> None:
    server_settings = shop_settings.model_copy(update={"retrieval": shop_settings.retrieval.model_copy(
        update={"chroma_url": chroma_url})})
    local = _index(shop_settings, embedding_function)
    remote = _index(server_settings, embedding_function)
    assert local.path is not None and remote.path is None  # no per-replica manifest folder on a server
    assert _records(remote) == _records(local) and _records(local)[VALUES_INDEX]
    assert snapshot_id(remote, "shop") == snapshot_id(local, "shop") is not None

    # A second client (another app replica) sees the same index without re-indexing.
    replica = open_store(server_settings, embedding_function)
    for question in QUESTIONS:
        for store in (remote, replica):
            assert [(t.name, round(t.score, 4)) for t in retrieve_tables(store, "shop", question, 1)] == \
                [(t.name, round(t.score, 4)) for t in retrieve_tables(local, "shop", question, 1)]
            assert [(e.question, e.sql, round(e.score, 4)) for e in retrieve_examples(store, "shop", question, 2)] == \
                [(e.question, e.sql, round(e.score, 4)) for e in retrieve_examples(local, "shop", question, 2)]
        assert [h.id for h in replica.query(VALUES_INDEX, "Brazil", 3, where={"db": "shop"})] == \
            [h.id for h in local.query(VALUES_INDEX, "Brazil", 3, where={"db": "shop"})]
    assert retrieve_tables(replica, "shop", "orders", 1)[0].name == "orders"
