"""Fixtures of the fault-injection tests: the fake endpoint, a built template index, a fresh copy per test.

The ``world`` fixture is package-scoped so the summary table of every fault (``TALLY``) prints once, after
the last test of the package (``pytest tests/unit/fault_injection -s``).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.settings import ROLES
from database.connection import Database
from retrieval.embeddings import OfflineMiniLM, install_embedding_model
from retrieval.indexing import index_database
from retrieval.store import ChromaStore
from tests.unit.conftest import SHOP_SQL
from tests.unit.fault_injection.faults import TALLY, FakeEndpoint
from tests.unit.fault_injection.support import settings_for


@pytest.fixture(scope="package")
def endpoint() -> Iterator[FakeEndpoint]:
    """The fake OpenAI-compatible endpoint of the whole package."""
    fake = FakeEndpoint()
    yield fake
    fake.close()


@pytest.fixture(scope="package")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """A shop database, its built index (a template to copy) and the embedding model folder."""
    root = tmp_path_factory.mktemp("faults")
    db = root / "shop.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript(SHOP_SQL)
    model_dir = install_embedding_model(root / "minilm")
    settings = settings_for(root, db, root / "chroma", model_dir, dict.fromkeys(ROLES, "http://127.0.0.1:9/v1"))
    store = ChromaStore(root / "chroma", OfflineMiniLM(model_dir))
    index_database(Database.from_settings(settings), store, settings, progress=False)
    store.close()
    yield {"root": root, "db": db, "chroma": root / "chroma", "model": model_dir}
    summary = TALLY.table()
    (tmp_path_factory.getbasetemp() / "faults-summary.md").write_text(summary + "\n")
    print("\n\nFault-injection summary\n" + summary)


@pytest.fixture()
def place(world: dict[str, Path], tmp_path: Path, endpoint: FakeEndpoint) -> dict[str, Any]:
    """A fresh copy of the database and index for one test, and settings pointing at the fake endpoint."""
    db = tmp_path / "shop.sqlite"
    shutil.copy(world["db"], db)
    chroma = tmp_path / "chroma"
    shutil.copytree(world["chroma"], chroma)
    urls: dict[str, str] = {r: endpoint.base_url(r) for r in ROLES}
    endpoint.script({"*": ["ok"]})
    return {"db": db, "chroma": chroma, "settings": settings_for(tmp_path, db, chroma, world["model"], urls)}
