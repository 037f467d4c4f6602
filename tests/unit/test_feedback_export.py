"""``nl2sql feedback export``: reviewed feedback and examples as a training set, round trip."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agent.outcome import Outcome
from cli.feedback import run_feedback
from core.settings import Settings
from records.feedback import FeedbackStore
from records.paths import feedback_path, runs_path
from records.runs import RunStore
from tests.unit.state_fixtures import pg_state_db_fixture, state_url_fixture  # noqa: F401 (fixtures)


def test_export_round_trip(shop_settings: Settings, tmp_path: Path, state_url: str) -> None:
    shop_settings = shop_settings.model_copy(update={"state_url": state_url})
    runs, store = RunStore(runs_path(shop_settings)), FeedbackStore(feedback_path(shop_settings))
    kept = Outcome(question="How many customers?", sql="SELECT COUNT(*) FROM customers", status="ok",
                   database="shop", index_snapshot="abc123", rows=[[3]], columns=["n"])
    runs.save_run(kept)
    approved = store.record(kept, "up")
    store.update(approved.id, status="approved")
    store.record(Outcome(question="Orders?", sql="SELECT * FROM orders", status="ok", database="shop"), "up")
    examples = shop_settings.database_url.removeprefix("sqlite:///").replace(".sqlite", ".examples.jsonl")
    Path(examples).write_text(json.dumps({"question": "How many orders?", "sql": "SELECT COUNT(*) FROM orders"})
                              + "\n" + json.dumps({"question": "how many customers?",
                                                   "sql": "SELECT COUNT(*)  FROM customers"}) + "\n")
    out = tmp_path / "train.jsonl"
    args = argparse.Namespace(out=str(out), status="approved", feedback_only=False, database=None)
    assert run_feedback(args, shop_settings) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["question"], r["source"], r["status"]) for r in rows] == [
        ("How many customers?", "feedback", "approved"), ("How many orders?", "examples", "approved")]
    assert rows[0]["query"] == "SELECT COUNT(*) FROM customers" and rows[0]["schema_snapshot"] == "abc123"
    assert set(rows[0]) == {"question", "query", "db_id", "source", "status", "schema_snapshot", "id"}
    args = argparse.Namespace(out=str(out), status="approved,pending", feedback_only=True, database=None)
    assert run_feedback(args, shop_settings) == 0
    assert [r["question"] for r in map(json.loads, out.read_text().splitlines())] == ["How many customers?", "Orders?"]
