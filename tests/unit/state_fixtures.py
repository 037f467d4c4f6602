"""Fixtures that run the state-store tests on both backends: SQLite files and a PostgreSQL database.

``state_url`` is parametrised: ``""`` (the SQLite files under ``state_dir``) and the URL of a PostgreSQL
database made for the test module on the ``postgres_cluster`` (skipped with its reason when there is none),
emptied before each test. A test module imports both fixture functions (``from tests.unit.state_fixtures
import pg_state_db_fixture, state_url_fixture  # noqa: F401 (fixtures)``) and asks for ``state_url`` or
``pg_state_db``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

from records.db import dispose_all


@pytest.fixture(scope="module", name="pg_state_db")
def pg_state_db_fixture(postgres_cluster: dict[str, str]) -> Iterator[str]:
    """A fresh PostgreSQL database for this test module; its SQLAlchemy URL. Dropped afterwards."""
    name = f"nl2sql_state_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgres_cluster["admin"], isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield postgres_cluster["admin"].rsplit("/", 1)[0] + f"/{name}"
    dispose_all()
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def empty_tables(url: str) -> None:
    """Empty every table of the database at ``url`` except the migration bookkeeping."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            names = conn.execute(text(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                "AND tablename NOT IN ('alembic_version', 'checkpoint_migrations')")).scalars().all()
            if names:
                conn.execute(text(f"TRUNCATE {', '.join(names)} RESTART IDENTITY"))
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"], name="state_url")
def state_url_fixture(request: pytest.FixtureRequest) -> str:
    """``Settings.state_url`` for the test: ``""`` (SQLite files) or an emptied PostgreSQL database's URL."""
    if request.param == "sqlite":
        return ""
    url = str(request.getfixturevalue("pg_state_db"))
    empty_tables(url)
    return url
