"""Onboarding a bare database with a scripted model: the steps in order, resume after an interruption, human
text kept, drafts pending unless opted into, candidate joins and enum/synonym drafts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.settings import Settings
from database.connection import Database
from database.schema_reader import read_schema
from knowledge.files import agent_knowledge, load_knowledge, save_knowledge
from knowledge.records import KnowledgeBase, KnowledgeRecord
from retrieval.onboarding import STEPS, Progress, load_state, run_onboarding
from retrieval.onboarding import profile as profile_step
from tests.support.scripted_model import ScriptedChatModel
from tests.unit.onboarding_fixtures import LOG, bare, make_job, reply  # noqa: F401 (fixture)

NAMES = ["profile", "dictionary", "describe", "draft_records", "draft_joins", "draft_metrics", "mine_log", "draft_examples",
         "review_queue"]


def test_the_steps_are_declared_once_in_order() -> None:
    assert [s.name for s in STEPS] == NAMES
    assert {s.name for s in STEPS if s.needs_model} == {"describe", "draft_metrics", "draft_examples"}
    assert all(s.about for s in STEPS)
    assert all(set(s.uses) <= set(NAMES[:i]) for i, s in enumerate(STEPS))  # a step uses only earlier ones


def test_steps_run_in_order_with_progress_and_drafts_are_pending(bare: Settings) -> None:  # noqa: F811
    events: list[Progress] = []
    report = run_onboarding(make_job(bare, events=events))
    assert [(s.name, s.status) for s in report.steps] == [
        ("profile", "done"), ("dictionary", "skipped"), ("describe", "done"), ("draft_records", "done"),
        ("draft_joins", "done"), ("draft_metrics", "done"), ("mine_log", "skipped"), ("draft_examples", "skipped"),
        ("review_queue", "done")]
    starts = [e.step for e in events if e.state == "running" and e.item == 0]
    assert starts == [1, 2, 3, 4, 5, 6, 7, 8, 9] and all(e.steps == 9 for e in events)
    assert [e.name for e in events if e.state != "running"] == NAMES  # each step ends once, in order
    assert any(e.name == "describe" and e.items == 3 and e.item == 3 for e in events)  # item j of m tables
    describe = report.steps[2]
    assert describe.llm_calls == 5 and describe.items > 0  # 3 summaries (countries is documented: 2) + columns
    kb = load_knowledge(bare.resolved_knowledge_path())  # type: ignore[arg-type]
    assert kb.records and all(r.status == "pending" for r in kb.records) and not kb.approved()
    ids = {r.id for r in kb.records}
    assert {"onb.enum.countries.country_code", "onb.enum.ord_txn.sts_cd", "onb.enum.cust_mstr.seg",
            "onb.syn.ord_txn.ord_dt", "onb.syn.cust_mstr", "llm_metric_order_value"} <= ids
    enum = kb.get("onb.enum.countries.country_code")
    assert enum is not None and enum.columns == ["countries.country_code", "CUST_MSTR.CTRY_CD"]
    assert enum.values == {"BR": "Brazil", "SE": "Sweden", "US": "United States"}  # labels of the lookup table
    assert kb.get("onb.syn.ord_txn.ord_dt").synonyms == ["order date"]  # type: ignore[union-attr]
    assert report.queue and all(i.kind in ("record", "description", "join") for i in report.queue)
    joins = {i.key: i.text for i in report.queue if i.kind == "join"}  # the undeclared joins, pending review
    assert joins == {"join:ORD_TXN.CUST_ID": "name and values: 100% of its distinct values found in CUST_MSTR.CUST_ID",
                     "join:CUST_MSTR.CTRY_CD": "name and values: 100% of its distinct values found in "
                                               "countries.country_code"}


def test_profile_finds_dates_codes_keys_and_undeclared_joins(bare: Settings) -> None:  # noqa: F811
    job = make_job(bare)
    run_onboarding(job)
    profile = load_state(job.state_path, job.db.key)["steps"]["profile"]["result"]
    orders = profile["tables"]["ORD_TXN"]
    assert orders["columns"]["ORD_DT"]["date"] and orders["columns"]["STS_CD"]["code"]
    assert orders["columns"]["AMT"]["min"] == 5.0 and orders["columns"]["AMT"]["max"] == 99.0
    assert profile["tables"]["CUST_MSTR"]["columns"]["SEG"]["null_share"] == 0.2
    assert "ORD_ID" in orders["keys"] and not orders["columns"]["CUST_ID"]["key"]
    found = {(j["child"], j["parent"], j["evidence"]) for j in profile["joins"]}
    assert found == {("ORD_TXN.CUST_ID", "CUST_MSTR.CUST_ID", "name+values"),
                     ("CUST_MSTR.CTRY_CD", "countries.country_code", "name+values")}


def test_an_interrupted_run_resumes_after_the_last_finished_step(bare: Settings,  # noqa: F811
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(messages: Any) -> Any:
        if "propose up to" in str(messages[0].content):
            raise KeyboardInterrupt
        return reply(messages)

    with pytest.raises(KeyboardInterrupt):
        run_onboarding(make_job(bare, ScriptedChatModel(script=interrupt)))
    job = make_job(bare)
    state = load_state(job.state_path, job.db.key)
    assert list(state["steps"]) == NAMES[:5]  # checkpointed before the crash
    profiled: list[str] = []
    real = profile_step.profile_table

    def counted(db: Database, table: Any, **kw: Any) -> Any:
        profiled.append(table.name)
        return real(db, table, **kw)

    monkeypatch.setattr(profile_step, "profile_table", counted)
    model = ScriptedChatModel(script=reply)
    report = run_onboarding(make_job(bare, model))
    assert [s.status for s in report.steps] == ["resumed"] * 5 + ["done", "skipped", "skipped", "done"]
    assert profiled == [] and len(model.prompts) == 1  # only the interrupted step's one call
    again = run_onboarding(make_job(bare, ScriptedChatModel(script=reply)))
    assert {s.status for s in again.steps} == {"resumed"}
    redone = run_onboarding(make_job(bare, ScriptedChatModel(script=reply)), restart=True)
    assert [s.status for s in redone.steps] == ["done", "skipped", "done", "done", "done", "done", "skipped",
                                                "skipped", "done"]
    assert sorted(profiled) == ["CUST_MSTR", "ORD_TXN", "countries"]


def test_an_interrupted_profile_resumes_at_the_next_table(bare: Settings,  # noqa: F811
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    real, seen = profile_step.profile_table, []

    def flaky(db: Database, table: Any, **kw: Any) -> Any:
        seen.append(table.name)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return real(db, table, **kw)

    monkeypatch.setattr(profile_step, "profile_table", flaky)
    with pytest.raises(KeyboardInterrupt):
        run_onboarding(make_job(bare))
    job = make_job(bare)
    assert list(load_state(job.state_path, job.db.key)["partial"]["profile"]["tables"]) == [seen[0]]
    run_onboarding(job)
    assert seen[2:] == [t for t in ("CUST_MSTR", "ORD_TXN", "countries") if t != seen[0]]  # the first not again


def test_human_text_is_never_overwritten(bare: Settings, tmp_path: Path) -> None:  # noqa: F811
    kpath = bare.resolved_knowledge_path()
    assert kpath is not None
    human = KnowledgeRecord(id="onb.enum.ord_txn.sts_cd", type="enum", name="order status", values={"SHIP": "shipped"},
                            columns=["ORD_TXN.STS_CD"], definition="Status codes (a person wrote this).",
                            status="pending")
    approved = KnowledgeRecord(id="big_orders", type="term", name="big orders", definition="AMT > 50",
                               status="approved")
    save_knowledge(kpath, KnowledgeBase(database="shop", records=[human, approved]))
    enriched = tmp_path / "shop.enriched.yaml"
    enriched.write_text(yaml.safe_dump({"version": 1, "tables": {"ORD_TXN": {
        "description": {"text": "Orders, reviewed.", "status": "approved"},
        "columns": {"AMT": {"text": "Amount in USD, edited.", "status": "edited"}}}}}))
    run_onboarding(make_job(bare))
    kb = load_knowledge(kpath)
    assert kb.get("onb.enum.ord_txn.sts_cd") == human and kb.get("big_orders") == approved
    data = yaml.safe_load(enriched.read_text())["tables"]
    assert data["ORD_TXN"]["description"]["text"] == "Orders, reviewed."
    assert data["ORD_TXN"]["columns"]["AMT"] == {"text": "Amount in USD, edited.", "status": "edited", "model": None,
                                                 "generated": None}
    assert "countries" not in data or data["countries"].get("description") is None  # documented by a person
    assert "CUST_NM" not in data["CUST_MSTR"]["columns"]
    assert "a person" in (tmp_path / "shop.metadata.yaml").read_text()


def test_the_agent_uses_drafts_only_when_opted_in(bare: Settings) -> None:  # noqa: F811
    job = make_job(bare)
    run_onboarding(job)
    db = Database.from_settings(bare)
    plain = {t.name: t for t in read_schema(db, sample_rows=0)}
    assert plain["ORD_TXN"].comment is None and str(plain["countries"].comment).endswith("(written by a person).")
    drafts = {t.name: t for t in read_schema(db, sample_rows=0, use_drafts=True)}
    assert drafts["ORD_TXN"].comment == "Summary of ORD_TXN."
    assert drafts["CUST_MSTR"].column("CUST_NM").comment == "Customer legal name (written by a person)."  # type: ignore[union-attr]
    assert agent_knowledge(job.knowledge_path).approved() == []
    seen = agent_knowledge(job.knowledge_path, use_drafts=True)
    assert {r.id for r in seen.approved()} == {r.id for r in load_knowledge(job.knowledge_path).records}
    assert agent_knowledge(job.knowledge_path, use_drafts=True) is seen  # cached: matchers stay valid
    assert all(r.status == "pending" for r in load_knowledge(job.knowledge_path).records)  # nothing saved


def test_a_new_query_log_redoes_mining_and_the_queue_only(bare: Settings) -> None:  # noqa: F811
    run_onboarding(make_job(bare))
    report = run_onboarding(make_job(bare, log=LOG, log_name="past.sql"))
    assert [s.status for s in report.steps] == ["resumed"] * 6 + ["done", "skipped", "done"]
    mined = report.steps[6]
    assert mined.items == 4 and "records drafted" in mined.note
    assert [s.status for s in run_onboarding(make_job(bare)).steps][-2:] == ["resumed", "resumed"]  # log kept
    job = make_job(bare)
    uses = load_state(job.state_path, job.db.key)["steps"]["mine_log"]["result"]["column_uses"]
    assert uses["ORD_TXN.AMT"] == 4 and uses["ORD_TXN.STS_CD"] == 2 and uses["CUST_MSTR.CTRY_CD"] == 1


def test_a_failing_model_leaves_its_steps_incomplete_until_a_rerun(bare: Settings) -> None:  # noqa: F811
    broken = ScriptedChatModel(script=lambda messages: "{not json")
    report = run_onboarding(make_job(bare, broken))
    status = {s.name: s.status for s in report.steps}
    assert status["describe"] == "incomplete" and status["draft_metrics"] == "incomplete"
    assert status["draft_records"] == "done" and report.steps[2].errors
    again = run_onboarding(make_job(bare))
    assert {s.name: s.status for s in again.steps} == {
        "profile": "resumed", "dictionary": "resumed", "describe": "done", "draft_records": "resumed",
        "draft_joins": "resumed", "draft_metrics": "done", "mine_log": "resumed", "draft_examples": "resumed",
        "review_queue": "done"}


def test_state_file_is_json_and_a_bad_one_starts_over(bare: Settings) -> None:  # noqa: F811
    job = make_job(bare)
    run_onboarding(job)
    saved = json.loads(job.state_path.read_text())
    assert saved["version"] == 1 and saved["database"] == "shop" and list(saved["steps"]) == NAMES
    assert [p.name for p in job.state_path.parent.iterdir()] == ["shop.json"]  # atomic: no temp files left
    job.state_path.write_text("{broken")
    assert {s.status for s in run_onboarding(make_job(bare)).steps} <= {"done", "skipped"}


def test_opaque_only_describes_no_readable_name_and_widening_redoes_describe(bare: Settings) -> None:  # noqa: F811
    narrow = run_onboarding(make_job(bare, opaque_only=True))
    describe = narrow.steps[2]
    assert describe.status == "done" and describe.llm_calls == 0  # CUST_NM, SEG, ORD_DT all read as words
    wide = run_onboarding(make_job(bare))
    assert wide.steps[2].status == "done" and wide.steps[2].llm_calls == 5  # the scope changed: described now
