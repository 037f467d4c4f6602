"""Fault injection: model endpoint, database, index, record store, disk, kill -9.

For every fault: the user gets a clear message (no traceback from the CLI, no exception out of ``ask``), no
acknowledged record is lost, and the next request works once the fault is gone. ``pytest -s`` prints the
summary table (also written to ``<pytest tmp>/faults-summary.md``); README "Hardening" holds it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.outcome import Outcome
from agent.runner import ask, build_deps
from cli.main import main as cli_main
from core.errors import IndexCorrupted, state_store_error
from core.settings import PROJECT_ROOT, ROLES, Settings
from database.connection import Database
from records.feedback import FeedbackStore
from retrieval.embeddings import OfflineMiniLM, get_embedding_function, install_embedding_model
from retrieval.indexing import index_database
from retrieval.store import ChromaStore
from tests.unit.conftest import SHOP_SQL
from tests.unit.faults import QUESTION, TALLY, FakeEndpoint, closed_port, mounted, read_only_bind

ROLE_FAST: dict[str, Any] = {"timeout_s": 0.3, "max_retries": 1, "transient_retries": 2, "retry_backoff_s": 0.01,
             "retry_max_wait_s": 0.05, "model": "fault-model"}
ENDPOINT_FAULTS = ["down", "slow", "garbage", "truncated", "badschema", "empty", "html", "reset",
                   "429", "500", "502", "503", "429-then-ok", "500-then-ok", "503-then-ok", "reset-then-ok"]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[FakeEndpoint]:
    """The fake OpenAI-compatible endpoint of the whole module."""
    fake = FakeEndpoint()
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """A shop database, its built index (a template to copy) and the embedding model folder."""
    root = tmp_path_factory.mktemp("faults")
    db = root / "shop.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript(SHOP_SQL)
    model_dir = install_embedding_model(root / "minilm")
    settings = _settings(root, db, root / "chroma", model_dir, dict.fromkeys(ROLES, "http://127.0.0.1:9/v1"))
    store = ChromaStore(root / "chroma", OfflineMiniLM(model_dir))
    index_database(Database.from_settings(settings), store, settings, progress=False)
    store.close()
    yield {"root": root, "db": db, "chroma": root / "chroma", "model": model_dir}
    summary = TALLY.table()
    (tmp_path_factory.getbasetemp() / "faults-summary.md").write_text(summary + "\n")
    print("\n\nFault-injection summary\n" + summary)


def _settings(root: Path, db: Path, chroma: Path, model_dir: Path, urls: dict[str, str]) -> Settings:
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{db}", "state_dir": root / "state", "local_llm": {"auto_start": False},
        "retrieval": {"chroma_path": chroma, "embedding_model_dir": model_dir},
        "generation": {"profile": "small", "candidates": [{"strategy": "direct"}]},
        "answerability": {"llm_check": False}, "query_timeout_s": 2.0, "question_budget_s": 20.0,
        "plan_format": "full",  # the planner is called (the compact plan needs no call with these tools)
        **{role: {**ROLE_FAST, "base_url": urls[role]} for role in ROLES},
    }
    return Settings(**values)


def _env(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    """The same settings as NL2SQL_* variables, for the CLI."""
    monkeypatch.setenv("NL2SQL_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("NL2SQL_STATE_DIR", str(settings.state_dir))
    monkeypatch.setenv("NL2SQL_LOCAL_LLM", '{"auto_start": false}')
    monkeypatch.setenv("NL2SQL_RETRIEVAL", json.dumps({"chroma_path": str(settings.retrieval.chroma_path),
                                                       "embedding_model_dir": str(settings.retrieval.embedding_model_dir)}))
    monkeypatch.setenv("NL2SQL_GENERATION", '{"profile": "small", "candidates": [{"strategy": "direct"}]}')
    monkeypatch.setenv("NL2SQL_ANSWERABILITY", '{"llm_check": false}')
    monkeypatch.setenv("NL2SQL_QUERY_TIMEOUT_S", "2")
    monkeypatch.setenv("NL2SQL_PLAN_FORMAT", "full")
    for role in ROLES:
        monkeypatch.setenv(f"NL2SQL_{role.upper()}", json.dumps({**ROLE_FAST, "base_url": settings.llm(role).base_url}))


@pytest.fixture()
def place(world: dict[str, Path], tmp_path: Path, endpoint: FakeEndpoint) -> dict[str, Any]:
    """A fresh copy of the database and index for one test, and settings pointing at the fake endpoint."""
    db = tmp_path / "shop.sqlite"
    shutil.copy(world["db"], db)
    chroma = tmp_path / "chroma"
    shutil.copytree(world["chroma"], chroma)
    urls: dict[str, str] = {r: endpoint.base_url(r) for r in ROLES}
    endpoint.script({"*": ["ok"]})
    return {"db": db, "chroma": chroma, "settings": _settings(tmp_path, db, chroma, world["model"], urls)}


def _ask(settings: Settings) -> Outcome:
    """``ask`` in-process on a store opened and closed here (so each test owns its Chroma client)."""
    store = ChromaStore(settings.retrieval.chroma_path, get_embedding_function(settings))
    try:
        return ask(build_deps(settings, store=store, start_local_llm=False), QUESTION)
    finally:
        store.close()


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli_main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def _clear(text: str) -> bool:
    return bool(text.strip()) and "Traceback" not in text and len(text) < 4000


def _plan_for(fault: str) -> list[str]:
    if fault.endswith("-then-ok"):
        return [fault.removesuffix("-then-ok"), "ok"]
    return [fault]


@pytest.mark.parametrize("target", ["planner", "generator", "*"])
@pytest.mark.parametrize("fault", ENDPOINT_FAULTS)
def test_endpoint_fault_in_ask(place: dict[str, Any], endpoint: FakeEndpoint, fault: str, target: str) -> None:
    settings: Settings = place["settings"]
    if fault == "down":
        dead = f"http://127.0.0.1:{closed_port()}/v1"
        roles = ROLES if target == "*" else tuple(r for r in ROLES if r == target)
        settings = settings.model_copy(update={r: settings.llm(r).model_copy(update={"base_url": dead}) for r in roles})
    else:
        endpoint.script({target: _plan_for(fault)} if target != "*" else {"*": _plan_for(fault)})
    try:
        out = _ask(settings)
        escaped = False
    except Exception:  # noqa: BLE001 - the assertion below reports it
        out, escaped = None, True
    clear = not escaped and out is not None and bool(out.answer) and "Traceback" not in (out.answer or "")
    TALLY.add("model endpoint (ask)", f"{fault} @ {target}", clear=clear, traceback=escaped)
    assert not escaped and out is not None
    if fault.endswith("-then-ok") or target == "planner":  # retried, or the standard plan replaces the planner's
        assert out.status == "ok" and out.rows == [[2]], out.answer
    else:
        assert out.status == "error" and "could not" in (out.answer or "").lower(), out.answer
    endpoint.script({"*": ["ok"]})
    again = _ask(place["settings"])
    assert again.status == "ok" and again.rows == [[2]], again.answer


@pytest.mark.parametrize("fault", ENDPOINT_FAULTS)
def test_endpoint_fault_in_cli(place: dict[str, Any], endpoint: FakeEndpoint, fault: str,
                               monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    settings: Settings = place["settings"]
    if fault == "down":
        dead = f"http://127.0.0.1:{closed_port()}/v1"
        settings = settings.model_copy(update={r: settings.llm(r).model_copy(update={"base_url": dead}) for r in ROLES})
    else:
        endpoint.script({"*": _plan_for(fault)})
    _env(monkeypatch, settings)
    code, text = _cli(capsys, "ask", QUESTION)
    TALLY.add("model endpoint (CLI)", fault, clear=_clear(text) and code in (0, 1), traceback="Traceback" in text)
    assert _clear(text) and code in (0, 1), text
    endpoint.script({"*": ["ok"]})
    _env(monkeypatch, place["settings"])
    code, text = _cli(capsys, "ask", QUESTION)
    assert code == 0 and "2" in text, text


def test_retries_honour_the_question_budget(place: dict[str, Any], endpoint: FakeEndpoint) -> None:
    settings: Settings = place["settings"]
    spent = settings.model_copy(update={"question_budget_s": 1e-6})
    endpoint.script({"*": ["503"]})
    out = _ask(spent)
    assert out.status == "error" and "time budget" in (out.answer or "")
    assert endpoint.calls("planner") == 1 and endpoint.calls("generator") == 1  # first tries only, no retry
    endpoint.script({"*": ["503"]})
    out = _ask(settings)
    assert endpoint.calls("generator") == 1 + int(ROLE_FAST["transient_retries"])
    endpoint.script({"*": ["429", "429", "ok"]})
    out = _ask(settings)
    assert out.status == "ok" and out.rows == [[2]]
    TALLY.add("model endpoint (ask)", "budget spent during 503s", clear=bool(out.answer))


def _corrupt_db(path: Path, fault: str) -> None:
    if fault == "missing":
        path.unlink()
    elif fault == "empty":
        path.write_bytes(b"")
    elif fault == "garbage":
        path.write_bytes(os.urandom(4096))
    elif fault == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    elif fault == "directory":
        path.unlink()
        path.mkdir()


DB_FAULTS = ["missing", "empty", "garbage", "truncated", "directory", "locked"]


@pytest.mark.parametrize("entry", ["ask", "cli ask", "cli sql", "cli index"])
@pytest.mark.parametrize("fault", DB_FAULTS)
def test_database_faults(place: dict[str, Any], fault: str, entry: str, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    db: Path = place["db"]
    backup = db.read_bytes()
    holder = None
    if fault == "locked":  # another connection holds an exclusive lock (rollback journal: readers are blocked)
        # the app's read-only connections wait out sqlite3's default 5 s busy timeout on every query; 0.2 s here
        # keeps the suite short (the message is the same)
        real_connect = sqlite3.connect
        monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real_connect(*a, **{"timeout": 0.2, **k}))
        holder = real_connect(db, isolation_level=None, timeout=0)
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("INSERT INTO customers VALUES (99, 'Lock', 'Nowhere')")
    else:
        _corrupt_db(db, fault)
    _env(monkeypatch, place["settings"])
    try:
        if entry == "ask":
            try:
                out, escaped = _ask(place["settings"]), False
            except Exception:  # noqa: BLE001
                out, escaped = None, True
            text = "" if out is None else out.answer or ""
            ok = not escaped and _clear(text) and out is not None and (out.status == "error" or fault == "locked")
        else:
            argv = {"cli ask": ["ask", QUESTION], "cli sql": ["sql", "SELECT COUNT(*) FROM customers"],
                    "cli index": ["index", "--quiet"]}[entry]
            code, text = _cli(capsys, *argv)
            escaped = "Traceback" in text
            ok = _clear(text) and code in (0, 1, 2) and (code != 0 or fault == "locked")
    finally:
        if holder is not None:
            holder.rollback()
            holder.close()
    TALLY.add("database", f"{fault} via {entry}", clear=ok, traceback=escaped)
    assert ok, text
    if fault == "directory":
        db.rmdir()
    db.write_bytes(backup)
    assert _ask(place["settings"]).rows == [[2]]


def _damage_index(chroma: Path, fault: str) -> None:
    segments = sorted(p for p in chroma.iterdir() if p.is_dir() and (p / "header.bin").exists())
    assert segments or not fault.startswith("hnsw"), "the template index has no HNSW segment on disk"
    seg = segments[0] if segments else chroma
    if fault == "sqlite-truncated":
        data = (chroma / "chroma.sqlite3").read_bytes()
        (chroma / "chroma.sqlite3").write_bytes(data[: len(data) // 2 + 100])
    elif fault == "sqlite-garbage":
        (chroma / "chroma.sqlite3").write_bytes(os.urandom(8192))
    elif fault == "sqlite-empty":
        (chroma / "chroma.sqlite3").write_bytes(b"")
    elif fault == "hnsw-header-empty":
        (seg / "header.bin").write_bytes(b"")
    elif fault == "hnsw-header-truncated":
        (seg / "header.bin").write_bytes((seg / "header.bin").read_bytes()[:10])
    elif fault == "hnsw-data-empty":
        (seg / "data_level0.bin").write_bytes(b"")
    elif fault == "hnsw-data-truncated":
        data = (seg / "data_level0.bin").read_bytes()
        (seg / "data_level0.bin").write_bytes(data[: len(data) // 4 + 7])  # cut inside an element slot
    elif fault == "hnsw-links-missing":
        (seg / "link_lists.bin").unlink()
    elif fault == "folder-deleted":
        shutil.rmtree(chroma)


INDEX_FAULTS = ["sqlite-truncated", "sqlite-garbage", "sqlite-empty", "hnsw-header-empty", "hnsw-header-truncated",
                "hnsw-data-empty", "hnsw-data-truncated", "hnsw-links-missing"]


@pytest.mark.parametrize("fault", INDEX_FAULTS)
def test_damaged_index_is_named_and_rebuilt(place: dict[str, Any], fault: str, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    chroma: Path = place["chroma"]
    _damage_index(chroma, fault)
    with pytest.raises(IndexCorrupted, match="index --rebuild"):
        ChromaStore(chroma, get_embedding_function(place["settings"]))
    _env(monkeypatch, place["settings"])
    results = []
    for argv in (["ask", QUESTION], ["index", "--quiet"], ["ask", QUESTION, "--json"]):
        code, text = _cli(capsys, *argv)
        results.append(code == 2 and _clear(text) and "nl2sql index --rebuild" in text)
        TALLY.add("index folder", f"{fault} via {' '.join(argv[:1] + argv[2:])}", clear=results[-1],
                  traceback="Traceback" in text)
    assert all(results)
    code, text = _cli(capsys, "index", "--rebuild", "--quiet")
    assert code == 0, text
    kept = [p for p in chroma.parent.iterdir() if p.name.startswith("chroma.broken-")]
    assert len(kept) == 1 and (kept[0] / "chroma.sqlite3").exists()  # nothing stored was deleted
    code, text = _cli(capsys, "ask", QUESTION)
    assert code == 0 and "2" in text, text


def test_index_folder_deleted_mid_run(place: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    settings: Settings = place["settings"]
    store = ChromaStore(place["chroma"], get_embedding_function(settings))
    deps = build_deps(settings, store=store, start_local_llm=False)
    assert ask(deps, QUESTION).rows == [[2]]
    _damage_index(place["chroma"], "folder-deleted")
    out = ask(deps, QUESTION)
    clear = "nl2sql index" in (out.answer or "") and out.status == "error"
    TALLY.add("index folder", "folder deleted mid-run (ask)", clear=clear)
    assert clear, out.answer
    with pytest.raises(IndexCorrupted, match="deleted"):
        index_database(deps.db, store, settings, progress=False)
    TALLY.add("index folder", "folder deleted mid-run (index)", clear=True)
    store.close()
    _env(monkeypatch, settings)
    assert _cli(capsys, "index", "--quiet")[0] == 0
    code, text = _cli(capsys, "ask", QUESTION)
    assert code == 0 and "2" in text, text


def _outcome(n: int) -> Outcome:
    return Outcome(answer="2", status="ok", question=f"{QUESTION} #{n}", database="shop", sql="SELECT 2",
                   columns=["n"], rows=[[2]])


def test_record_store_locked_by_another_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import records.db as records_db

    monkeypatch.setattr(records_db, "BUSY_TIMEOUT_S", 0.3, raising=False)  # engines are made per file: patch first
    path = tmp_path / "feedback.sqlite"
    store = FeedbackStore(path)
    acked = [store.record(_outcome(i), "up").id for i in range(3)]
    for attempt in range(3):
        holder = sqlite3.connect(path, isolation_level=None, timeout=5)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(Exception) as caught:  # noqa: PT011 - any driver error; the message is checked
                store.record(_outcome(100 + attempt), "up")
        finally:
            holder.rollback()
            holder.close()
        message = str(state_store_error(caught.value, path))
        clear = "locked" in message and "retry" in message.lower()
        present = {f.id for f in store.find(limit=1_000_000)}
        lost = len(set(acked) - present)
        TALLY.add("record store", f"locked by another writer #{attempt + 1}", clear=clear, lost=lost)
        assert clear and not lost, message
        acked.append(store.record(_outcome(200 + attempt), "up").id)  # the next write works
    assert set(acked) <= {f.id for f in store.find(limit=1_000_000)}


def _kill_when(proc: subprocess.Popen[str], ready: Any, deadline_s: float = 120.0) -> None:
    end = time.monotonic() + deadline_s
    while not ready() and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


FEEDBACK_WRITER = """
import sys
from agent.outcome import Outcome
from records.feedback import FeedbackStore
store = FeedbackStore(sys.argv[1])
for i in range(100000):
    f = store.record(Outcome(answer="2", status="ok", question=f"q{i}", database="shop", sql="SELECT 2",
                             columns=["n"], rows=[[2]]), "up")
    print(f.id, flush=True)
"""


def test_kill_9_during_feedback_writes(tmp_path: Path) -> None:
    path = tmp_path / "feedback.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", FEEDBACK_WRITER, str(path)], cwd=PROJECT_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    acked: list[int] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        acked.append(int(line))
        if len(acked) >= 20:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    acked += [int(x) for x in proc.stdout.read().split()]
    store = FeedbackStore(path)
    present = {f.id for f in store.find(limit=1_000_000)}
    lost = len(set(acked) - present)
    TALLY.add("kill -9", "during feedback writes", clear=True, lost=lost)
    assert len(acked) >= 20 and not lost
    assert store.record(_outcome(1), "up").id not in acked


def test_kill_9_during_indexing(place: dict[str, Any], world: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    settings: Settings = place["settings"]
    shutil.rmtree(place["chroma"])
    feedback = FeedbackStore(Path(settings.state_dir) / "feedback.sqlite")
    acked = feedback.record(_outcome(7), "up").id
    _env(monkeypatch, settings)
    env = {**os.environ}
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "index"], cwd=PROJECT_ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    _kill_when(proc, lambda: (place["chroma"] / "chroma.sqlite3").exists())
    code, text = _cli(capsys, "index", "--quiet")
    if code != 0:  # a kill that left the folder damaged: named, and --rebuild repairs it
        assert code == 2 and "--rebuild" in text and _clear(text), text
        code, text = _cli(capsys, "index", "--rebuild", "--quiet")
    assert code == 0, text
    lost = 0 if feedback.get(acked) is not None else 1
    TALLY.add("kill -9", "during indexing", clear=_clear(text), lost=lost)
    assert not lost
    code, text = _cli(capsys, "ask", QUESTION)
    assert code == 0 and "2" in text, text


def test_disk_full_and_read_only_state(place: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs / a read-only bind needs root (CI runs as root)")
    settings: Settings = place["settings"]
    full = tmp_path / "full"
    with mounted(["-t", "tmpfs", "-o", "size=64k", "tmpfs"], full) as ok:
        if not ok:
            pytest.skip("mount -t tmpfs is refused here")
        (full / "filler").write_bytes(b"\0" * 60_000)
        for name, argv, where in (("index into a full disk", ["index", "--quiet"], {"retrieval": "chroma"}),
                                  ("rebuild into a full disk", ["index", "--rebuild", "--quiet"], {"retrieval": "c2"})):
            chroma = full / where["retrieval"]
            _env(monkeypatch, settings.model_copy(update={"retrieval": settings.retrieval.model_copy(
                update={"chroma_path": chroma})}))
            code, text = _cli(capsys, *argv)
            clear = code == 2 and _clear(text)
            TALLY.add("disk full / read-only", name, clear=clear, traceback="Traceback" in text)
            assert clear, text
        store = FeedbackStore(full / "feedback.sqlite")
        with pytest.raises(Exception) as caught:  # noqa: PT011
            store.record(_outcome(1), "up")
        message = str(state_store_error(caught.value, full / "feedback.sqlite"))
        clear = "full" in message.lower() or "cannot be used" in message
        TALLY.add("disk full / read-only", "feedback write on a full disk", clear=clear)
        assert clear, message
    source, ro = tmp_path / "ro-src", tmp_path / "ro"
    source.mkdir()
    with read_only_bind(source, ro) as ok:
        if not ok:
            pytest.skip("a read-only bind mount is refused here")
        with pytest.raises(Exception) as caught:  # noqa: PT011
            FeedbackStore(ro / "feedback.sqlite").record(_outcome(1), "up")
        message = str(state_store_error(caught.value, ro / "feedback.sqlite"))
        clear = "read-only" in message or "cannot be used" in message
        TALLY.add("disk full / read-only", "feedback write on a read-only file system", clear=clear)
        assert clear, message
        _env(monkeypatch, settings.model_copy(update={"retrieval": settings.retrieval.model_copy(
            update={"chroma_path": ro / "chroma"})}))
        code, text = _cli(capsys, "index", "--quiet")
        clear = code == 2 and _clear(text)
        TALLY.add("disk full / read-only", "index on a read-only file system", clear=clear,
                  traceback="Traceback" in text)
        assert clear, text
    _env(monkeypatch, settings)
    code, text = _cli(capsys, "ask", QUESTION)
    assert code == 0 and "2" in text, text
