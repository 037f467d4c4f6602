"""Durable records: conversations/runs, feedback, review actions on examples and enrichment, the tool bench."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.outcome import Outcome
from agent.runner import ask, build_deps
from core.llm import UsageLog
from core.settings import Settings
from database.connection import Database
from records.feedback import FeedbackStore, result_digest, send_to_langsmith
from records.review import (
    ReviewError,
    add_example,
    approve_feedback,
    edit_example,
    edit_examples_file,
    enrichment_queue,
    refresh_examples,
    review_enrichment,
    save_document,
    set_feedback_status,
)
from records.runs import RunStore
from retrieval.store import DESCRIPTION_INDEX, EXAMPLES_INDEX, ChromaStore, db_filter
from tests.unit.app_fixtures import fake_models
from tests.unit.state_fixtures import pg_state_db_fixture, state_url_fixture  # noqa: F401 (fixtures)
from tools.manual import run_tool
from ui.messages import explain


def outcome(question: str = "How many customers are from Brazil?", sql: str | None = "SELECT 1", **kw: Any) -> Outcome:
    return Outcome(**{"run_id": kw.pop("run_id", "r1"), "thread_id": "t1", "question": question, "sql": sql,
                      "database": "shop", "columns": ["n"], "rows": [[2]], "status": "ok", **kw})


def test_run_store_keeps_threads_and_runs(tmp_path: Path, state_url: str) -> None:
    store = RunStore(state_url or tmp_path / "runs.sqlite")
    store.save_run(outcome(run_id="a"))
    store.save_run(outcome("And Sweden?", run_id="b", status="error"))
    store.save_run(outcome("Other thread", run_id="c", thread_id="t2"))
    threads = store.threads()
    assert {t["id"]: t["turns"] for t in threads} == {"t1": 2, "t2": 1}
    assert next(t for t in threads if t["id"] == "t1")["title"] == "How many customers are from Brazil?"
    assert [r.question for r in store.thread_runs("t1")] == ["How many customers are from Brazil?", "And Sweden?"]
    assert [r["run_id"] for r in store.runs(status="error")] == ["b"]
    assert [r["run_id"] for r in store.runs(search="sweden")] == ["b"]
    assert store.get_run("a")["rows"] == [[2]] and store.get_run("zzz") is None
    assert store.thread_runs("t1")[0].total_rows == 1


def test_feedback_statuses_and_digest(tmp_path: Path, state_url: str) -> None:
    store = FeedbackStore(state_url or tmp_path / "fb.sqlite")
    up = store.record(outcome(), "up", " good ")
    down = store.record(outcome(run_id="r2"), "down")
    no_sql = store.record(outcome(sql=None, run_id="r3"), "up")
    assert (up.status, up.comment, down.status, no_sql.status) == ("pending", "good", "review", "review")
    assert up.result_digest == result_digest(["n"], [[2]]) != result_digest(["n"], [[3]])
    assert [f.id for f in store.find(status="review")] == [no_sql.id, down.id]
    assert store.find(run_id="r2")[0].id == down.id
    with pytest.raises(ValueError):
        store.record(outcome(), "meh")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        store.update(up.id, status="bogus")
    with pytest.raises(KeyError):
        store.update(999, status="approved")
    assert store.approved_examples("shop") == []


class FakeLangSmith:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fail = fail

    def create_feedback(self, run_id: str, key: str, **kw: Any) -> None:
        if self.fail:
            raise ConnectionError("offline")
        self.calls.append((run_id, key, kw))


def test_feedback_goes_to_langsmith_only_when_tracing(tmp_path: Path) -> None:
    rec = FeedbackStore(tmp_path / "fb.sqlite").record(outcome(), "down", "wrong year")
    client = FakeLangSmith()
    assert send_to_langsmith(rec, enabled=False, client=client) is None and not client.calls
    assert send_to_langsmith(rec, enabled=True, client=client) == "sent"
    assert client.calls == [("r1", "user_rating", {"score": 0.0, "comment": "wrong year"})]
    assert "offline" in str(send_to_langsmith(rec, enabled=True, client=FakeLangSmith(fail=True)))


@pytest.fixture()
def shop(shop_settings: Settings, shop_store: ChromaStore, tmp_path: Path, state_url: str) -> tuple[Database, ChromaStore, FeedbackStore,
                                                                                   Path]:
    path = tmp_path / "shop.examples.jsonl"
    path.write_text('# examples\n{"question": "How many orders are there?", "sql": "SELECT COUNT(*) FROM orders"}\n')
    return Database.from_settings(shop_settings), shop_store, FeedbackStore(state_url or tmp_path / "fb.sqlite"), path


def indexed(store: ChromaStore, db: Database) -> dict[str, str]:
    return {str(h.metadata["question"]): str(h.metadata["sql"]) for h in store.get(EXAMPLES_INDEX, db_filter(db.key))}


def test_approve_edit_and_reject_feedback_examples(shop: tuple) -> None:
    db, store, fb, path = shop
    rec = fb.record(outcome(sql="SELECT COUNT(*) FROM customers WHERE country = 'Brazil'"), "up")
    with pytest.raises(ReviewError, match="does not run"):
        approve_feedback(store, db, fb, rec.id, examples_path=path, sql="SELECT nope FROM customers")
    assert fb.get(rec.id).status == "pending"  # a refused approval changes nothing
    _, report = approve_feedback(store, db, fb, rec.id, examples_path=path, question="Brazilian customers?")
    assert report.indexed == 2 and indexed(store, db)["Brazilian customers?"].endswith("'Brazil'")
    meta = next(h.metadata for h in store.get(EXAMPLES_INDEX, db_filter(db.key))
                if h.metadata["question"] == "Brazilian customers?")
    edit_example(store, db, fb, path, meta, sql="SELECT COUNT(*) FROM customers WHERE country='Brazil'")
    assert fb.get(rec.id).sql == "SELECT COUNT(*) FROM customers WHERE country='Brazil'"
    set_feedback_status(store, db, fb, rec.id, "rejected", examples_path=path)
    assert "Brazilian customers?" not in indexed(store, db)
    assert "How many orders are there?" in indexed(store, db)


def test_file_examples_are_edited_and_retired_at_the_source(shop: tuple) -> None:
    db, store, fb, path = shop
    refresh_examples(store, db, fb, path)
    meta = store.get(EXAMPLES_INDEX, db_filter(db.key))[0].metadata
    edit_example(store, db, fb, path, meta, question="Number of orders?")
    assert indexed(store, db) == {"Number of orders?": "SELECT COUNT(*) FROM orders"}
    assert path.read_text().startswith("# examples\n")
    meta = store.get(EXAMPLES_INDEX, db_filter(db.key))[0].metadata
    edit_example(store, db, fb, path, meta, delete=True)
    assert indexed(store, db) == {}
    assert json.loads(path.read_text().splitlines()[1])["status"] == "retired"  # kept for history
    assert edit_examples_file(path, "unknown", "SELECT 1") == 0


def test_added_example_survives_a_refresh(shop: tuple) -> None:
    db, store, fb, path = shop
    with pytest.raises(ReviewError):
        add_example(store, db, fb, path, "Delete everything", "DELETE FROM orders")
    add_example(store, db, fb, path, "Total order amount?", "SELECT SUM(amount) FROM orders")
    refresh_examples(store, db, fb, path)
    assert "Total order amount?" in indexed(store, db)


def test_documents_are_saved_reembedded_and_marked(shop: tuple) -> None:
    db, store, _, _ = shop
    hit = store.get(DESCRIPTION_INDEX, db_filter(db.key))[0]
    save_document(store, DESCRIPTION_INDEX, hit.id, "Purchases made by buyers, with amounts in EUR.", hit.metadata)
    found = store.query(DESCRIPTION_INDEX, "buyer purchases amounts euro", 1, db_filter(db.key))[0]
    assert found.id == hit.id and found.metadata["edited"] is True
    with pytest.raises(ReviewError):
        save_document(store, DESCRIPTION_INDEX, hit.id, "  ", hit.metadata)


def test_enrichment_review(tmp_path: Path) -> None:
    path = tmp_path / "x.enriched.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "tables": {"T": {
        "description": {"text": "A table.", "status": "pending"},
        "columns": {"A": {"text": "Col a.", "status": "pending"}}}}}))
    assert [(e["table"], e["column"]) for e in enrichment_queue(path)] == [("T", None), ("T", "A")]
    review_enrichment(path, "T", None, "approved", "A better table text.")
    review_enrichment(path, "T", "A", "rejected")
    assert enrichment_queue(path) == [] and enrichment_queue(tmp_path / "missing.yaml") == []
    assert [e["text"] for e in enrichment_queue(path, "edited")] == ["A better table text."]
    assert len(enrichment_queue(path, "rejected")) == 1
    with pytest.raises(ValueError):
        review_enrichment(path, "T", None, "great")


def test_tool_bench_runs_prerequisites_as_references(shop_settings: Settings, shop_store: ChromaStore) -> None:
    deps = build_deps(shop_settings, llm_overrides=fake_models(), store=shop_store)
    run = run_tool(deps.registry, deps.context(UsageLog()), "generate_sql", "How many customers are from Brazil?", "", ["retrieve_schema"])
    assert [s[:2] for s in run.steps] == [("#E1", "retrieve_schema"), ("#E2", "generate_sql")]
    assert run.result.ok and "Brazil" in run.result.value["sql"] and len(run.usage) >= 1
    direct = run_tool(deps.registry, deps.context(UsageLog()), "execute_sql", "orders", "SELECT COUNT(*) FROM orders")
    assert direct.result.ok and direct.result.value["rows"] == [[3]]
    refused = run_tool(deps.registry, deps.context(UsageLog()), "execute_sql", "x", "DROP TABLE orders")
    assert not refused.result.ok
    assert not run_tool(deps.registry, deps.context(UsageLog()), "no_such_tool", "q").result.ok


def test_ask_streams_each_node_to_the_callback(shop_settings: Settings, shop_store: ChromaStore) -> None:
    deps = build_deps(shop_settings, llm_overrides=fake_models(), store=shop_store)
    events: list[dict[str, Any]] = []
    out = ask(deps, "How many customers are from Brazil?", on_event=events.append, run_id="1" * 32)
    assert [e["node"] for e in events][0] == "plan" and events[-1]["node"] == "solve"
    assert [e["step"] for e in events if e["node"] == "run_step"] == [s["id"] for s in out.plan]
    assert out.run_id == "1" * 32 and out.rows == [[2]]
    gen = next(e for e in events if e.get("tool") == "generate_sql")
    assert gen["llm_calls"] >= 1 and "Brazil" in gen["output"]


def test_errors_are_explained_for_analysts(shop_settings: Settings) -> None:
    assert "did not answer" in explain("I could not answer: generator call failed: Connection error.", shop_settings)
    assert "could not be reached" in explain("OperationalError: unable to open database file", shop_settings)
    assert "indexed" in explain("no schema index for database 'x': run `nl2sql index` first", shop_settings)
    assert "does not hold" in explain("I could not answer: no such column: weather", shop_settings)
    assert explain("The SQL had a syntax error", shop_settings) == "The SQL had a syntax error"
