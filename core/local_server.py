"""The embedded llama.cpp server (xllamacpp) that serves the default local model over an OpenAI-compatible API.

Process model. ``xllamacpp.Server(params)`` runs llama.cpp's HTTP server *in-process*: the constructor loads
the model (blocking, 3-5 s for the 1.1 GB GGUF from the page cache on 2 cores) and returns once the server listens; HTTP and
decoding then run on native background threads, and deleting the object terminates and joins them (there is
no ``stop()`` method). The constructor also installs native SIGINT/SIGTERM handlers, which we replace with the
previous Python handlers right after it returns. Hence:

* ``nl2sql llm serve`` (:func:`serve_forever`) hosts the server in the current process and just keeps it alive
  until SIGINT/SIGTERM, then deletes it.
* Auto-start from other commands (:func:`ensure_local_server`) spawns a child
  ``python -m cli.llm serve --host .. --port ..`` so the model, its memory and its threads live
  outside the app's process; its output goes to ``<state_dir>/llm-server.log``. The child is terminated by
  :meth:`LocalLLMServer.stop` and at interpreter exit (``atexit``), shares the terminal's process group (Ctrl+C
  reaches it), and exits by itself within a second when its parent dies (it polls its parent pid), which
  covers a parent killed by SIGTERM/SIGKILL, where ``atexit`` does not run.

Server parameters: see :func:`core.server_params.build_params` (speculative decoding: ``local_llm.speculative``, off by default).
Nothing here downloads anything (``offline=True``). Measured on 2 cores (``scripts/bench_llm.py``): ~59 prompt
tok/s and ~16 generated tok/s for one request; parallel slots add little throughput, while a repeated prompt
prefix is served from the cache (1,580 tokens: 28 s -> 0.5 s).
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from core.model_files import DRAFT_MODEL, verify_model
from core.server_params import build_params
from core.server_probe import Probe as Probe
from core.server_probe import is_healthy as is_healthy
from core.server_probe import probe as probe
from core.server_probe import server_root as server_root
from core.settings import LOCAL_MODEL_NAME, PROJECT_ROOT, Settings

log = logging.getLogger(__name__)

LOG_NAME = "llm-server.log"


class LocalServerError(RuntimeError):
    """The local LLM server could not be started or did not become healthy; the message says why."""


class LocalLLMServer:
    """One local llama.cpp server, in this process (``in_process=True``) or as a child process (default).

    Use as a context manager (``start`` + ``wait_healthy`` on enter, ``stop`` on exit) or call the methods.
    """

    def __init__(self, settings: Settings, *, in_process: bool = False) -> None:
        """Prepare (without starting) a server for ``settings.local_llm``; its log goes to ``state_dir``."""
        self.local = settings.local_llm
        self.in_process = in_process
        self.log_path = settings.state_dir / LOG_NAME
        self._server: Any = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_offset = 0

    @property
    def base_url(self) -> str:
        """OpenAI base URL of this server, e.g. ``http://127.0.0.1:8765/v1``."""
        return f"http://{self.local.host}:{self.local.port}/v1"

    @property
    def running(self) -> bool:
        """True while the in-process server exists or the child process has not exited."""
        return self._server is not None or (self._proc is not None and self._proc.poll() is None)

    def start(self) -> None:
        """Verify the model (quick check) and start the server; returns before it is healthy in child mode.

        Raises:
            ModelFileError: the model file (or, with ``speculative="draft"``, the draft model file) is missing or
                corrupt; the message names the install command.
            LocalServerError: xllamacpp is not installed, or the in-process server failed (e.g. port in use).
        """
        if self.running:
            return
        verify_model(self.local.model_path, show_progress=sys.stderr.isatty())
        if self.local.speculative == "draft":
            verify_model(self.local.draft_model_path, spec=DRAFT_MODEL, show_progress=sys.stderr.isatty())
        if self.in_process:
            self._start_in_process()
        else:
            self._start_child()

    def _start_in_process(self) -> None:
        try:
            params = build_params(self.local)
            import xllamacpp
        except ImportError as exc:
            raise LocalServerError(
                "xllamacpp is not installed. Fix: pip install -e '.[local]' (or make setup)."
            ) from exc
        main_thread = threading.current_thread() is threading.main_thread()
        saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if main_thread else {}
        try:
            self._server = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise LocalServerError(
                f"xllamacpp could not start a server on {self.local.host}:{self.local.port} ({exc}); "
                "is the port already in use? See the llama.cpp log lines above."
            ) from exc
        finally:
            for sig, handler in saved.items():  # undo the native handlers installed by the constructor
                if handler is not None:
                    signal.signal(sig, handler)

    def _start_child(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        local = self.local
        opts = {
            "--host": local.host, "--port": local.port, "--model-path": local.model_path,
            "--n-parallel": local.n_parallel, "--ctx-size": local.ctx_size, "--n-threads": local.n_threads,
            "--speculative": local.speculative, "--draft-model-path": local.draft_model_path,
            "--draft-max": local.draft_max, "--draft-min": local.draft_min, "--draft-p-min": local.draft_p_min,
            "--ngram-size": local.ngram_size, "--ngram-max": local.ngram_max, "--parent-pid": os.getpid(),
            **({"--slot-save-path": local.slot_save_path} if local.slot_save_path else {}),
        }  # fmt: skip
        cmd = [
            sys.executable,
            "-m",
            "cli.llm",
            "serve",
            *(str(x) for kv in opts.items() for x in kv),
        ]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH")) if p)
        with self.log_path.open("ab") as logf:
            self._log_offset = logf.tell()
            logf.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} starting: {' '.join(cmd)}\n".encode())
            logf.flush()
            self._proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT, env=env
            )
        atexit.register(self.stop)
        log.info(
            "started local LLM server pid %d at %s (log: %s)", self._proc.pid, self.base_url, self.log_path
        )

    def log_tail(self, lines: int = 30) -> str:
        """Last ``lines`` lines this server wrote to its log file ('' in-process or when unreadable)."""
        try:
            with self.log_path.open("rb") as f:
                f.seek(self._log_offset)
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _failure(self, what: str) -> LocalServerError:
        tail = self.log_tail()
        where = f"\n--- last lines of {self.log_path} ---\n{tail}" if tail else ""
        return LocalServerError(f"{what}{where}")

    def wait_healthy(self, timeout_s: float | None = None) -> None:
        """Poll ``/health`` and ``/v1/models`` every 0.25 s until the server is ready.

        Args:
            timeout_s: seconds to wait; default ``settings.local_llm.startup_timeout_s``.

        Raises:
            LocalServerError: the child exited, or the timeout passed (message includes the log tail).
        """
        timeout_s = self.local.startup_timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + timeout_s
        while True:
            if self._proc is not None and self._proc.poll() is not None:
                raise self._failure(
                    f"The local LLM server exited with code {self._proc.returncode} before it was ready."
                )
            if is_healthy(self.base_url, timeout_s=1.0):
                return
            if time.monotonic() > deadline:
                raise self._failure(
                    f"The local LLM server at {self.base_url} was not healthy after {timeout_s} s."
                )
            time.sleep(0.25)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Shut the server down (idempotent).

        Deletes the in-process server, or sends SIGTERM to the child, waiting up to ``timeout_s`` seconds
        before SIGKILL.
        """
        server, self._server = self._server, None
        del server  # the native destructor terminates the decode loop and joins its threads
        proc, self._proc = self._proc, None
        if proc is not None:
            atexit.unregister(self.stop)
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout_s)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            log.info("stopped local LLM server pid %d", proc.pid)

    def __enter__(self) -> LocalLLMServer:
        """Start the server and wait until it is healthy (stopping it again if that fails)."""
        self.start()
        try:
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop the server."""
        self.stop()


def _wait_for_other(base_url: str, deadline: float) -> bool:
    """Wait until another process's server at ``base_url`` is healthy; False when it goes down or times out."""
    while time.monotonic() < deadline:
        state = probe(base_url, timeout_s=1.0)
        if state in ("ok", "down"):
            return state == "ok"
        time.sleep(0.5)
    return False


def ensure_local_server(settings: Settings) -> LocalLLMServer | None:
    """Make sure the local server answers when some role uses it; return the server *we* started, if any.

    Returns ``None`` when no role uses the local default endpoint, when ``local_llm.auto_start`` is False, or
    when a healthy server already answers (it is reused). Otherwise starts a child server, waits up to
    ``startup_timeout_s`` seconds and returns it (it stops at exit, or call ``stop()``).

    Raises:
        ModelFileError: the model file is missing or corrupt.
        LocalServerError: the port is held by a server of another model, or start-up failed (with log tail).
    """
    local = settings.local_llm
    if not settings.uses_local_llm() or not local.auto_start:
        return None
    server = LocalLLMServer(settings)
    deadline = time.monotonic() + local.startup_timeout_s
    state = probe(server.base_url)
    if state == "foreign":
        raise LocalServerError(
            f"A server at {server.base_url} does not serve {LOCAL_MODEL_NAME!r}. Stop it, or set "
            "local_llm.port (NL2SQL_LOCAL_LLM__PORT) and the roles' base_url to a free port."
        )
    if state == "ok" or (state == "loading" and _wait_for_other(server.base_url, deadline)):
        return None
    server.start()
    try:
        server.wait_healthy(max(1.0, deadline - time.monotonic()))
    except LocalServerError:
        server.stop()
        if probe(server.base_url) != "down" and _wait_for_other(server.base_url, deadline):
            return None  # another process won the race for the port; reuse its server
        raise
    return server


def serve_forever(settings: Settings, *, parent_pid: int | None = None) -> None:
    """Serve the local model in this process until SIGINT/SIGTERM, then stop cleanly.

    Serving also ends when ``parent_pid`` is no longer our parent.

    Raises:
        ModelFileError: the model file is missing or corrupt.
        LocalServerError: something already listens at the address, or the server failed to start.
    """
    server = LocalLLMServer(settings, in_process=True)
    if probe(server.base_url) != "down":
        raise LocalServerError(
            f"A server already answers at {server.base_url}; stop it or choose another --port."
        )
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        started = time.monotonic()
        server.start()
        server.wait_healthy()
        log.info(
            "serving %s at %s (ready in %.1f s; Ctrl+C to stop)",
            LOCAL_MODEL_NAME,
            server.base_url,
            time.monotonic() - started,
        )
        while not stop.wait(1.0):
            if parent_pid is not None and os.getppid() != parent_pid:
                log.warning("parent process %d is gone; shutting down", parent_pid)
                break
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        log.info("local LLM server stopped")
