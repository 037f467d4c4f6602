"""A local Chroma server (``chroma run``, shipped with chromadb) for scripts and tests.

    python scripts/chroma_server.py start [--port 8000] [--dir .nl2sql/chroma-server]   # prints the URL
    python scripts/chroma_server.py stop [--dir DIR]

``start`` runs ``chroma run --host 127.0.0.1`` in the background with its data, log (``server.log``) and pid
file (``server.pid``) in ``DIR``, waits until ``/api/v2/heartbeat`` answers (or fails with the log's tail) and
prints the URL to put in ``NL2SQL_RETRIEVAL__CHROMA_URL``; re-running it reuses a running server. ``stop`` ends
that process. ``make chroma`` runs the same server in the foreground. Tests use :class:`ChromaServer` as a
context manager on a free port (:func:`free_port`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

DEFAULT_PORT = 8000
DEFAULT_DIR = Path(__file__).resolve().parents[1] / ".nl2sql" / "chroma-server"
HOST = "127.0.0.1"


def chroma_binary() -> Path:
    """The ``chroma`` command beside this Python (the venv), else on PATH.

    Raises:
        RuntimeError: chromadb's ``chroma`` command is not installed.
    """
    beside = Path(sys.executable).with_name("chroma")
    found = beside if beside.is_file() else (Path(p) if (p := shutil.which("chroma")) else None)
    if found is None:
        raise RuntimeError("the `chroma` command (from the chromadb package) is not installed")
    return found


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def heartbeat(url: str) -> bool:
    """True when the Chroma server at ``url`` answers ``GET /api/v2/heartbeat`` with 200 (2 s timeout)."""
    try:
        return httpx.get(f"{url}/api/v2/heartbeat", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


class ChromaServer:
    """One ``chroma run`` process on ``127.0.0.1:port`` persisting to ``data_dir``.

    ``start()`` returns the URL once the heartbeat answers; ``stop()`` ends the process (its whole process
    group) and is safe to call twice. As a context manager it stops the server on exit, whatever happened.

    Raises (from ``start``):
        RuntimeError: no ``chroma`` command, the process exited, or no heartbeat within ``timeout_s`` seconds
            (the message carries the log's tail).
    """

    def __init__(self, data_dir: Path, port: int | None = None, timeout_s: float = 120.0) -> None:
        """Describe the server (nothing starts yet); ``port`` None picks a free one."""
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.timeout_s = timeout_s
        self.url = f"http://{HOST}:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def log_path(self) -> Path:
        """The server's combined stdout/stderr."""
        return self.data_dir / "server.log"

    def _log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-800:].strip() if self.log_path.exists() else ""

    def start(self) -> str:
        """Start the process and wait (polling, up to ``timeout_s``) until it answers; returns the URL."""
        binary = chroma_binary()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [str(binary), "run", "--host", HOST, "--port", str(self.port), "--path", str(self.data_dir)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
            )
        (self.data_dir / "server.pid").write_text(str(self.process.pid))
        deadline = time.monotonic() + self.timeout_s
        while not heartbeat(self.url):
            if self.process.poll() is not None:
                self.stop()
                raise RuntimeError(f"`chroma run` exited with status {self.process.returncode}: {self._log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"no heartbeat from {self.url} within {self.timeout_s:.0f} s: {self._log_tail()}")
            time.sleep(0.2)
        return self.url

    def stop(self) -> None:
        """End the server process and its group (SIGTERM, then SIGKILL after 10 s); no-op when not running."""
        if self.process is None:
            return
        _end_group(self.process.pid, self.process)
        (self.data_dir / "server.pid").unlink(missing_ok=True)

    def __enter__(self) -> str:
        """Start the server; the URL."""
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        """Stop the server."""
        self.stop()


def _end_group(pid: int, process: subprocess.Popen[bytes] | None = None) -> None:
    """SIGTERM the process group led by ``pid`` (our own ``start_new_session`` child), SIGKILL when it lingers."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    if process is not None:
        try:
            process.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            pass
    else:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
            time.sleep(0.1)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    if process is not None:
        process.wait(timeout=10)


def _recorded_pid(data_dir: Path) -> int | None:
    """The pid in ``data_dir/server.pid`` when that process is still a running ``chroma``, else None."""
    try:
        pid = int((data_dir / "server.pid").read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return None
    return pid if b"chroma" in cmdline else None


def main(argv: list[str] | None = None) -> int:
    """Command line: ``start`` prints the server URL; ``stop`` ends it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["start", "stop"])
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(argv)
    pid = _recorded_pid(args.dir)
    if args.command == "stop":
        if pid is not None:
            _end_group(pid)
        (args.dir / "server.pid").unlink(missing_ok=True)
        return 0
    url = f"http://{HOST}:{args.port}"
    if pid is not None and heartbeat(url):
        print(url)
        return 0
    server = ChromaServer(args.dir, args.port)
    try:
        print(server.start())
    except RuntimeError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    server.process = None  # leave it running in the background; `stop` ends it by its pid file
    return 0


if __name__ == "__main__":
    sys.exit(main())
