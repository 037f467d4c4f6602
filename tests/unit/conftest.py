"""Shared fixtures: a small real SQLite database, a real Chroma store in a temp dir, scripted LLMs."""

from __future__ import annotations

import importlib.util
import socket
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from core.settings import PROJECT_ROOT, CandidateSpec, Settings
from database.connection import Database
from retrieval.embeddings import OfflineMiniLM, install_embedding_model
from retrieval.indexing import index_database
from retrieval.store import ChromaStore

SHOP_SQL = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),
                     order_date TEXT, amount REAL);
INSERT INTO customers VALUES (1, 'Ana', 'Brazil'), (2, 'Bo', 'Sweden'), (3, 'Caio', 'Brazil');
INSERT INTO orders VALUES (1, 1, '2024-01-02', 10.5), (2, 1, '2024-02-03', 20.0), (3, 2, '2024-02-04', 7.25);
"""


@pytest.fixture(scope="session")
def embedding_function(tmp_path_factory: pytest.TempPathFactory) -> OfflineMiniLM:
    """The offline MiniLM, installed into a temp folder (no download)."""
    return OfflineMiniLM(install_embedding_model(tmp_path_factory.mktemp("minilm")))


@pytest.fixture()
def shop_db(tmp_path: Path) -> Path:
    """A two-table SQLite file (customers, orders)."""
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(SHOP_SQL)
    return path


@pytest.fixture()
def shop_settings(tmp_path: Path, shop_db: Path) -> Settings:
    """Settings pointing at the shop database and a temp Chroma folder; no local server auto-start.

    The local candidate list is pinned to direct, plain, query plan, divide and conquer (the cascade without its
    whole-schema candidate), so tests of other mechanisms script the generator's replies in a fixed order; the
    default list and the whole-schema candidate have their own tests (test_candidates, test_consistency).
    """
    return Settings(
        database_url=f"sqlite:///{shop_db}",
        generation={"candidates_local": CandidateSpec.parse_list("direct,plain,qp,dc")},
        retrieval={"chroma_path": tmp_path / "chroma"},
        local_llm={"auto_start": False},
        state_dir=tmp_path / "state",
    )


@pytest.fixture()
def shop_store(shop_settings: Settings, embedding_function: OfflineMiniLM) -> Iterator[ChromaStore]:
    """A Chroma store with the shop database indexed (and one example)."""
    store = ChromaStore(shop_settings.retrieval.chroma_path, embedding_function)
    db = Database.from_settings(shop_settings)
    index_database(db, store, shop_settings, examples=[{"question": "How many orders are there?",
                                                         "sql": "SELECT COUNT(*) FROM orders"}], progress=False)
    yield store


def _postgres_target_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("postgres_target", PROJECT_ROOT / "scripts" / "postgres_target.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[dict[str, str]]:
    """One throwaway PostgreSQL cluster per test session (``scripts/postgres_target.py``) on a free port.

    Yields ``{"markets": url, "chinook": url}`` (read-only role ``nl2sql_ro``) plus ``"admin"``: the superuser
    URL of the ``postgres`` database (for tests that need a writable database, e.g. the state store). Skips,
    with the reason, when no PostgreSQL server can be installed or started here.
    """
    pg = _postgres_target_module()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    data_dir = Path(tempfile.mkdtemp(prefix="nl2sql-pg-"))
    try:
        started = pg.start(port, data_dir)
    except RuntimeError as exc:
        pytest.skip(f"no PostgreSQL server here: {exc}")
    yield {**started, "admin": pg.superuser_url(port)}
    pg.stop(data_dir)
