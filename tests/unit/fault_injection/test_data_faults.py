"""Database and index faults: missing, empty, garbage or locked files, damaged or deleted index folders."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent.runner import ask, build_deps
from core.errors import IndexCorrupted
from core.settings import Settings
from retrieval.embeddings import get_embedding_function
from retrieval.indexing import index_database
from retrieval.store import ChromaStore
from tests.unit.fault_injection.faults import QUESTION, TALLY
from tests.unit.fault_injection.support import ask_once, env_for, is_clear, run_cli


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
    env_for(monkeypatch, place["settings"])
    try:
        if entry == "ask":
            try:
                out, escaped = ask_once(place["settings"]), False
            except Exception:  # noqa: BLE001
                out, escaped = None, True
            text = "" if out is None else out.answer or ""
            ok = not escaped and is_clear(text) and out is not None and (out.status == "error" or fault == "locked")
        else:
            argv = {"cli ask": ["ask", QUESTION], "cli sql": ["sql", "SELECT COUNT(*) FROM customers"],
                    "cli index": ["index", "--quiet"]}[entry]
            code, text = run_cli(capsys, *argv)
            escaped = "Traceback" in text
            ok = is_clear(text) and code in (0, 1, 2) and (code != 0 or fault == "locked")
    finally:
        if holder is not None:
            holder.rollback()
            holder.close()
    TALLY.add("database", f"{fault} via {entry}", clear=ok, traceback=escaped)
    assert ok, text
    if fault == "directory":
        db.rmdir()
    db.write_bytes(backup)
    assert ask_once(place["settings"]).rows == [[2]]


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
    env_for(monkeypatch, place["settings"])
    results = []
    for argv in (["ask", QUESTION], ["index", "--quiet"], ["ask", QUESTION, "--json"]):
        code, text = run_cli(capsys, *argv)
        results.append(code == 2 and is_clear(text) and "nl2sql index --rebuild" in text)
        TALLY.add("index folder", f"{fault} via {' '.join(argv[:1] + argv[2:])}", clear=results[-1],
                  traceback="Traceback" in text)
    assert all(results)
    code, text = run_cli(capsys, "index", "--rebuild", "--quiet")
    assert code == 0, text
    kept = [p for p in chroma.parent.iterdir() if p.name.startswith("chroma.broken-")]
    assert len(kept) == 1 and (kept[0] / "chroma.sqlite3").exists()  # nothing stored was deleted
    code, text = run_cli(capsys, "ask", QUESTION)
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
    env_for(monkeypatch, settings)
    assert run_cli(capsys, "index", "--quiet")[0] == 0
    code, text = run_cli(capsys, "ask", QUESTION)
    assert code == 0 and "2" in text, text
    assert "What was computed:\n  Reads customers." in text  # the account of the SQL, under it


