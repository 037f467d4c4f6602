"""Fault-injection helpers: a scriptable OpenAI-compatible endpoint, mounts, and the suite's tally.

:class:`FakeEndpoint` is a tiny ``http.server`` in a thread speaking the chat-completions API on 127.0.0.1;
each role gets its own path (``/<role>/v1``) and a queue of behaviours (``ok``, ``garbage``, ``truncated``,
``badschema``, ``empty``, ``html``, ``429``, ``500``, ``502``, ``503``, ``reset``, ``slow``), the last repeating.
An ``ok`` reply is built from the JSON schema the client asks for (``sql`` fields get :data:`ANSWER_SQL`).
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ANSWER_SQL = "SELECT COUNT(*) AS n FROM customers WHERE country = 'Brazil'"
QUESTION = "How many customers are from Brazil?"


def instance_of(schema: dict[str, Any], defs: dict[str, Any] | None = None, name: str = "") -> Any:
    """A small value valid against the JSON ``schema`` (``$ref``, ``anyOf``, enums, objects, arrays)."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return instance_of(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, name)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return instance_of(schema["anyOf"][0], defs, name)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: instance_of(v, defs, k) for k, v in props.items()}
    if kind == "array":
        return [instance_of(schema.get("items", {}), defs, name) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    if name == "sql":
        return ANSWER_SQL
    return "x" * schema.get("minLength", 1) if name != "reasoning" else "count the Brazilian customers"


def _completion(content: str, model: str) -> bytes:
    return json.dumps({
        "id": "chatcmpl-fault", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }).encode()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:  # keep pytest's output clean
        return

    def _send(self, status: int, body: bytes, ctype: str = "application/json", headers: dict[str, str] | None = None
              ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        role = self.path.strip("/").split("/", 1)[0]
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        behaviour = self.server.next_behaviour(role)
        fmt = (request.get("response_format") or {}).get("json_schema") or {}
        good = json.dumps(instance_of(fmt["schema"])) if fmt.get("schema") else "Two customers are from Brazil."
        model = str(request.get("model", "fake"))
        if behaviour == "slow":
            self.server.release.wait(timeout=15)
            behaviour = "ok"
        if behaviour == "ok":
            self._send(200, _completion(good, model))
        elif behaviour == "garbage":
            self._send(200, b"\x00\xffnot json at all{{{")
        elif behaviour == "truncated":
            self._send(200, _completion(good[: max(1, len(good) // 2)], model))
        elif behaviour == "badschema":
            self._send(200, _completion(json.dumps({"unexpected": [1, 2, 3]}), model))
        elif behaviour == "empty":
            self._send(200, json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": model,
                                        "choices": []}).encode())
        elif behaviour == "html":
            self._send(200, b"<html><body>Bad gateway</body></html>", ctype="text/html")
        elif behaviour == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()
        else:
            status = int(behaviour)
            body = json.dumps({"error": {"message": f"injected {status}", "type": "fault"}}).encode()
            self._send(status, body, headers={"Retry-After": "0"} if status == 429 else None)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.plans: dict[str, list[str]] = {}
        self.calls: dict[str, int] = {}
        self.release = threading.Event()
        self._lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet: injected resets and abandoned slow replies are expected here."""

    def next_behaviour(self, role: str) -> str:
        with self._lock:
            plan = self.plans.get(role) or self.plans.get("*") or ["ok"]
            n = self.calls.get(role, 0)
            self.calls[role] = n + 1
            return plan[min(n, len(plan) - 1)]


@dataclass
class FakeEndpoint:
    """The running fake endpoint; :meth:`script` sets behaviours, :meth:`base_url` gives a role's URL."""

    server: _Server = field(default_factory=_Server)

    def __post_init__(self) -> None:
        """Serve in a daemon thread."""
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def base_url(self, role: str) -> str:
        """``http://127.0.0.1:<port>/<role>/v1``."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/{role}/v1"

    def script(self, plans: dict[str, list[str]]) -> None:
        """Behaviours per role (``"*"``: every role not named); resets the call counters."""
        with self.server._lock:
            self.server.plans, self.server.calls = dict(plans), {}

    def calls(self, role: str) -> int:
        """Requests received for ``role`` since the last :meth:`script`."""
        return self.server.calls.get(role, 0)

    def close(self) -> None:
        """Release slow handlers and stop."""
        self.server.release.set()
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> int:
    """A local port nothing listens on (bound then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def mounted(args: list[str], target: Path) -> Iterator[bool]:
    """Run ``mount args... target`` for the block; yields False (nothing mounted) when mounting is refused."""
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", *args, str(target)], capture_output=True, check=False).returncode == 0
    try:
        yield done
    finally:
        if done:
            subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)


@contextmanager
def read_only_bind(source: Path, target: Path) -> Iterator[bool]:
    """``source`` bound read-only at ``target`` (root can then not write either); False when refused."""
    with mounted(["--bind", str(source)], target) as ok:
        if ok:
            ok = subprocess.run(["mount", "-o", "remount,ro,bind", str(target)], capture_output=True,
                                check=False).returncode == 0
        yield ok


@dataclass
class Tally:
    """One row per injected fault: family, fault, clear message?, traceback shown?, records lost."""

    rows: list[tuple[str, str, bool, bool, int]] = field(default_factory=list)

    def add(self, family: str, fault: str, *, clear: bool, traceback: bool = False, lost: int = 0) -> None:
        """Record one fault's outcome."""
        self.rows.append((family, fault, clear, traceback, lost))

    def table(self) -> str:
        """Markdown table per family plus a total line."""
        fams: dict[str, list[tuple[str, str, bool, bool, int]]] = {}
        for row in self.rows:
            fams.setdefault(row[0], []).append(row)
        lines = ["| fault family | faults tried | clear messages | tracebacks | records lost |",
                 "|---|---:|---:|---:|---:|"]
        for fam, rows in [*fams.items(), ("**total**", self.rows)]:
            lines.append(f"| {fam} | {len(rows)} | {sum(r[2] for r in rows)} | {sum(r[3] for r in rows)} | "
                         f"{sum(r[4] for r in rows)} |")
        return "\n".join(lines)


TALLY = Tally()
