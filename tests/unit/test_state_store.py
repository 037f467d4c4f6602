"""The records store's engine: old SQLite files adopted by the migrations, PostgreSQL under concurrent writers,
the ``state_url`` setting and its errors."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from agent.memory import postgres_conninfo
from agent.outcome import Outcome
from core.settings import Settings
from records.db import dispose_all
from records.feedback import FeedbackStore
from records.paths import feedback_path, runs_path
from records.runs import RunStore
from tests.unit.state_fixtures import empty_tables, pg_state_db_fixture, state_url_fixture  # noqa: F401 (fixtures)

# The DDL of the records files before migrations existed (records/feedback.py and records/runs.py, 2025).
OLD_FEEDBACK_DDL = """
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT, created REAL NOT NULL, updated REAL NOT NULL, run_id TEXT,
    thread_id TEXT, database TEXT, question TEXT NOT NULL, sql TEXT, result_digest TEXT, row_count INTEGER,
    rating TEXT NOT NULL, comment TEXT, status TEXT NOT NULL, langsmith TEXT);
CREATE INDEX IF NOT EXISTS feedback_status ON feedback (status, database);
"""
OLD_RUNS_DDL = """
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, database TEXT, created REAL NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, thread_id TEXT, created REAL NOT NULL, question TEXT NOT NULL, database TEXT,
    status TEXT, latency_s REAL, llm_calls INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER,
    outcome TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS runs_thread ON runs (thread_id, created);
"""


def _old_files(state_dir: Path) -> None:
    """Write feedback.sqlite and runs.sqlite as the old code did: 3 feedback rows (one deleted: ids 1, 3, 4
    remain, so AUTOINCREMENT must not reuse 4), one thread with two runs."""
    state_dir.mkdir(parents=True)
    with sqlite3.connect(state_dir / "feedback.sqlite") as conn:
        conn.executescript(OLD_FEEDBACK_DDL)
        for i in range(1, 5):
            conn.execute("INSERT INTO feedback (created, updated, run_id, thread_id, database, question, sql, "
                         "rating, status) VALUES (?, ?, ?, 't1', 'shop', ?, 'SELECT 1', 'up', 'approved')",
                         (1000.0 + i, 1000.0 + i, f"r{i}", f"Question {i}?"))
        conn.execute("DELETE FROM feedback WHERE id = 2")
    with sqlite3.connect(state_dir / "runs.sqlite") as conn:
        conn.executescript(OLD_RUNS_DDL)
        conn.execute("INSERT INTO threads VALUES ('t1', 'Question 1?', 'shop', 1000.5, 1002.5)")
        for i in (1, 2):
            out = Outcome(run_id=f"r{i}", thread_id="t1", question=f"Question {i}?", sql="SELECT 1", status="ok",
                          database="shop", columns=["n"], rows=[[i]])
            conn.execute("INSERT INTO runs VALUES (?, 't1', ?, ?, 'shop', 'ok', 0.5, 1, 10, 5, ?)",
                         (f"r{i}", 1000.0 + i, f"Question {i}?", out.model_dump_json()))
    for name in ("feedback.sqlite", "runs.sqlite"):
        with sqlite3.connect(state_dir / name) as conn:
            assert "alembic_version" not in {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}


def test_old_sqlite_record_files_are_migrated_without_losing_rows(tmp_path: Path) -> None:
    settings = Settings(state_dir=tmp_path / "state")
    _old_files(tmp_path / "state")
    feedback, runs = FeedbackStore(feedback_path(settings)), RunStore(runs_path(settings))

    assert [f.id for f in feedback.find()] == [4, 3, 1]
    assert [e["question"] for e in feedback.approved_examples("shop")] == ["Question 1?", "Question 3?",
                                                                           "Question 4?"]
    assert [t["turns"] for t in runs.threads()] == [2]
    assert [o.rows for o in runs.thread_runs("t1")] == [[[1]], [[2]]]

    new = feedback.record(Outcome(question="Later?", sql="SELECT 2", database="shop", status="ok"), "down")
    assert new.id == 5  # AUTOINCREMENT kept: a deleted id is never handed out again
    runs.save_run(Outcome(run_id="r3", thread_id="t1", question="Third?", status="ok", database="shop"))
    assert runs.threads()[0]["turns"] == 3

    dispose_all()  # a new process: the migration runs again and finds nothing to do
    assert len(FeedbackStore(feedback_path(settings)).find()) == 4
    for name in ("feedback.sqlite", "runs.sqlite"):
        with sqlite3.connect(tmp_path / "state" / name) as conn:
            assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("0003_feedback_confidence",)]
            assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_new_stores_create_their_tables(tmp_path: Path, state_url: str) -> None:
    location = state_url or tmp_path / "deep" / "fb.sqlite"
    assert FeedbackStore(location).find() == [] and RunStore(location).threads() == []
    engine = create_engine(state_url or f"sqlite:///{location}")
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0003_feedback_confidence"
    finally:
        engine.dispose()


def test_concurrent_writers_on_postgresql_lose_nothing(pg_state_db: str) -> None:
    empty_tables(pg_state_db)
    writers, each = 6, 15
    start, errors = threading.Barrier(writers), []

    def write(w: int) -> None:
        feedback, runs = FeedbackStore(pg_state_db), RunStore(pg_state_db)  # one store object per thread
        try:
            start.wait(timeout=60)
            for i in range(each):
                out = Outcome(run_id=f"w{w}-{i}", thread_id=f"t{i % 3}", question=f"Q {w}/{i}?", sql="SELECT 1",
                              status="ok", database="shop")
                runs.save_run(out)
                rec = feedback.record(out, "up")
                feedback.update(rec.id, status="approved")
        except Exception as exc:  # reported below; a lost thread must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    records = FeedbackStore(pg_state_db).find(limit=10_000)
    assert len(records) == writers * each and {r.status for r in records} == {"approved"}
    assert len({r.id for r in records}) == writers * each
    runs = RunStore(pg_state_db)
    assert len(runs.runs(limit=10_000)) == writers * each
    assert sorted(t["turns"] for t in runs.threads()) == [writers * each // 3] * 3


def test_state_url_setting_and_bad_urls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NL2SQL_STATE_URL", "postgresql+psycopg://me:secret@db.example/state")
    settings = Settings(state_dir=tmp_path)
    assert feedback_path(settings) == runs_path(settings) == "postgresql+psycopg://me:secret@db.example/state"
    assert postgres_conninfo(settings.state_url) == "postgresql://me:secret@db.example/state"
    assert postgres_conninfo("") is None and postgres_conninfo("sqlite:///x.sqlite") is None
    monkeypatch.delenv("NL2SQL_STATE_URL")
    assert feedback_path(Settings(state_dir=tmp_path)) == tmp_path / "feedback.sqlite"
    with pytest.raises(ValueError, match="SQLite or PostgreSQL"):
        FeedbackStore("mysql+pymysql://u@h/db").find()
    with pytest.raises(ValueError, match="not a valid database URL"):
        RunStore("postgresql+psycopg://u@h:notaport/db").threads()
    assert json.dumps(RunStore(tmp_path / "r.sqlite").runs(search="100%_")) == "[]"
