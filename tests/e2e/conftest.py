"""End-to-end fixtures: a demo index in a temp folder, the app served the way ``make demo`` serves it (the
recipe's own command, from the project root, so ``.streamlit/config.toml`` applies) on a free port, and Debian's
Chromium driven by Playwright (no browser download; ``make browser`` installs Chromium).

Nothing here sleeps for a fixed time: the server is polled until its health check answers (within a generous
deadline) and the tests wait on elements and on the app's run state (see ``tests/e2e/steps.py``).
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.settings import DEMO_DB_PATH, PROJECT_ROOT, Settings

CHROMIUM = os.environ.get("NL2SQL_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = PROJECT_ROOT / "tests" / "e2e" / "artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 120_000  # default for every Playwright action and expect(): generous, so CPU load only slows tests
STARTUP_TIMEOUT_S = 240.0  # until the server's health check answers


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
    from database.connection import Database
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


@dataclass(frozen=True)
class Server:
    """A running ``streamlit run``: its URL, process id and combined stdout/stderr log."""

    url: str
    pid: int
    log: Path


def demo_command(script: str) -> list[str]:
    """The command ``make demo`` serves the app with (its recipe as printed by ``make -n demo``, with this
    interpreter's venv), running ``script`` in place of ``app.py``: same flags, same working directory, hence
    the same ``.streamlit/config.toml``."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make not found: the end-to-end tests start the app with `make demo`'s own command")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE") and k != "MFLAGS"}
    printed = subprocess.run([make, "-n", "--no-print-directory", "demo", f"VENV={sys.prefix}"], cwd=PROJECT_ROOT,
                             env=env, capture_output=True, text=True, check=True).stdout
    runs = [shlex.split(line) for line in printed.splitlines() if "streamlit" in line and " run " in line]
    assert len(runs) == 1, f"expected one `streamlit run` line in `make -n demo`:\n{printed}"
    cmd = runs[0]
    assert Path(cmd[0]).name == "streamlit" and cmd[1] == "run" and "app.py" in cmd, cmd
    return [script if arg == "app.py" else arg for arg in cmd]


def wait_healthy(proc: subprocess.Popen[bytes], url: str, log: Path, timeout_s: float) -> None:
    """Poll the health check until it answers 200; fail if the server exits or the deadline passes."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"streamlit did not answer its health check within {timeout_s:.0f} s; see {log}")
        try:
            proc.wait(timeout=0.5)  # the poll interval, cut short if the server exits
        except subprocess.TimeoutExpired:
            continue
        raise RuntimeError(f"streamlit exited early (code {proc.returncode}); see {log}")


@contextmanager
def serve(script: str, env: dict[str, str], log: Path, startup_timeout_s: float = STARTUP_TIMEOUT_S
          ) -> Iterator[Server]:
    """Serve ``script`` with ``make demo``'s command from the project root until the health check answers;
    stop it afterwards. Only the port differs from ``make demo`` (``STREAMLIT_SERVER_PORT``, a free one); other
    ``STREAMLIT_*`` variables are dropped, so the server's options are the repository's config file's."""
    cmd = demo_command(script)
    port = free_port()
    base = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, env={**base, **env, "STREAMLIT_SERVER_PORT": str(port)},
                                stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(proc, url, log, startup_timeout_s)
            yield Server(url=url, pid=proc.pid, log=log)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="session")
def fake_app(demo_state: dict[str, str]) -> Iterator[Server]:
    """The app with the scripted model (``tests/e2e/fake_app.py``), served like ``make demo``; shared by the
    browser tests (each opens its own browser session)."""
    with serve("tests/e2e/fake_app.py", {**demo_state, "NL2SQL_LOCAL_LLM__AUTO_START": "false"},
               ARTIFACTS / "fake_app.log") as server:
        yield server


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium through Playwright; skipped with the reason when Chromium is missing."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip(f"Chromium not found at {CHROMIUM}; `make browser` installs Debian's package")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)  # expect() retries up to this long (its own default is 5 s)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
                                      headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A page in a fresh browser context (a new Streamlit session), with generous timeouts."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    yield pg
    context.close()
