"""End-to-end fixtures: a demo index in a temp folder, the app served by ``streamlit run`` on a free port,
and Debian's Chromium driven by Playwright (no browser download; ``make browser`` installs Chromium)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.configuration import DEMO_DB_PATH, PROJECT_ROOT, Settings

CHROMIUM = os.environ.get("NL2SQL_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = PROJECT_ROOT / "tests" / "e2e" / "artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/e2e is marked ``e2e``."""
    for item in items:
        if "tests/e2e" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def demo_state(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for an app on the demo database with its indexes built in a temp folder."""
    from agent.runner import open_store
    from retrieval.database import Database
    from retrieval.indexing import index_database, load_examples

    if not DEMO_DB_PATH.exists():
        from data.markets.generate import generate

        generate(DEMO_DB_PATH)
    root = tmp_path_factory.mktemp("e2e")
    env = {"NL2SQL_STATE_DIR": str(root / "state"), "NL2SQL_RETRIEVAL__CHROMA_PATH": str(root / "chroma")}
    settings = Settings(state_dir=root / "state", retrieval={"chroma_path": root / "chroma"})
    path = settings.resolved_examples_path()
    index_database(Database.from_settings(settings), open_store(settings), settings,
                   examples=load_examples(path) if path else None, progress=False)
    return env


def serve(script: str, env: dict[str, str], log: Path) -> Iterator[str]:
    """Run ``streamlit run script`` until the health check answers; yield its URL; stop it afterwards."""
    port = free_port()
    streamlit = str(Path(sys.executable).with_name("streamlit"))
    cmd = [streamlit, "run", script, "--server.port", str(port), "--server.headless", "true",
           "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(120):
                try:
                    if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                        break
                except OSError:
                    time.sleep(0.5)
                if proc.poll() is not None:
                    raise RuntimeError(f"streamlit exited early; see {log}")
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium through Playwright; skipped with the reason when Chromium is missing."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip(f"Chromium not found at {CHROMIUM}; `make browser` installs Debian's package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
                                      headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
