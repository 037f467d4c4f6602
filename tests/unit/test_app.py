"""The Streamlit pages (Streamlit's AppTest) with scripted fake LLMs, real SQLite and real Chroma."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import PROJECT_ROOT, Settings
from records.feedback import FeedbackStore
from records.paths import feedback_path, runs_path
from records.runs import RunStore
from retrieval.embeddings import OfflineMiniLM
from retrieval.store import EXAMPLES_INDEX, ChromaStore, db_filter
from tests.unit.app_fixtures import app_env  # noqa: F401 (fixture)

APP = str(PROJECT_ROOT / "app.py")
DEVELOPER = "from app import developer_page\ndeveloper_page()\n"
SETTINGS = "from ui.settings_page import settings_page\nsettings_page()\n"


@pytest.fixture()
def app(app_env: Settings) -> AppTest:  # noqa: F811
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def ask(at: AppTest, question: str) -> AppTest:
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    return at


def test_chat_shows_status_answer_table_csv_and_sql(app: AppTest) -> None:
    ask(app, "How many customers are from Brazil?")
    assert any(m.value == "N: 2" for m in app.markdown)  # a one-row answer is phrased by the template
    assert any("COUNT(*)" in c.value for c in app.code)
    assert any(c.value.startswith("What was computed:") and "country is 'Brazil'" in c.value for c in app.caption)
    assert any(m.value.startswith((":green-badge[", ":orange-badge[", ":red-badge[")) for m in app.markdown)
    assert any(c.value.startswith("Confidence: 2 of 2 independent SQL candidates") for c in app.caption)
    labels = [s.label for s in app.status]
    assert labels and labels[-1].startswith("Done in")
    ask(app, "Customers per country")
    tables = [d.value for d in app.dataframe if list(d.value.columns) == ["country", "n"]]
    assert len(tables) == 1 and tables[0]["n"].tolist() == [2, 1]
    assert [b.label for b in app.get("download_button")] == ["Download CSV"]
    questions = [m.value for m in app.markdown if m.value.startswith(("How many", "Customers per"))]
    assert questions == ["How many customers are from Brazil?", "Customers per country"]


def test_turns_are_stored_and_a_past_conversation_reopens(app: AppTest, app_env: Settings) -> None:  # noqa: F811
    ask(app, "How many customers are from Brazil?")
    thread = app.session_state.thread_id
    stored = RunStore(runs_path(app_env)).thread_runs(thread)
    assert [t.question for t in stored] == ["How many customers are from Brazil?"]
    assert stored[0].trace[0]["node"] == "plan" and any(r.get("output") for r in stored[0].trace)
    fresh = AppTest.from_file(APP, default_timeout=60).run()  # another browser session
    assert not any(m.value.startswith("How many") for m in fresh.markdown)
    reopen = [b for b in fresh.sidebar.button if b.label.startswith("How many customers")]
    assert len(reopen) == 1
    reopen[0].click().run()
    assert fresh.session_state.thread_id == thread
    assert any(m.value == "How many customers are from Brazil?" for m in fresh.markdown)


def test_new_conversation_starts_an_empty_thread(app: AppTest) -> None:
    ask(app, "How many customers are from Brazil?")
    first = app.session_state.thread_id
    app.sidebar.button[0].click().run()
    assert app.session_state.thread_id != first
    assert not any(m.value.startswith("How many") for m in app.main.markdown)


def test_follow_up_uses_the_thread_history(app: AppTest) -> None:
    ask(app, "How many customers are from Brazil?")
    ask(app, "And from Sweden?")
    assert any("'Sweden'" in c.value for c in app.code)
    assert [m.value for m in app.markdown if m.value.startswith("N: ")] == ["N: 2", "N: 1"]


def test_bad_question_is_explained_and_kept(app: AppTest) -> None:
    ask(app, "?!?")
    assert any("plain language" in e.value for e in app.error)
    app.run()
    assert any("plain language" in e.value for e in app.error)  # still there after a rerun


def test_endpoint_down_is_human_readable(app: AppTest, app_env: Settings, shop_store: ChromaStore,  # noqa: F811
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.runner import build_deps
    from tests.support.scripted_model import ScriptedChatModel
    from ui import services

    down = ScriptedChatModel(script=lambda _: ConnectionError("Connection error."))
    services.set_deps_factory(lambda cfg: build_deps(cfg, store=shop_store, llm_overrides={
        "planner": down, "generator": down, "organizer": down, "judge": down, "filter": down}))
    services.reset_agents()
    ask(app, "How many customers are from Brazil?")
    assert any("did not answer" in e.value for e in app.error)


def test_thumbs_up_is_stored_with_a_comment(app: AppTest, app_env: Settings) -> None:  # noqa: F811
    ask(app, "How many customers are from Brazil?")
    app.feedback[0].set_value(1).run()
    assert not app.exception
    records = FeedbackStore(feedback_path(app_env)).find()
    assert len(records) == 1
    rec = records[0]
    assert (rec.rating, rec.status, rec.thread_id) == ("up", "pending", app.session_state.thread_id)
    assert rec.sql and "Brazil" in rec.sql and rec.result_digest and rec.row_count == 1
    app.text_input[0].input("Exactly right")
    app.form_submit_button[0].click().run()
    assert FeedbackStore(feedback_path(app_env)).find()[0].comment == "Exactly right"


def test_thumbs_down_goes_to_review(app: AppTest, app_env: Settings) -> None:  # noqa: F811
    ask(app, "How many customers are from Brazil?")
    app.feedback[0].set_value(0).run()
    assert FeedbackStore(feedback_path(app_env)).find()[0].status == "review"


def test_chart_is_drawn_from_a_typed_spec(app: AppTest) -> None:
    ask(app, "Plot customers per country")
    assert len(app.get("plotly_chart")) == 1


def test_developer_panel_approves_a_proposed_example(app: AppTest, app_env: Settings,  # noqa: F811
                                                     shop_store: ChromaStore) -> None:
    ask(app, "How many customers are from Brazil?")
    app.feedback[0].set_value(1).run()
    dev = AppTest.from_string(DEVELOPER, default_timeout=60).run()
    assert not dev.exception, dev.exception
    approve = [b for b in dev.form_submit_button if b.label == "Approve"]
    approve[0].click().run()
    assert not dev.exception, dev.exception
    assert FeedbackStore(feedback_path(app_env)).find()[0].status == "approved"
    questions = [h.metadata["question"] for h in shop_store.get(EXAMPLES_INDEX, db_filter(_key(shop_store)))]
    assert "How many customers are from Brazil?" in questions


def test_developer_panel_shows_traces_and_runs_a_tool(app: AppTest) -> None:
    ask(app, "How many customers are from Brazil?")
    dev = AppTest.from_string(DEVELOPER, default_timeout=60).run()
    steps = [d.value for d in dev.dataframe if "tool" in d.value.columns and "output" in d.value.columns]
    assert steps and set(steps[0]["tool"].dropna()) >= {"retrieve_schema", "generate_sql", "execute_sql"}
    dev.selectbox(key="bench-tool").set_value("execute_sql")
    dev.text_area(key="bench-input").input("SELECT COUNT(*) FROM orders")
    dev.form_submit_button[0].click().run()
    assert not dev.exception, dev.exception
    assert any("execute_sql: ok" in e.label for e in dev.expander)


def test_developer_panel_rebuilds_indexes_with_progress(app_env: Settings) -> None:  # noqa: F811
    dev = AppTest.from_string(DEVELOPER, default_timeout=120).run()
    rebuild = [b for b in dev.button if b.label == "Rebuild indexes"]
    rebuild[0].click().run()
    assert not dev.exception, dev.exception
    assert any("tables" in s.value for s in dev.success)
    counts = next(d.value for d in dev.dataframe if list(d.value.columns) == ["collection", "records"])
    assert counts.set_index("collection")["records"]["schemas_index"] == 2


def test_settings_page_hides_secrets_and_applies_session_choices(app_env: Settings) -> None:  # noqa: F811
    at = AppTest.from_string(SETTINGS, default_timeout=60).run()
    assert not at.exception, at.exception
    models = at.dataframe[0].value
    assert set(models["role"]) == {"planner", "generator", "judge", "organizer", "filter"}
    assert "sk-local" not in models.to_string()
    at.toggle[0].set_value(False)
    at.text_input[1].input("direct")
    at.form_submit_button[0].click().run()
    ov = at.session_state.overrides
    assert ov.use_examples is False and ov.candidates == "direct"


def _key(store: ChromaStore) -> str:
    return next(iter(store.db_keys()))


def test_developer_panel_edits_and_approves_a_knowledge_record(app_env: Settings) -> None:  # noqa: F811
    from knowledge.files import load_knowledge, save_knowledge
    from knowledge.records import KnowledgeBase, KnowledgeRecord

    path = app_env.resolved_knowledge_path()
    assert path is not None
    save_knowledge(path, KnowledgeBase(records=[KnowledgeRecord(
        id="mined_term_brazil", type="term", name="customers.country = 'Brazil'", definition="mined filter",
        provenance="mined")]))
    dev = AppTest.from_string(DEVELOPER, default_timeout=60).run()
    assert not dev.exception, dev.exception
    dev.text_input(key="kbn-mined_term_brazil").input("brazilian customers")
    dev.text_input(key="kbs-mined_term_brazil").input("customers from Brazil, Brazilians")
    next(b for b in dev.form_submit_button if b.label == "Approve record").click().run()
    assert not dev.exception, dev.exception
    record = load_knowledge(path).records[0]
    assert (record.status, record.name, record.synonyms) == (
        "approved", "brazilian customers", ["customers from Brazil", "Brazilians"])


def _shop_knowledge(settings: Settings) -> None:
    from knowledge.files import save_knowledge
    from knowledge.records import KnowledgeBase, KnowledgeRecord

    path = settings.resolved_knowledge_path()
    assert path is not None
    save_knowledge(path, KnowledgeBase(records=[
        KnowledgeRecord(id="sales", type="metric", name="sales", sql="SUM(orders.amount)", definition="Order amounts.",
                        requires=["period"], status="approved"),
        KnowledgeRecord(id="top_customers", type="term", name="top customers", definition="ambiguous",
                        readings=["by total amount ordered", "by number of orders"], status="approved"),
    ]))


def test_clarification_buttons_ask_the_chosen_reading_in_the_thread(app_env: Settings) -> None:  # noqa: F811
    _shop_knowledge(app_env)
    at = AppTest.from_file(APP, default_timeout=60).run()
    ask(at, "Who are the top customers?")
    buttons = [b for b in at.button if b.label.startswith("Who are the top customers, by")]
    assert [b.label for b in buttons] == ["Who are the top customers, by total amount ordered?",
                                          "Who are the top customers, by number of orders?"]
    buttons[1].click().run()
    assert not at.exception, at.exception
    turns = RunStore(runs_path(app_env)).thread_runs(at.session_state.thread_id)
    assert [(t.question, t.kind) for t in turns] == [
        ("Who are the top customers?", "clarify"), ("Who are the top customers, by number of orders?", "answer")]


def test_follow_up_reply_completes_the_pending_question(app_env: Settings) -> None:  # noqa: F811
    _shop_knowledge(app_env)
    at = AppTest.from_file(APP, default_timeout=60).run()
    ask(at, "What were the sales in Brazil?")
    assert any("the period" in i.value for i in at.info)
    ask(at, "in 2024")
    turns = RunStore(runs_path(app_env)).thread_runs(at.session_state.thread_id)
    assert [t.kind for t in turns] == ["follow_up", "answer"] and turns[1].sql
    plan = next(t for t in turns[1].trace if t.get("node") == "plan")
    assert plan["completed_question"] == "What were the sales in Brazil? (in 2024)"


def _badge_script() -> None:
    from agent.confidence import assess
    from agent.outcome import Outcome
    from ui.render import confidence_badge

    sql = "SELECT NM FROM EDTR ORDER BY c7 LIMIT 1"
    out = Outcome(answer="Marek Siudym", status="ok", sql=sql, columns=["NM"], rows=[["Marek Siudym"]],
                  candidates=[{"strategy": "direct", "status": "ok", "sql": sql, "row_count": 1},
                              {"strategy": "plain", "status": "ok", "sql": sql, "row_count": 1}],
                  agreement=1.0, guessed_columns=["EDTR.c7"])
    out.confidence = assess(out)
    confidence_badge(out)


def test_a_guessed_column_is_named_under_the_answer() -> None:
    at = AppTest.from_function(_badge_script, default_timeout=30).run()
    assert not at.exception, at.exception
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Read by guess from stored values") and "`EDTR.c7`" in c for c in captions), captions
    assert any("name says nothing" in c for c in captions)
    assert not any(m.value.startswith(":green-badge[") for m in at.markdown)  # never verified


def _unread_script() -> None:
    from agent.confidence import assess
    from agent.outcome import Outcome
    from ui.render import confidence_badge

    sql = "SELECT PROD_DSC FROM PROD ORDER BY PROD_PRC DESC LIMIT 1"
    out = Outcome(answer="a good read", status="ok", sql=sql, columns=["PROD_DSC"], rows=[["a good read"]],
                  candidates=[{"strategy": "direct", "status": "ok", "sql": sql, "row_count": 1},
                              {"strategy": "plain", "status": "ok", "sql": sql, "row_count": 1}],
                  agreement=1.0, unread_terms=["name"], unread_columns=["PROD.c2", "PROD.c5"])
    out.confidence = assess(out)
    confidence_badge(out)


def test_a_question_word_no_readable_column_names_is_shown_with_the_unread_columns() -> None:
    at = AppTest.from_function(_unread_script, default_timeout=30).run()
    assert not at.exception, at.exception
    captions = [c.value for c in at.caption]
    assert any(c.startswith('No readable column of the tables read names "name"') and "`PROD.c2`, `PROD.c5`" in c
               for c in captions), captions
    assert any("may have missed what was asked" in c for c in captions)
    assert not any(m.value.startswith(":green-badge[") for m in at.markdown)  # never verified


def _range_script() -> None:
    from agent.confidence import assess
    from agent.outcome import Outcome
    from ui.render import confidence_badge

    sql = "SELECT NM FROM PPL WHERE WT > 200"
    out = Outcome(answer="Nine people.", status="ok", sql=sql, columns=["NM"], rows=[["Ann"]],
                  candidates=[{"strategy": "direct", "status": "ok", "sql": sql, "row_count": 1}], agreement=1.0,
                  range_conflicts=["200 compared with PPL.WT, whose stored values run from 82 to 94"])
    out.confidence = assess(out)
    confidence_badge(out)


def test_a_number_outside_the_stored_values_is_named_under_the_answer() -> None:
    at = AppTest.from_function(_range_script, default_timeout=30).run()
    assert not at.exception, at.exception
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Outside the stored values: 200 compared with PPL.WT") and "every row or none" in c
               for c in captions), captions


def _text_order_script() -> None:
    from agent.confidence import assess
    from agent.outcome import Outcome
    from ui.render import confidence_badge

    out = Outcome(answer="Ann.", status="ok", sql="SELECT name FROM wrestler ORDER BY days_held DESC LIMIT 1",
                  columns=["name"], rows=[["Ann"]],
                  text_order=["wrestler.days_held stores numbers as text: it is ordered and compared alphabetically "
                                "('9' after '10'); CAST it to a number for the numeric order"],
                  candidates=[{"strategy": "direct", "status": "ok", "sql": "SELECT 1", "row_count": 1}],
                  agreement=1.0)
    out.confidence = assess(out)
    confidence_badge(out)


def test_numbers_stored_as_text_are_named_under_the_answer() -> None:
    at = AppTest.from_function(_text_order_script, default_timeout=30).run()
    assert not at.exception, at.exception
    assert any(c.value.startswith("Ordered as text: wrestler.days") for c in at.caption)


def _unstated_join_script() -> None:
    from agent.confidence import assess
    from agent.outcome import Outcome
    from ui.render import confidence_badge

    out = Outcome(answer="Ann.", status="ok", sql="SELECT PPL.NM FROM PPL JOIN GYMNST ON PPL.NM = GYMNST.c3",
                  columns=["NM"], rows=[["Ann"]], unstated_joins=["PPL.NM = GYMNST.c3"], keys_stated=True,
                  candidates=[{"strategy": "direct", "status": "ok", "sql": "SELECT 1", "row_count": 1}],
                  agreement=1.0)
    out.confidence = assess(out)
    confidence_badge(out)


def test_a_join_on_a_link_no_key_states_is_named_under_the_answer() -> None:
    at = AppTest.from_function(_unstated_join_script, default_timeout=30).run()
    assert not at.exception, at.exception
    assert any(c.value.startswith("Joined on a link no foreign key of the database states: `PPL.NM = GYMNST.c3`")
               for c in at.caption), [c.value for c in at.caption]
    assert any("1 link no foreign key of the database states" in c.value for c in at.caption)


def test_a_database_without_an_index_is_indexed_on_its_first_visit(
        monkeypatch: pytest.MonkeyPatch, shop_settings: Settings, embedding_function: OfflineMiniLM) -> None:
    from retrieval.hybrid import load_catalog
    from tests.unit.app_fixtures import app_environment

    store = ChromaStore(shop_settings.retrieval.chroma_path, embedding_function)  # empty: never indexed
    try:
        with app_environment(monkeypatch, shop_settings, store):
            at = AppTest.from_file(APP, default_timeout=60).run()
            assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
            assert load_catalog(store, "shop") is not None
            ask(at, "How many customers are from Brazil?")
            assert any(m.value == "N: 2" for m in at.markdown)
    finally:
        store.close()
