"""The error hierarchy, the exit-code rule, the Chroma folder checks and the transient-retry policy."""

from __future__ import annotations

import errno
import sqlite3
import struct
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from core.errors import (
    EXIT_FAILED,
    EXIT_SETUP,
    AnswerFailed,
    ConfigurationError,
    DatabaseUnavailable,
    IndexCorrupted,
    ModelEndpointError,
    NL2SQLError,
    StateStoreError,
    StorageError,
    classify,
    state_store_error,
)
from core.llm import LLMError
from core.llm_retry import call_with_retries, is_transient, question_deadline, retry_after_s
from core.settings import LLMSettings
from retrieval.integrity import check_folder, move_aside


def _status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    transport: Any = pytest.importorskip("httpx2") if "httpx2" in openai.APIStatusError.__init__.__annotations__.get(
        "response", "") else httpx  # openai 3 speaks httpx2, earlier versions httpx
    response = transport.Response(status, headers=headers,
                                  request=transport.Request("POST", "http://x/v1/chat/completions"))
    cls = {429: openai.RateLimitError, 400: openai.BadRequestError}.get(status, openai.InternalServerError)
    return cls("injected", response=response, body=None)


def test_every_error_has_a_message_a_remedy_and_the_documented_exit_code() -> None:
    for cls in (ConfigurationError, DatabaseUnavailable, IndexCorrupted, ModelEndpointError, StateStoreError,
                StorageError):
        err = cls("the cause")
        assert err.exit_code == EXIT_SETUP and str(err).startswith("the cause. ") and err.remedy
        assert err.to_json()["kind"] == cls.__name__ and err.to_json()["status"] == "error"
    assert AnswerFailed("no rows").exit_code == EXIT_FAILED
    assert "nl2sql index --rebuild" in str(IndexCorrupted("broken"))
    assert isinstance(LLMError("x"), ModelEndpointError) and str(LLMError("planner call failed: x")) == (
        "planner call failed: x")


def test_foreign_errors_are_classified() -> None:
    full = classify(OSError(errno.ENOSPC, "No space left on device", "/data/x"))
    assert isinstance(full, StorageError) and "disk is full" in str(full) and "/data/x" in str(full)
    assert isinstance(classify(OSError(errno.EROFS, "Read-only file system")), StorageError)
    locked = classify(sqlite3.OperationalError("database is locked"))
    assert isinstance(locked, DatabaseUnavailable) and "locked" in str(locked)
    assert classify(KeyError("x")) is None
    store = state_store_error(sqlite3.OperationalError("database is locked"), "postgresql://u:secret@h/db")
    assert isinstance(store, StateStoreError) and "secret" not in str(store) and "another writer" in str(store)
    assert isinstance(NL2SQLError("x"), Exception)


def test_transient_errors_and_retry_after() -> None:
    assert is_transient(_status_error(429)) and is_transient(_status_error(503))
    assert not is_transient(_status_error(400)) and not is_transient(ValueError("x"))
    assert is_transient(httpx.ConnectError("refused"))
    assert retry_after_s(_status_error(429, {"retry-after": "2"})) == 2.0
    assert retry_after_s(_status_error(429, {"retry-after-ms": "150"})) == 0.15
    assert retry_after_s(_status_error(429, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) is None


def test_retries_stop_after_their_count_and_at_the_deadline() -> None:
    cfg = LLMSettings(transient_retries=3, retry_backoff_s=0.0, retry_max_wait_s=0.0)
    calls: list[int] = []

    def failing() -> str:
        calls.append(1)
        raise _status_error(503)

    with pytest.raises(openai.InternalServerError):
        call_with_retries(cfg, failing)
    assert len(calls) == 4
    calls.clear()
    with question_deadline(0.0), pytest.raises(openai.InternalServerError):
        call_with_retries(cfg, failing)
    assert len(calls) == 1  # the budget is spent: no retry
    calls.clear()

    def bad_request() -> str:
        calls.append(1)
        raise _status_error(400)

    with pytest.raises(openai.BadRequestError):
        call_with_retries(cfg, bad_request)
    assert len(calls) == 1  # not transient: no retry
    answers = iter([_status_error(429), _status_error(502), "ok"])

    def recovering() -> str:
        item = next(answers)
        if isinstance(item, Exception):
            raise item
        return str(item)

    assert call_with_retries(cfg, recovering) == "ok"


def _segment(folder: Path, count: int, per_element: int = 100, data: int | None = None) -> None:
    folder.mkdir(parents=True)
    (folder / "header.bin").write_bytes(struct.pack("<iQQQQ", 1, 0, 1000, count, per_element) + b"\0" * 64)
    (folder / "data_level0.bin").write_bytes(b"\0" * (count * per_element if data is None else data))
    (folder / "length.bin").write_bytes(b"\0" * 4 * count)
    (folder / "link_lists.bin").write_bytes(b"")


def test_folder_checks_find_truncated_files(tmp_path: Path) -> None:
    check_folder(tmp_path / "absent")  # a new folder is fine
    good = tmp_path / "good"
    good.mkdir()
    with sqlite3.connect(good / "chroma.sqlite3") as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 50)
    _segment(good / "seg", 10)
    check_folder(good)
    data = (good / "chroma.sqlite3").read_bytes()
    (good / "chroma.sqlite3").write_bytes(data[: len(data) - 100])
    with pytest.raises(IndexCorrupted, match="truncated"):
        check_folder(good)
    (good / "chroma.sqlite3").write_bytes(data)
    (good / "seg" / "data_level0.bin").write_bytes(b"\0" * 50)
    with pytest.raises(IndexCorrupted, match="data_level0.bin is truncated"):
        check_folder(good)
    (good / "seg" / "header.bin").write_bytes(b"")
    with pytest.raises(IndexCorrupted, match="header.bin is truncated"):
        check_folder(good)
    (good / "seg" / "header.bin").unlink()
    (good / "seg" / "length.bin").unlink()
    with pytest.raises(IndexCorrupted, match="lacks header.bin, length.bin"):
        check_folder(good)


def test_move_aside_keeps_the_old_folder(tmp_path: Path) -> None:
    folder = tmp_path / "chroma"
    folder.mkdir()
    (folder / "keep.txt").write_text("data")
    first = move_aside(folder)
    folder.mkdir()
    second = move_aside(folder)
    assert first and second and first != second and (first / "keep.txt").read_text() == "data"
    assert move_aside(folder) is None and not folder.exists()
