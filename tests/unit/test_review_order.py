"""Feedback keeps the answer's confidence; the review list puts verified answers marked wrong first (SQLite files
in tmp dirs, and PostgreSQL when a cluster is there; the 0002 -> 0003 migration of an existing file; the developer
panel's list)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine
from streamlit.testing.v1 import AppTest

from agent.confidence import Confidence
from agent.outcome import Outcome
from core.settings import Settings
from records.db import MIGRATIONS_DIR, dispose_all
from records.feedback import Feedback, FeedbackStore
from records.paths import feedback_path
from records.review_order import VERIFIED_WRONG, order_review_queue, review_marker, review_rank
from tests.unit.app_fixtures import app_env  # noqa: F401 (fixture)
from tests.unit.state_fixtures import pg_state_db_fixture, state_url_fixture  # noqa: F401 (fixtures)

DEVELOPER = "from app import developer_page\ndeveloper_page()\n"
REASONS = ["3 of 3 independent SQL candidates returned the same rows"]


def answer(question: str, level: str | None, run_id: str, reasons: list[str] | None = None) -> Outcome:
    out = Outcome(question=question, sql="SELECT COUNT(*) FROM customers", database="shop", status="ok",
                  columns=["n"], rows=[[3]], run_id=run_id)
    if level is not None:
        out.confidence = Confidence(score={"verified": 0.95, "likely": 0.7, "unsure": 0.2}[level],
                                    level=level, reasons=REASONS if reasons is None else reasons)  # type: ignore[arg-type]
    return out


def fb(id_: int, rating: str, level: str | None, created: float, reasons: list[str] | None = None) -> Feedback:
    return Feedback(id=id_, created=created, updated=created, run_id=None, thread_id=None, database="shop",
                    question=f"q{id_}", sql="SELECT 1", result_digest=None, row_count=1, rating=rating,
                    comment=None, status="review", langsmith=None, confidence_level=level,
                    confidence_reasons=reasons or [])


def test_order_puts_verified_wrong_first_then_other_wrong_then_the_rest() -> None:
    records = [fb(1, "down", "verified", 10.0), fb(2, "up", None, 20.0), fb(3, "down", "likely", 30.0),
               fb(4, "down", None, 40.0), fb(5, "down", "verified", 50.0), fb(6, "up", "verified", 60.0),
               fb(7, "down", "unsure", 5.0), fb(8, "down", "verified", 50.0)]
    ordered = order_review_queue(records)
    # verified and wrong, newest first (equal times: the higher id first); other thumbs-down newest first;
    # the rest (thumbs-up without SQL, even on a verified answer) by id, newest first, as before
    assert [r.id for r in ordered] == [8, 5, 1, 4, 3, 7, 6, 2]
    assert [review_rank(r) for r in ordered] == [0, 0, 0, 1, 1, 1, 2, 2]
    assert [r.id for r in records] == [1, 2, 3, 4, 5, 6, 7, 8]  # the input is left as it was
    assert order_review_queue([]) == []


def test_the_marker_names_the_verified_answer_and_its_reasons() -> None:
    assert review_marker(fb(1, "down", "verified", 1.0, ["a reason", " ", "another"])) == \
        f"{VERIFIED_WRONG}: a reason; another"
    assert review_marker(fb(1, "down", "verified", 1.0)) == VERIFIED_WRONG  # no reasons kept
    assert review_marker(fb(1, "down", "likely", 1.0, ["x"])) is None
    assert review_marker(fb(1, "up", "verified", 1.0, ["x"])) is None
    assert VERIFIED_WRONG == "Marked wrong although verified"


def test_feedback_keeps_the_answers_confidence_and_the_store_order_feeds_the_queue(tmp_path: Path,
                                                                                   state_url: str) -> None:
    store = FeedbackStore(state_url or tmp_path / "feedback.sqlite")
    old_wrong = store.record(answer("Verified, old?", "verified", "r1"), "down", "wrong year")
    store.record(answer("Unsure?", "unsure", "r2"), "down")
    no_conf = store.record(answer("No confidence?", None, "r3"), "down")
    store.record(answer("Right?", "verified", "r4"), "up")  # pending, not in the review list
    new_wrong = store.record(answer("Verified, new?", "verified", "r5", reasons=[]), "down")
    assert (old_wrong.confidence_level, old_wrong.confidence_reasons) == ("verified", REASONS)
    assert (no_conf.confidence_level, no_conf.confidence_reasons) == (None, [])
    assert (new_wrong.confidence_level, new_wrong.confidence_reasons) == ("verified", [])
    assert store.get(old_wrong.id) == old_wrong
    updated = store.update(old_wrong.id, comment="the fiscal year")  # other edits keep the confidence
    assert (updated.confidence_level, updated.confidence_reasons) == ("verified", REASONS)

    queue = order_review_queue(store.find(status="review", database="shop"))
    assert [r.question for r in queue] == ["Verified, new?", "Verified, old?", "No confidence?", "Unsure?"]
    assert review_marker(queue[0]) == VERIFIED_WRONG
    assert review_marker(queue[1]) == f"{VERIFIED_WRONG}: {REASONS[0]}"


def test_a_0002_file_is_upgraded_with_its_rows_kept(tmp_path: Path) -> None:
    path = tmp_path / "feedback.sqlite"
    engine = create_engine(f"sqlite:///{path}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0002_users_audit")
    engine.dispose()
    with sqlite3.connect(path) as conn:
        for i, rating in ((1, "down"), (2, "up"), (3, "down")):
            conn.execute("INSERT INTO feedback (created, updated, run_id, database, question, sql, rating, status, "
                         "user_id) VALUES (?, ?, ?, 'shop', ?, 'SELECT 1', ?, ?, 'alice')",
                         (1000.0 + i, 1000.0 + i, f"r{i}", f"Old {i}?", rating,
                          "review" if rating == "down" else "approved"))
        conn.execute("DELETE FROM feedback WHERE id = 3")
    dispose_all()

    store = FeedbackStore(path)  # first use: migrated to the newest revision
    old = store.find()
    assert [(f.id, f.question, f.rating, f.user_id, f.confidence_level, f.confidence_reasons) for f in old] == [
        (2, "Old 2?", "up", "alice", None, []), (1, "Old 1?", "down", "alice", None, [])]
    new = store.record(answer("New?", "verified", "r9"), "down")
    assert new.id == 4 and new.confidence_level == "verified"  # AUTOINCREMENT kept: id 3 is not reused
    assert [r.id for r in order_review_queue(store.find(status="review"))] == [4, 1]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("0003_feedback_confidence",)]
        columns = {row[1]: row[3] for row in conn.execute("PRAGMA table_info(feedback)")}
        assert columns["confidence_level"] == 0 and columns["confidence_reasons"] == 0  # nullable
    dispose_all()  # a new process: nothing left to migrate, nothing lost
    assert len(FeedbackStore(path).find()) == 3


def test_the_developer_panel_lists_verified_wrong_answers_first(app_env: Settings) -> None:  # noqa: F811
    store = FeedbackStore(feedback_path(app_env))
    store.record(answer("Other wrong answer?", "likely", "r1"), "down")
    store.record(answer("Verified wrong answer?", "verified", "r2"), "down")
    store.record(answer("Newest wrong answer?", None, "r3"), "down")
    dev = AppTest.from_string(DEVELOPER, default_timeout=60).run()
    assert not dev.exception, dev.exception
    labels = [e.label for e in dev.expander if "wrong answer?" in e.label]
    assert len(labels) == 3
    assert VERIFIED_WRONG in labels[0] and "Verified wrong answer?" in labels[0]
    assert ["Newest" in labels[1], "Other" in labels[2]] == [True, True]
    assert not any(VERIFIED_WRONG in label for label in labels[1:])
    assert [w.value for w in dev.warning if VERIFIED_WRONG in w.value] == [f"{VERIFIED_WRONG}: {REASONS[0]}"]
