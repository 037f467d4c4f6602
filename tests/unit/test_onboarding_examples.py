"""Onboarding's ``draft_examples`` step: the query log back-translated into pending few-shot examples."""

from __future__ import annotations

from pathlib import Path

from core.settings import Settings
from database.connection import Database
from records.review import review_drafts
from retrieval.examples_store import load_examples_file, prepare_examples
from retrieval.onboarding import current_queue, run_onboarding
from retrieval.onboarding.examples import acceptable, answer_shape, example_id, reviewed_examples
from tests.support.scripted_model import ScriptedChatModel
from tests.unit.onboarding_fixtures import LOG, bare, make_job, reply  # noqa: F401 (fixture)

HUMAN = '# written by the team\n{"question": "How many customers are there?", "sql": "SELECT COUNT(*) FROM CUST_MSTR"}\n'


def _examples_path(settings: Settings) -> Path:
    return Path(settings.database_url.removeprefix("sqlite:///")).with_name("shop.examples.jsonl")


def test_each_runnable_statement_becomes_one_pending_example(bare: Settings) -> None:  # noqa: F811
    model = ScriptedChatModel(script=reply)
    broken = "SELECT NOPE FROM ORD_TXN"
    report = run_onboarding(make_job(bare, model, log=[*LOG, LOG[1], broken], log_name="past.sql", example_limit=60))
    step = next(s for s in report.steps if s.name == "draft_examples")
    assert step.status == "done" and step.items == 4 and "1 left out" in step.note  # duplicate asked once
    drafted = load_examples_file(_examples_path(bare))
    assert [e.sql for e in drafted] == LOG
    assert {(e.status, e.source) for e in drafted} == {("pending", "log")}
    assert [e.id for e in drafted] == [example_id(sql, "sqlite") for sql in LOG]
    asked = [p for p in model.prompts if "Write the ONE question" in str(p[0].content)]
    assert len(asked) == 4 and "Answer: columns" in str(asked[0][-1].content)
    assert "CREATE TABLE ORD_TXN" in str(asked[1][-1].content)
    assert "CREATE TABLE CUST_MSTR" not in str(asked[1][-1].content)  # only the tables it reads
    queue = [i for i in report.queue if i.kind == "example"]
    assert {i.record_id for i in queue} == {e.id for e in drafted} and all(i.score >= 1 for i in queue)


def test_a_rerun_asks_only_for_statements_not_yet_drafted(bare: Settings) -> None:  # noqa: F811
    run_onboarding(make_job(bare, log=LOG[:2], log_name="past.sql", example_limit=60))
    model = ScriptedChatModel(script=reply)
    report = run_onboarding(make_job(bare, model, log=LOG, log_name="past.sql", example_limit=60))
    assert next(s for s in report.steps if s.name == "draft_examples").items == 2
    assert sum("Write the ONE question" in str(p[0].content) for p in model.prompts) == 2
    assert [e.sql for e in load_examples_file(_examples_path(bare))] == LOG


def test_human_examples_stay_as_written_and_are_not_counted_as_drafts(bare: Settings) -> None:  # noqa: F811
    path = _examples_path(bare)
    path.write_text(HUMAN, encoding="utf-8")
    run_onboarding(make_job(bare, log=LOG, log_name="past.sql", example_limit=60))
    text = path.read_text(encoding="utf-8")
    assert text.startswith(HUMAN) and text.count("\n") == 2 + len(LOG)
    assert [e["question"] for e in reviewed_examples(path)] == ["How many customers are there?"]


def test_pending_examples_are_used_only_when_approved_or_opted_in(bare: Settings) -> None:  # noqa: F811
    job = make_job(bare, log=LOG, log_name="past.sql", example_limit=60)
    run_onboarding(job)
    path = _examples_path(bare)
    db = Database.from_settings(bare)
    assert prepare_examples(db, load_examples_file(path))[0] == []
    assert len(prepare_examples(db, load_examples_file(path), use_drafts=True)[0]) == len(LOG)
    items = [i for i in current_queue(job) if i.kind == "example"]
    before = path.read_text(encoding="utf-8").splitlines()
    assert review_drafts(items[:1], "approved", knowledge_path=job.knowledge_path, enriched_path=job.enriched_path,
                         examples_path=path) == 1
    after = path.read_text(encoding="utf-8").splitlines()
    assert sum(a != b for a, b in zip(before, after, strict=True)) == 1
    assert [e.id for e in prepare_examples(db, load_examples_file(path))[0]] == [items[0].record_id]
    assert review_drafts(items[1:], "rejected", knowledge_path=job.knowledge_path, enriched_path=job.enriched_path,
                         examples_path=path) == len(LOG) - 1
    assert not [i for i in current_queue(job) if i.kind == "example"]
    rerun = run_onboarding(make_job(bare, log=[*LOG, LOG[0] + " "], log_name="other.sql", example_limit=60))
    assert next(s for s in rerun.steps if s.name == "draft_examples").items == 0  # rejected stays rejected


def test_a_question_that_is_sql_or_a_fragment_is_left_out(bare: Settings) -> None:  # noqa: F811
    assert acceptable("Total shipped order amount per customer?") is None
    assert acceptable("SELECT SUM(AMT) FROM ORD_TXN") and acceptable("Totals?")
    model = ScriptedChatModel(script=lambda messages: {"question": "SELECT * FROM ORD_TXN"}
                              if "Write the ONE question" in str(messages[0].content) else reply(messages))
    report = run_onboarding(make_job(bare, model, log=LOG, log_name="past.sql", example_limit=60))
    step = next(s for s in report.steps if s.name == "draft_examples")
    assert step.items == 0 and step.status == "done" and "4 left out" in step.note
    assert not _examples_path(bare).exists()


def test_a_question_naming_a_value_the_sql_does_not_hold_is_left_out() -> None:
    latest = "SELECT MAX(TXN_DT) FROM ORD_TXN"
    assert acceptable("What was the total on October 31, 2025?", latest) == "a value the query does not name (31)"
    assert acceptable("What is the latest order day?", latest) is None
    top = "SELECT CUST_ID FROM ORD_TXN WHERE AMT > 1000 AND TXN_DT >= '2025-01-01' LIMIT 5"
    assert acceptable("Which 5 customers ordered more than 1,000 in 2025?", top) is None
    assert acceptable("Which 5 customers ordered more than 2,500 in 2025?", top)
    assert acceptable("Which 3 customers ordered more than 1000?", top) == "a value the query does not name (3)"
    assert acceptable("What was the total on 31 October 2025?", "SELECT SUM(AMT) FROM T WHERE D = '2025-10-31'") is None
    assert answer_shape(["CUST_ID", "AMT"], 1) == "columns CUST_ID, AMT; one row"
    assert answer_shape([], 0).endswith("no rows") and answer_shape(["X"], 2).endswith("several rows")


def test_the_step_is_off_by_default_and_needs_a_place_for_examples(bare: Settings) -> None:  # noqa: F811
    model = ScriptedChatModel(script=reply)
    report = run_onboarding(make_job(bare, model, log=LOG, log_name="past.sql"))
    step = next(s for s in report.steps if s.name == "draft_examples")
    assert step.status == "skipped" and "--draft-examples" in step.note and not _examples_path(bare).exists()
    assert not any("Write the ONE question" in str(p[0].content) for p in model.prompts)
    report = run_onboarding(make_job(bare, log=LOG, log_name="past.sql", example_limit=60, examples_path=None))
    step = next(s for s in report.steps if s.name == "draft_examples")
    assert step.status == "skipped" and "NL2SQL_EXAMPLES_PATH" in step.note
    report = run_onboarding(make_job(bare, log=LOG, log_name="past.sql", example_limit=2))
    assert next(s for s in report.steps if s.name == "draft_examples").items == 2  # switched on: redone
