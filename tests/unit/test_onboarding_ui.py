"""The developer panel's Onboarding tab (Streamlit's AppTest, scripted models) and the logic behind it."""

from __future__ import annotations

from typing import Any

from streamlit.testing.v1 import AppTest

from core.llm import LLMProvider
from core.settings import Settings
from database.connection import Database
from database.descriptions import load_enriched
from knowledge.files import load_knowledge
from retrieval.onboarding import STEPS, OnboardingJob, Progress, QueueItem, load_state, run_onboarding
from tests.support.scripted_model import ScriptedChatModel
from tests.unit.app_fixtures import app_env  # noqa: F401 (fixture)
from tests.unit.onboarding_fixtures import reply
from ui.onboarding import ProgressBoard, queue_frame, selected

DEVELOPER = "from app import developer_page\ndeveloper_page()\n"


def test_progress_board_follows_events_from_the_saved_state() -> None:
    drawn: list[tuple[str, float, str]] = []
    state = {"steps": {"profile": {"status": "done", "items": 2}}}
    board = ProgressBoard(state, lambda *args: drawn.append(args))
    assert board.fractions == {s.name: 1.0 if s.name == "profile" else 0.0 for s in STEPS}
    assert board.texts["profile"] == "profile: done (2 items)" and board.texts["describe"] == "describe: to do (model)"
    board(Progress(2, 6, "describe", 1, 4, "ORD_TXN"))
    board(Progress(1, 6, "profile", state="skipped"))
    board(Progress(3, 6, "draft_records", 2, 2, state="incomplete"))
    assert drawn == [("describe", 0.25, "describe: 1/4 ORD_TXN"), ("profile", 1.0, "profile: already done"),
                     ("draft_records", 1.0, "draft_records: incomplete")]


def test_selection_and_table_of_the_queue() -> None:
    items = [QueueItem(key=f"record:r{i}", kind="record", type="enum", title=f"enum r{i}", text="t", score=10 - i,
                       record_id=f"r{i}", touches=["T.A"]) for i in range(3)]
    assert selected(items, {"onb-sel-record:r1": True, "onb-sel-record:r2": False}) == [items[1]]
    frame = queue_frame(items)
    assert list(frame["score"]) == [10, 9, 8] and list(frame.columns)[:3] == ["score", "kind", "type"]


def _onboard(settings: Settings) -> OnboardingJob:
    llms = LLMProvider(settings, overrides={"generator": ScriptedChatModel(script=reply)})
    job = OnboardingJob.from_settings(settings, Database.from_settings(settings), llms)
    run_onboarding(job)
    return job


def _keys(dev: AppTest) -> list[str]:
    return [str(c.key) for c in dev.checkbox if str(c.key).startswith("onb-sel-")]


def test_the_tab_approves_the_selected_drafts_in_bulk(app_env: Settings) -> None:  # noqa: F811
    job = _onboard(app_env)
    dev = AppTest.from_string(DEVELOPER, default_timeout=60).run()
    assert not dev.exception, dev.exception
    keys = _keys(dev)
    assert len(keys) >= 5 and any("Review queue" in s.value for s in dev.subheader)
    dev.checkbox(key=keys[0]).check()
    dev.checkbox(key=keys[1]).check()
    dev.button(key="onb-reject").click().run()
    assert not dev.exception, dev.exception
    assert len(_keys(dev)) == len(keys) - 2 and any("2 drafts rejected" in s.value for s in dev.success)
    dev.button(key="onb-all").click().run()
    dev.button(key="onb-approve").click().run()
    assert not dev.exception, dev.exception
    assert _keys(dev) == [] and any("Nothing waiting" in c.value for c in dev.caption)
    statuses: list[Any] = [r.status for r in load_knowledge(job.knowledge_path).records]
    entries = load_enriched(job.enriched_path)["tables"]
    statuses += [e["status"] for spec in entries.values()
                 for e in [spec["description"], *spec["columns"].values()] if e]
    assert statuses.count("rejected") == 2 and set(statuses) == {"approved", "rejected"}


def test_the_start_button_runs_every_step_with_the_panel_model(app_env: Settings) -> None:  # noqa: F811
    dev = AppTest.from_string(DEVELOPER, default_timeout=120).run()
    assert not dev.exception, dev.exception
    start = dev.button(key="onb-start")
    assert start.label == "Start onboarding"
    start.click().run()
    assert not dev.exception, dev.exception
    db = Database.from_settings(app_env)
    state = load_state(app_env.state_dir / "onboarding" / f"{db.key}.json", db.key)
    assert list(state["steps"]) == [s.name for s in STEPS]
    # the panel's scripted generator writes SQL, not descriptions: those steps end incomplete, the others done
    assert state["steps"]["describe"]["status"] == "incomplete" and state["steps"]["profile"]["status"] == "done"
    assert dev.run().button(key="onb-start").label == "Resume onboarding"
    assert any(d.value.shape[0] == len(STEPS) for d in dev.dataframe if "step" in d.value.columns)


def test_the_tab_imports_a_data_dictionary_and_refuses_a_bad_one(app_env: Settings) -> None:  # noqa: F811
    sheet = app_env.state_dir.parent / "dictionary.csv"
    sheet.write_text("table,column,description\ncustomers,,One row per customer (the team's words).\n")
    dev = AppTest.from_string(DEVELOPER, default_timeout=120).run()
    dev.text_input(key="onb-dictionary").input(str(sheet.with_name("missing.csv"))).run()
    dev.button(key="onb-start").click().run()
    assert any("no data dictionary at" in e.value for e in dev.error)
    db = Database.from_settings(app_env)
    assert not load_state(app_env.state_dir / "onboarding" / f"{db.key}.json", db.key)["steps"]  # nothing ran
    dev.text_input(key="onb-dictionary").input(str(sheet)).run()
    dev.button(key="onb-start").click().run()
    assert not dev.exception, dev.exception
    state = load_state(app_env.state_dir / "onboarding" / f"{db.key}.json", db.key)
    assert state["steps"]["dictionary"]["status"] == "done" and state["steps"]["dictionary"]["items"] == 1
    enriched = load_enriched(app_env.state_dir.parent / "shop.enriched.yaml")
    assert enriched["tables"]["customers"]["description"]["status"] == "edited"


def test_the_tab_edits_one_draft_and_approves_it(app_env: Settings) -> None:  # noqa: F811
    job = _onboard(app_env)
    dev = AppTest.from_string(DEVELOPER, default_timeout=60).run()
    assert not dev.exception, dev.exception
    keys = _keys(dev)
    target = next(k.removeprefix("onb-sel-") for k in keys if k.startswith("onb-sel-column:"))
    dev.selectbox(key="onb-edit-key").set_value(target).run()
    dev.text_area(key=f"onb-edit-text-{target}").input("  What the reviewer knows  ").run()
    dev.button(key="onb-edit-save").click().run()
    assert not dev.exception, dev.exception
    assert any("saved as edited" in s.value for s in dev.success) and len(_keys(dev)) == len(keys) - 1
    table, _, column = target.removeprefix("column:").partition(".")
    entry = load_enriched(job.enriched_path)["tables"][table]["columns"][column]
    assert (entry["text"], entry["status"]) == ("What the reviewer knows", "edited")
    other = _keys(dev)[0].removeprefix("onb-sel-")
    dev.selectbox(key="onb-edit-key").set_value(other).run()
    dev.text_area(key=f"onb-edit-text-{other}").input("   ").run()
    dev.button(key="onb-edit-save").click().run()
    assert any("Not saved: the edited text is empty" in e.value for e in dev.error)
