"""The team deployment description (compose.yaml, Dockerfile): services, health checks and settings wiring.

``docker compose config -q`` validates the file when docker with the compose plugin is installed (skipped with
the reason otherwise); the rest parses compose.yaml with PyYAML and always runs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.settings import PROJECT_ROOT, ROLES, Settings

COMPOSE = PROJECT_ROOT / "compose.yaml"
APPS = ("app1", "app2")
INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _defaults(value: str) -> str:
    """``value`` with compose's ``${VAR:-default}`` replaced by the default (``$$`` is a literal ``$``)."""
    return INTERPOLATION.sub(lambda m: m.group(2) or "", value).replace("$$", "$")


def test_docker_compose_accepts_the_file() -> None:
    if not shutil.which("docker"):
        pytest.skip("docker is not installed")
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0:
        pytest.skip("docker has no compose plugin (`docker compose`)")
    res = subprocess.run(["docker", "compose", "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True,
                         cwd=PROJECT_ROOT, timeout=120)
    assert res.returncode == 0, res.stderr


def test_services_and_health_checks(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"postgres", "chroma", "llm", "init", *APPS}
    assert services["postgres"]["image"] == "postgres:15"
    assert services["chroma"]["image"].startswith("chromadb/chroma:")
    assert services["llm"]["image"].startswith("ghcr.io/ggml-org/llama.cpp:server")
    for name, service in services.items():
        if name != "init":  # a one-shot job: done is its health
            check = service["healthcheck"]["test"]
            assert check[0] in ("CMD", "CMD-SHELL") and len(check) > 1, name
    assert "/api/v2/heartbeat" in services["chroma"]["healthcheck"]["test"][-1]
    assert "/health" in services["llm"]["healthcheck"]["test"][-1]
    assert "/_stcore/health" in " ".join(services["app1"]["healthcheck"]["test"])


def test_apps_wait_for_healthy_dependencies(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for app in APPS:
        deps = services[app]["depends_on"]
        assert {k: v["condition"] for k, v in deps.items()} == {
            "postgres": "service_healthy", "chroma": "service_healthy", "llm": "service_healthy",
            "init": "service_completed_successfully"}
        assert services[app]["build"] == "."
    assert {k: v["condition"] for k, v in services["init"]["depends_on"].items()} == {
        "postgres": "service_healthy", "chroma": "service_healthy"}
    published = [services[app]["ports"][0] for app in APPS]
    assert len(set(published)) == len(APPS)  # two replicas, two host ports


def test_app_environment_reaches_the_settings(compose: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    env = {k: _defaults(str(v)) for k, v in compose["services"]["app1"]["environment"].items()}
    assert env == {k: _defaults(str(v)) for k, v in compose["services"]["app2"]["environment"].items()}
    assert all(k.startswith("NL2SQL_") for k in env)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    assert settings.database_url == "postgresql+psycopg://nl2sql_ro:nl2sql-reader@postgres:5432/markets"
    assert settings.state_url.startswith("postgresql+psycopg://nl2sql_state:") and "@postgres:5432/" in settings.state_url
    assert settings.retrieval.chroma_url == "http://chroma:8000"
    assert settings.local_llm.auto_start is False and not settings.uses_local_llm()
    for role in ROLES:
        assert settings.llm(role).base_url == "http://llm:8080/v1"
        assert settings.llm(role).model == "qwen2.5-coder-1.5b-instruct"
    assert settings.generation_profile() == "small"  # a 1.5B model keeps the cascade, as with the local server


def test_model_server_serves_the_configured_name(compose: dict[str, Any]) -> None:
    llm = compose["services"]["llm"]
    args = [_defaults(str(a)) for a in llm["command"]]
    assert args[args.index("--alias") + 1] == "qwen2.5-coder-1.5b-instruct"
    assert args[args.index("--port") + 1] == "8080" and args[args.index("--host") + 1] == "0.0.0.0"
    assert args[args.index("--model") + 1].startswith("/models/")
    assert any(v.endswith(":/models:ro") for v in (_defaults(str(x)) for x in llm["volumes"]))


def test_init_seeds_postgres_and_indexes(compose: dict[str, Any]) -> None:
    script = _defaults(" ".join(compose["services"]["init"]["command"]))
    assert "scripts/seed_postgres.py" in script and "nl2sql index" in script
    assert (PROJECT_ROOT / "scripts" / "seed_postgres.py").is_file()
    app_env = {k: _defaults(str(v)) for k, v in compose["services"]["app1"]["environment"].items()}
    assert "--reader-password nl2sql-reader" in script and "nl2sql_ro:nl2sql-reader@" in app_env["NL2SQL_DATABASE_URL"]
    assert "--state-password nl2sql-state" in script and "nl2sql_state:nl2sql-state@" in app_env["NL2SQL_STATE_URL"]


def test_dockerfile_installs_the_package_without_dev_tools() -> None:
    text = (PROJECT_ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert text.startswith("#") and "FROM python:3.11-slim" in text
    assert ".[dev]" not in text and "[local" not in text
    assert "pip install --no-deps -e ." in text and "streamlit" in text and "--server.address=0.0.0.0" in text
    ignored = (PROJECT_ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".venv", ".git", ".nl2sql"} <= set(ignored)
    assert Path(PROJECT_ROOT / "README.md").is_file()  # pyproject's readme: needed by the in-image install


def test_seed_prepares_state_and_read_only_target(postgres_cluster: dict[str, str]) -> None:
    import importlib.util

    from sqlalchemy import create_engine, make_url, text

    spec = importlib.util.spec_from_file_location("seed_postgres", PROJECT_ROOT / "scripts" / "seed_postgres.py")
    assert spec is not None and spec.loader is not None
    seed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seed)
    admin = postgres_cluster["admin"]
    for _ in range(2):  # idempotent: the init service runs on every `docker compose up`
        assert seed.main(["--admin-url", admin, "--state-password", "st'ate", "--reader-password", "reader"]) == 0
    state = create_engine(make_url(admin).set(username="nl2sql_state", database="nl2sql_state"))
    with state.begin() as conn:  # the state role owns its database: the records store can create its tables
        conn.execute(text("CREATE TABLE IF NOT EXISTS seed_probe (a int)"))
        conn.execute(text("DROP TABLE seed_probe"))
    state.dispose()
    reader = create_engine(make_url(admin).set(username="nl2sql_ro", database="markets"))
    with reader.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM eq_mstr")).scalar_one() > 0
        assert conn.execute(text("SHOW default_transaction_read_only")).scalar_one() == "on"
    reader.dispose()
