"""Users on the records (threads, runs, feedback filtered per user) and the SQL audit log, on SQLite and
PostgreSQL; the 0001 -> 0002 migration of an existing file; the audit hook of the agent's execute step."""

from __future__ import annotations

import json
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine

from agent.outcome import Outcome
from agent.runner import ask, build_deps
from core.settings import Settings
from database.connection import Database
from records.audit import AuditLog
from records.db import MIGRATIONS_DIR, dispose_all
from records.feedback import FeedbackStore
from records.runs import RunStore
from retrieval.store import ChromaStore
from tests.unit.app_fixtures import fake_models
from tests.unit.state_fixtures import pg_state_db_fixture, state_url_fixture  # noqa: F401 (fixtures)
from tools.audit import ExecutedSQL, audit_scope, run_audited


def outcome(question: str, run_id: str, thread_id: str) -> Outcome:
    return Outcome(run_id=run_id, thread_id=thread_id, question=question, sql="SELECT 1", database="shop",
                   columns=["n"], rows=[[1]], status="ok")


def test_conversations_are_filtered_per_user(tmp_path: Path, state_url: str) -> None:
    store = RunStore(state_url or tmp_path / "runs.sqlite")
    store.save_run(outcome("Alice one?", "a1", "ta"), user="alice")
    store.save_run(outcome("Alice two?", "a2", "ta"), user="alice")
    store.save_run(outcome("Bob one?", "b1", "tb"), user="bob")
    store.save_run(outcome("Nobody?", "n1", "tn"))  # a caller that gives no user (older code, scripts)

    assert [(t["id"], t["turns"], t["user_id"]) for t in store.threads(user="alice")] == [("ta", 2, "alice")]
    assert [t["id"] for t in store.threads(user="bob")] == ["tb"]
    assert {t["id"] for t in store.threads()} == {"ta", "tb", "tn"}  # no user: everything (developers)
    assert store.threads(user="carol") == []
    assert [o.question for o in store.thread_runs("ta", user="alice")] == ["Alice one?", "Alice two?"]
    assert store.thread_runs("ta", user="bob") == []  # another user's thread reads as empty
    assert len(store.thread_runs("ta")) == 2
    assert {r["run_id"]: r["user_id"] for r in store.runs()} == {"a1": "alice", "a2": "alice", "b1": "bob",
                                                                 "n1": None}
    assert [r["run_id"] for r in store.runs(user="bob")] == ["b1"]
    store.save_run(outcome("Bob in Alice's thread?", "b2", "ta"), user="bob")  # the thread keeps its owner
    assert [t["id"] for t in store.threads(user="bob")] == ["tb"]


def test_feedback_is_filtered_per_user(tmp_path: Path, state_url: str) -> None:
    store = FeedbackStore(state_url or tmp_path / "feedback.sqlite")
    mine = store.record(outcome("Alice one?", "a1", "ta"), "up", user="alice")
    store.record(outcome("Bob one?", "b1", "tb"), "down", "wrong", user="bob")
    store.record(outcome("Nobody?", "n1", "tn"), "down")
    assert mine.user_id == "alice" and mine.status == "pending"
    assert [f.question for f in store.find(user="alice")] == ["Alice one?"]
    assert store.find(run_id="a1", user="bob") == []
    assert [f.user_id for f in store.find()] == [None, "bob", "alice"]


def test_audit_log_keeps_every_statement_newest_first(tmp_path: Path, state_url: str) -> None:
    log = AuditLog(state_url or tmp_path / "audit.sqlite")
    assert log.recent() == []
    log.record(ExecutedSQL("alice", "shop", "SELECT 1", 1, 2.5, True))
    log.record(ExecutedSQL("bob", "shop", "DELETE FROM x", 0, 0.1, False, "only SELECT is allowed"))
    log.record(ExecutedSQL("alice", "other", "SELECT 2", 3, 1.0, True))
    rows = log.recent()
    assert [(r["user_id"], r["database"], r["sql"], r["row_count"], r["ok"]) for r in rows] == [
        ("alice", "other", "SELECT 2", 3, True), ("bob", "shop", "DELETE FROM x", 0, False),
        ("alice", "shop", "SELECT 1", 1, True)]
    assert rows[1]["error"] == "only SELECT is allowed" and rows[2]["elapsed_ms"] == 2.5
    assert rows[0]["created"] >= rows[2]["created"] > 0
    assert [r["sql"] for r in log.recent(user="alice", database="shop")] == ["SELECT 1"]
    assert len(log.recent(limit=2)) == 2
    with pytest.raises(ValueError, match="at least 1"):
        log.recent(limit=0)


def test_a_0001_file_is_migrated_with_its_rows_kept(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    engine = create_engine(f"sqlite:///{path}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001_initial")
    engine.dispose()
    old = outcome("Old question?", "r0", "t0")
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO threads VALUES ('t0', 'Old question?', 'shop', 1000.0, 1000.0)")
        conn.execute("INSERT INTO runs VALUES ('r0', 't0', 1000.0, 'Old question?', 'shop', 'ok', 0.5, 1, 10, 5, ?)",
                     (old.model_dump_json(),))
        conn.execute("INSERT INTO feedback (created, updated, run_id, question, rating, status) "
                     "VALUES (1000.0, 1000.0, 'r0', 'Old question?', 'up', 'approved')")
    dispose_all()

    runs, feedback = RunStore(path), FeedbackStore(path)
    assert [(t["id"], t["user_id"], t["turns"]) for t in runs.threads()] == [("t0", None, 1)]
    assert [o.question for o in runs.thread_runs("t0")] == ["Old question?"]
    assert runs.threads(user="local") == []  # rows without an owner belong to nobody
    assert [(f.question, f.user_id) for f in feedback.find()] == [("Old question?", None)]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("0003_feedback_confidence",)]
        assert conn.execute("SELECT COUNT(*) FROM audit_log").fetchone() == (0,)


def _deps(settings: Settings, store: ChromaStore, sink: Any) -> Any:
    deps = build_deps(settings, llm_overrides=fake_models(), store=store)  # type: ignore[arg-type]
    deps.audit = sink
    return deps


def test_ask_audits_the_executed_sql_per_user(shop_settings: Settings, shop_store: ChromaStore,
                                              tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.sqlite")
    questions = {"alice": "How many customers are from Brazil?", "bob": "How many customers are from Sweden?"}
    deps = {user: _deps(shop_settings, shop_store, log.record) for user in questions}
    with ThreadPoolExecutor(max_workers=2) as pool:  # two users at once: their records never mix
        outs = dict(zip(questions, pool.map(lambda u: ask(deps[u], questions[u], user=u), questions), strict=True))
    assert all(o.status == "ok" for o in outs.values()), outs
    rows = log.recent()
    assert {r["user_id"] for r in rows} == {"alice", "bob"}
    for r in rows:
        assert ("Brazil" if r["user_id"] == "alice" else "Sweden") in r["sql"]
        assert r["database"] == "shop" and r["ok"] and r["row_count"] == 1 and r["elapsed_ms"] >= 0
    ask(_deps(shop_settings, shop_store, log.record), questions["alice"])  # no user: the default user
    assert log.recent(limit=1)[0]["user_id"] == shop_settings.users.default_user == "local"


def test_a_failing_audit_never_fails_the_question(shop_settings: Settings, shop_store: ChromaStore,
                                                  caplog: pytest.LogCaptureFixture,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # import-linter's run (test_architecture) configures logging and disables the loggers that exist by then
    monkeypatch.setattr(logging.getLogger("tools.audit"), "disabled", False)

    def broken(entry: ExecutedSQL) -> None:
        raise OSError("disk full")

    with caplog.at_level(logging.WARNING, logger="tools.audit"):
        out = ask(_deps(shop_settings, shop_store, broken), "How many customers are from Brazil?", user="alice")
    assert out.status == "ok" and out.rows == [[2]]
    assert any("SQL audit record lost (OSError: disk full)" in r.getMessage() for r in caplog.records)


def test_run_audited_reports_refusals_and_only_inside_a_scope(shop_settings: Settings) -> None:
    db = Database.from_settings(shop_settings)
    seen: list[ExecutedSQL] = []
    run_audited(db, "SELECT 1")  # no scope: not reported
    with audit_scope(seen.append, "carol"):
        run_audited(db, "SELECT COUNT(*) FROM customers")
        run_audited(db, "DROP TABLE customers")
        with audit_scope(None, "carol"):
            run_audited(db, "SELECT 2")
    assert [(e.user, e.ok, e.row_count) for e in seen] == [("carol", True, 1), ("carol", False, 0)]
    assert seen[1].error and seen[0].database == db.key


def test_cli_sql_is_audited_and_listed(monkeypatch: pytest.MonkeyPatch, shop_settings: Settings,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    monkeypatch.setenv("NL2SQL_STATE_DIR", str(shop_settings.state_dir))
    monkeypatch.setenv("NL2SQL_USERS__DEFAULT_USER", "cli-user")
    db = ["--database", shop_settings.database_url]
    assert main(["sql", "SELECT COUNT(*) FROM customers", *db]) == 0
    assert main(["sql", "DELETE FROM customers", *db]) == 1
    capsys.readouterr()
    assert main(["audit", "--limit", "5", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["user_id"], r["ok"], r["row_count"]) for r in rows] == [("cli-user", False, 0), ("cli-user", True, 1)]
    assert main(["audit", "--user", "cli-user", *db]) == 0
    out = capsys.readouterr().out
    assert "cli-user  shop  1 rows" in out and "SELECT COUNT(*) FROM customers" in out
    assert main(["audit", "--user", "nobody"]) == 0 and "No SQL has been audited yet." in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["audit", "--limit", "0"])
    assert "expected at least 1" in capsys.readouterr().err
