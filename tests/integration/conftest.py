"""Integration fixtures: the real local model (auto-started), the generated demo database, a temp index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.context import AgentDeps
from agent.runner import build_deps
from core.settings import DEMO_DB_PATH, Settings
from retrieval.indexing import index_database, load_examples


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/integration is marked ``integration``."""
    for item in items:
        item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def demo_deps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentDeps]:
    """Agent dependencies on the demo database with the real local LLM and a fresh Chroma index."""
    if not DEMO_DB_PATH.exists():
        from data.markets.generate import generate

        generate(DEMO_DB_PATH)
    root: Path = tmp_path_factory.mktemp("integration")
    settings = Settings(retrieval={"chroma_path": root / "chroma"}, state_dir=root / "state")
    deps = build_deps(settings)
    examples_path = settings.resolved_examples_path()
    index_database(deps.db, deps.store, settings,
                   examples=load_examples(examples_path) if examples_path else None, progress=False)
    yield deps
