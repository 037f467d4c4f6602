"""Record store faults: a locked writer, kill -9 during writes and indexing, a full or read-only disk."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent.outcome import Outcome
from core.errors import state_store_error
from core.settings import PROJECT_ROOT, Settings
from records.feedback import FeedbackStore
from tests.unit.fault_injection.faults import QUESTION, TALLY, mounted, read_only_bind
from tests.unit.fault_injection.support import env_for, is_clear, run_cli


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
    env_for(monkeypatch, settings)
    env = {**os.environ}
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "index"], cwd=PROJECT_ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    _kill_when(proc, lambda: (place["chroma"] / "chroma.sqlite3").exists())
    code, text = run_cli(capsys, "index", "--quiet")
    if code != 0:  # a kill that left the folder damaged: named, and --rebuild repairs it
        assert code == 2 and "--rebuild" in text and is_clear(text), text
        code, text = run_cli(capsys, "index", "--rebuild", "--quiet")
    assert code == 0, text
    lost = 0 if feedback.get(acked) is not None else 1
    TALLY.add("kill -9", "during indexing", clear=is_clear(text), lost=lost)
    assert not lost
    code, text = run_cli(capsys, "ask", QUESTION)
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
            env_for(monkeypatch, settings.model_copy(update={"retrieval": settings.retrieval.model_copy(
                update={"chroma_path": chroma})}))
            code, text = run_cli(capsys, *argv)
            clear = code == 2 and is_clear(text)
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
        env_for(monkeypatch, settings.model_copy(update={"retrieval": settings.retrieval.model_copy(
            update={"chroma_path": ro / "chroma"})}))
        code, text = run_cli(capsys, "index", "--quiet")
        clear = code == 2 and is_clear(text)
        TALLY.add("disk full / read-only", "index on a read-only file system", clear=clear,
                  traceback="Traceback" in text)
        assert clear, text
    env_for(monkeypatch, settings)
    code, text = run_cli(capsys, "ask", QUESTION)
    assert code == 0 and "2" in text, text

