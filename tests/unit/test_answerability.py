"""Answer, clarify, follow up or refuse: the answerability check with scripted models on the shop database."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from agent.nodes import complete_follow_up
from core.settings import Settings
from knowledge.files import save_knowledge
from knowledge.parameters import has_date, has_period, unstated_entity
from knowledge.records import KnowledgeBase, KnowledgeRecord
from retrieval.store import ChromaStore
from tests.unit.test_agent import COUNT_SQL, _ask, _prompt_text
from tools.coverage import uncovered_terms


def _knowledge(settings: Settings) -> None:
    path = settings.resolved_knowledge_path()
    assert path is not None
    save_knowledge(path, KnowledgeBase(records=[
        KnowledgeRecord(id="sales", type="metric", name="sales", synonyms=["revenue"], sql="SUM(orders.amount)",
                        definition="Order amounts.", requires=["period"], status="approved"),
        KnowledgeRecord(id="top_customers", type="term", name="top customers", definition="ambiguous",
                        readings=["by total amount ordered", "by number of orders"], status="approved"),
    ]))


def _generator(decision: dict[str, Any] | None = None) -> Any:
    """A generator script: the answerability decision when asked, else the count SQL."""
    def script(messages: list[BaseMessage]) -> dict[str, Any]:
        if "decide whether the database above can answer" in _prompt_text(messages):
            return decision or {"kind": "answer"}
        return {"sql": COUNT_SQL}
    return script


def test_follow_up_when_a_required_parameter_is_missing(shop_settings: Settings, shop_store: ChromaStore) -> None:
    _knowledge(shop_settings)
    out, models = _ask(shop_settings, shop_store, "What were the sales of Ana?", planner={})
    assert out.kind == "follow_up" and out.sql is None and "period" in (out.missing or "")
    assert not models["generator"].prompts  # decided without any LLM call
    assert "generate_sql" not in [t.get("tool") for t in out.trace]
    out, _ = _ask(shop_settings, shop_store, "What were the sales of Ana in 2024?", planner={})
    assert out.kind == "answer" and out.sql


def test_clarify_offers_readings_unless_a_metric_settles_it(shop_settings: Settings,
                                                            shop_store: ChromaStore) -> None:
    _knowledge(shop_settings)
    out, _ = _ask(shop_settings, shop_store, "Who are the top customers?", planner={})
    assert out.kind == "clarify"
    assert out.readings == ["Who are the top customers, by total amount ordered?",
                            "Who are the top customers, by number of orders?"]
    out, _ = _ask(shop_settings, shop_store, "Who are the top customers by number of orders?", planner={})
    assert out.kind == "answer"


def test_refuse_needs_uncovered_words_and_the_models_verdict(shop_settings: Settings,
                                                             shop_store: ChromaStore) -> None:
    refuse = {"kind": "refuse", "missing": "customer credit scores", "readings": []}
    settings = shop_settings.model_copy(update={"answerability": shop_settings.answerability.model_copy(
        update={"llm_check": True, "missing_data": "refuse"})})
    from agent.runner import ask, build_deps
    from tests.support.scripted_model import ScriptedChatModel

    def run(question: str, decision: dict[str, Any]) -> tuple[Any, ScriptedChatModel]:
        generator = ScriptedChatModel(script=_generator(decision))
        deps = build_deps(settings, llm_overrides={"generator": generator,
                                                   "organizer": ScriptedChatModel(replies=[{"text": "x"}])},
                          store=shop_store)  # type: ignore[arg-type]
        return ask(deps, question), generator

    out, generator = run("What is the credit score of Ana?", refuse)
    assert out.kind == "refuse" and out.missing == "customer credit scores" and out.sql is None
    assert "credit" in out.answer and len(generator.prompts) == 1
    decision = next(t for t in out.trace if t.get("tool") == "check_question")
    assert "refuse" in decision["output"]
    # the model names as missing something the schema has ("country"), not the uncovered word: overruled
    out, generator = run("What is the credit score of Ana?", {"kind": "refuse", "missing": "country", "readings": []})
    assert out.kind == "answer" and any("decide whether" in _prompt_text(p) for p in generator.prompts)
    # every word covered: the model is not asked, even if it would refuse
    out, generator = run("How many customers are from Brazil?", refuse)
    assert out.kind == "answer" and out.rows == [[2]]
    assert all("decide whether" not in _prompt_text(p) for p in generator.prompts)
    # "nation" is in no schema text, but its embedding is close to the column country: a synonym, no model call
    out, generator = run("How many customers are there in each nation?", refuse)
    assert out.kind == "answer" and all("decide whether" not in _prompt_text(p) for p in generator.prompts)
    check = next(t for t in out.trace if t.get("tool") == "check_question")
    assert check["output"] == "answer"
    off = settings.model_copy(update={"answerability": settings.answerability.model_copy(update={"enabled": False})})
    settings = off
    out, _ = run("What is the credit score of Ana?", refuse)
    assert out.kind == "answer"


def test_default_answers_and_asks_which_column_means_an_unknown_word(shop_settings: Settings,
                                                                    shop_store: ChromaStore) -> None:
    """A word found nowhere in the schema is no refusal by default: the answer comes with column options."""
    from agent.runner import ask, build_deps
    from tests.support.scripted_model import ScriptedChatModel

    assert shop_settings.answerability.missing_data == "ask"
    generator = ScriptedChatModel(script=_generator({"kind": "refuse", "missing": "credit scores", "readings": []}))
    deps = build_deps(shop_settings, llm_overrides={"generator": generator,
                                                    "organizer": ScriptedChatModel(replies=[{"text": "x"}])},
                      store=shop_store)  # type: ignore[arg-type]
    out = ask(deps, "What is the credit score of Ana?")
    assert out.kind == "answer" and out.sql and out.rows
    assert all("decide whether" not in _prompt_text(p) for p in generator.prompts)  # no model check
    terms = {c["term"]: c for c in out.term_checks}
    assert set(terms) & {"credit", "score"}
    options = [o for c in out.term_checks for o in c["options"]]
    assert options and all({"table", "column", "score", "samples"} <= set(o) for o in options)
    assert any(o["samples"] for o in options)
    assert out.to_json()["term_checks"] == out.term_checks  # in ask --json and stored runs


def test_no_column_is_asked_for_a_quoted_value(shop_settings: Settings, shop_store: ChromaStore) -> None:
    """A quoted name the analyst typed is a value: the answer asks about the unknown word, not about the quote."""
    from agent.runner import ask, build_deps
    from tests.support.scripted_model import ScriptedChatModel

    generator = ScriptedChatModel(script=_generator({"kind": "answer", "missing": "", "readings": []}))
    deps = build_deps(shop_settings, llm_overrides={"generator": generator,
                                                    "organizer": ScriptedChatModel(replies=[{"text": "x"}])},
                      store=shop_store)  # type: ignore[arg-type]
    out = ask(deps, 'What are the credit scores of the customers of "Zenith Quarkworks"?')
    terms = {c["term"] for c in out.term_checks}
    assert terms and terms <= {"credit", "scores"}  # asked as written, not as folded for matching ("score")


def test_abbreviations_and_example_words_are_not_missing_data() -> None:
    from tools.coverage import GENERIC

    assert {"avg", "num", "qty", "pct"} <= GENERIC
    assert uncovered_terms("avg invoice amount by country, sorted", {"invoice", "amount", "country"}, 5.0) == []


def test_a_word_an_abbreviated_name_accounts_for_is_covered() -> None:
    """``GVRNR``, ``FLR`` and ``SAL`` name "governor", "floor" and "salary": no one is asked which column means them."""
    from retrieval.term_expansion import TermExpander, abbreviates

    question = "Show the lieutenant governor and the floor exercise points of the highest salary"
    vocab = {"show", "points"}
    assert uncovered_terms(question, vocab, 5.5) == ["lieutenant", "governor", "floor", "exercise", "salary"]
    names = TermExpander(["ltnt", "gvrnr", "flr", "exrcs", "pnts", "sal", "prty", "id", "c6"])
    assert uncovered_terms(question, vocab, 5.5, names) == []
    assert uncovered_terms("What is the credit score of Ana?", {"what"}, 5.0, names) == ["score", "ana"]
    assert not abbreviates("c6", "credit") and not abbreviates("id", "identifier")
    negated = "How many customers don't have an account?"  # "don't" is "do not", not a word "don"
    assert uncovered_terms(negated, {"customer", "account"}, 5.0) == []


def test_quoted_text_is_a_value_not_a_column_to_ask_about() -> None:
    from tools.coverage import quoted_words, written_forms

    assert written_forms("How many coaches?") == {"how": "how", "many": "many", "coache": "coaches"}
    assert quoted_words('Songs under the label "Universal Music Group"?') == {"universal", "music", "group"}
    assert quoted_words("problems of the product 'rem' but not \u201caut\u201d") == {"rem", "aut"}
    assert quoted_words("Johnson's customers' orders") == set()  # apostrophes are no quotes
    assert quoted_words("no quotes here") == set()


def test_follow_up_reply_completes_the_pending_question() -> None:
    history = [{"question": "What were the sales of Ana?", "kind": "follow_up", "missing": "the period"}]
    assert complete_follow_up(history, "in 2024") == "What were the sales of Ana? (in 2024)"
    assert complete_follow_up(history, "How many customers are from Brazil?") == "How many customers are from Brazil?"
    assert complete_follow_up([{"question": "q", "kind": "answer"}], "in 2024") == "in 2024"
    assert complete_follow_up([], "in 2024") == "in 2024"


def test_follow_up_then_reply_in_the_same_thread(shop_settings: Settings, shop_store: ChromaStore) -> None:
    from agent.runner import ask, build_deps
    from tests.support.scripted_model import ScriptedChatModel

    _knowledge(shop_settings)
    generator = ScriptedChatModel(script=_generator())
    deps = build_deps(shop_settings, llm_overrides={"generator": generator,
                                                    "organizer": ScriptedChatModel(replies=[{"text": "x"}])},
                      store=shop_store)  # type: ignore[arg-type]
    from langgraph.checkpoint.memory import InMemorySaver

    from agent.graph import build_graph

    graph = build_graph(InMemorySaver())
    first = ask(deps, "What were the sales of Ana?", thread_id="t-follow", graph=graph)
    assert first.kind == "follow_up"
    second = ask(deps, "in 2024", thread_id="t-follow", graph=graph)
    assert second.kind == "answer" and second.sql
    plan = next(t for t in second.trace if t.get("node") == "plan")
    assert plan["completed_question"] == "What were the sales of Ana? (in 2024)"


def test_parameter_and_coverage_detectors() -> None:
    assert has_period("returns in October 2025") and has_period("year-to-date") and has_period("since March")
    assert has_period("rendement en 2024") and not has_period("return of Apple")
    assert has_date("close on 2025-10-31") and has_date("latest close") and not has_date("return of SAP")
    vocab = {"customer", "order", "amount", "country", "brazil"}
    assert uncovered_terms("What is the credit score of Ana?", vocab, 5.0) == ["score", "ana"]  # "credit" is common
    assert uncovered_terms("How many orders per customer?", vocab, 5.0) == []
    words = {"playlist": "playlist", "customer": "customer"}
    assert unstated_entity("How many tracks are on the playlist?", words, set()) == "playlist"
    assert unstated_entity("the customer with the most orders", words, set()) is None
    assert unstated_entity("What did the customer buy?", words, {"customer"}) is None
    # "the customer" refers back to a quantified one
    assert unstated_entity("For each customer, the orders and the name of the customer.", words, set()) is None
    assert unstated_entity("List all customers with the country of the customer.", words, set()) is None
    # two adjacent words a stored value runs together are covered ("North Carolina" ~ 'NorthCarolina')
    assert uncovered_terms("Students in North Carolina", {"student", "northcarolina"}, 5.0) == []


def test_person_names_in_masked_columns_are_known_data(tmp_path: Any) -> None:
    """Masked name columns never reach the prompt or the value index; the names are looked up in place."""
    import sqlite3
    import types

    from database.connection import Database
    from tools.masked_names import capitalised, stored_in_masked_columns

    path = tmp_path / "staff.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE employees (id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, "
                           "reports_to INTEGER); INSERT INTO employees VALUES (1, 'Jane', 'Peacock', 2), "
                           "(2, 'Nancy', 'Edwards', NULL);")
    settings = Settings(database_url=f"sqlite:///{path}", local_llm={"auto_start": False}, state_dir=tmp_path)
    ctx: Any = types.SimpleNamespace(db=Database.from_settings(settings), settings=settings)
    question = "Who is Jane Peacock's manager? Is Grammy stored?"
    assert capitalised(question, ["jane", "peacock", "manager", "grammy"]) == ["jane", "peacock", "grammy"]
    assert stored_in_masked_columns(ctx, question, ["jane", "peacock", "manager", "grammy"]) == {"jane", "peacock"}
    assert stored_in_masked_columns(ctx, "who is jane?", ["jane"]) == set()  # not written as a name


def test_word_forms_typos_and_query_words_are_covered() -> None:
    from tools.coverage import can_name_data, prefix_covered

    vocab = {"nationality", "date", "arrived", "departed", "asia", "cartoon", "rating"}
    assert prefix_covered("nation", vocab) and prefix_covered("arrival", vocab) and prefix_covered("departure", vocab)
    assert prefix_covered("asian", vocab)
    assert not prefix_covered("ratio", vocab) and not prefix_covered("earning", {"early", "earn"} - {"earn"})
    assert uncovered_terms("Which nations have the most arrivals?", vocab, 5.0) == []
    assert uncovered_terms("List the cartools in reverse alphaetical order", vocab, 5.0) == []  # typos, query words
    assert uncovered_terms("What is the price-to-earnings ratio?", vocab, 5.0) == ["earning", "ratio"]
    assert can_name_data("earnings") and can_name_data("ratio") and can_name_data("esg")
    assert not can_name_data("founded") and not can_name_data("departing") and not can_name_data("rarest")
    assert can_name_data("esg") and not can_name_data("immatriculée", french=True)
    assert can_name_data("dividende", french=False) and can_name_data("dividend", french=True)


def test_a_refusal_resting_on_a_verb_form_is_overruled(shop_settings: Settings, shop_store: ChromaStore) -> None:
    from core.llm import LLMProvider, UsageLog
    from database.connection import Database
    from tests.support.scripted_model import ScriptedChatModel
    from tools.answerability import CheckQuestionArgs, CheckQuestionTool
    from tools.base import ToolContext

    settings = shop_settings.model_copy(update={"answerability": shop_settings.answerability.model_copy(
        update={"llm_check": True, "missing_data": "refuse", "synonym_similarity": 1.01})})
    args = CheckQuestionArgs(question="Which customers were audited by a broker?",
                             schema_text="CREATE TABLE customers (id INTEGER, name TEXT, country TEXT);")

    def decide(missing: str) -> Any:
        model = ScriptedChatModel(replies=[{"kind": "refuse", "missing": missing, "readings": []}])
        ctx = ToolContext(settings, Database.from_settings(settings), shop_store,
                          LLMProvider(settings, {"generator": model}), UsageLog())  # type: ignore[arg-type]
        return CheckQuestionTool().run(args, ctx).value

    verb = decide("audited")
    assert verb["kind"] == "answer" and "verb or adjective" in verb["evidence"]["rule"]
    noun = decide("broker")
    assert noun["kind"] == "refuse" and noun["missing"] == "broker"


def test_terse_undocumented_schemas_are_not_evidence_of_missing_data(
        shop_settings: Settings, shop_store: ChromaStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import tools.answerability as answerability
    from core.llm import LLMProvider, UsageLog
    from database.connection import Database
    from tests.support.scripted_model import ScriptedChatModel
    from tools.answerability import CheckQuestionArgs, CheckQuestionTool
    from tools.base import ToolContext
    from tools.coverage import column_is_legible

    assert column_is_legible("country_name", "") and column_is_legible("UnitPrice", "") and column_is_legible("id", "")
    assert not column_is_legible("PX_LST", "") and not column_is_legible("DAEND", "-- 2023-01-02..2025-10-31")
    assert not column_is_legible("TRD_CCY", "-- 9 distinct: 'USD','EUR'")
    assert column_is_legible("PX_LST", "-- Last (closing) price | 2.1..900.5")
    settings = shop_settings.model_copy(update={"answerability": shop_settings.answerability.model_copy(
        update={"llm_check": True, "missing_data": "refuse", "synonym_similarity": 1.01})})
    args = CheckQuestionArgs(question="Which customers were audited by a broker?",
                             schema_text="CREATE TABLE customers (id INTEGER, name TEXT, country TEXT);")
    model = ScriptedChatModel(replies=[{"kind": "refuse", "missing": "broker", "readings": []}] * 2)
    ctx = ToolContext(settings, Database.from_settings(settings), shop_store,
                      LLMProvider(settings, {"generator": model}), UsageLog())  # type: ignore[arg-type]
    legible = CheckQuestionTool().run(args, ctx).value
    assert legible["kind"] == "refuse" and legible["evidence"]["legibility"] == 1.0  # id, name, country...
    monkeypatch.setattr(answerability, "schema_legibility", lambda catalog: 0.4)
    terse = CheckQuestionTool().run(args, ctx).value
    assert terse["kind"] == "answer" and "terse codes" in terse["evidence"]["rule"] and len(model.prompts) == 1


def test_capitalised_words_stored_as_values_are_known_data(tmp_path: Any, embedding_function: Any) -> None:
    """A name the value linker misses ("North Carolina" for 'NorthCarolina') is stored data, not a missing one."""
    import sqlite3
    import types

    from database.connection import Database
    from retrieval.value_index import index_values
    from tools.masked_names import stored_as_values

    path = tmp_path / "campus.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE addresses (id INTEGER PRIMARY KEY, state TEXT, city TEXT);"
                           "INSERT INTO addresses VALUES (1, 'NorthCarolina', 'Port Oliver'), (2, 'Texas', 'Austin');")
    settings = Settings(database_url=f"sqlite:///{path}", local_llm={"auto_start": False}, state_dir=tmp_path)
    db = Database.from_settings(settings)
    store = ChromaStore(tmp_path / "chroma", embedding_function)
    assert index_values(db, store, settings=settings) > 0
    ctx: Any = types.SimpleNamespace(db=db, settings=settings, store=store)
    question = "Which students live in North Carolina or near Oliver, and what is their Grammy count?"
    uncovered = ["north", "carolina", "oliver", "grammy", "count"]
    assert stored_as_values(ctx, question, uncovered) == {"north", "carolina", "oliver"}
    assert stored_as_values(ctx, "students in north carolina", ["north", "carolina"]) == set()  # not names
    assert stored_as_values(types.SimpleNamespace(db=db, settings=settings, store=None), question, uncovered) == set()


def test_the_entity_asked_for_or_listed_earlier_is_not_unstated() -> None:
    words = {"county": "county", "market": "market", "playlist": "playlist"}
    assert unstated_entity("Which county has the largest populace? Give me the name of the county.", words, set()) is None
    assert unstated_entity("Show the names of phones and the region of markets they are on, in ascending order of "
                           "the ranking of the market.", words, set()) is None
    assert unstated_entity("How many tracks are on the playlist?", words, set()) == "playlist"


@pytest.mark.parametrize("question", [
    "For each party, find its location and the name of its host. Sort by the age of the host.",  # named before
    "Show the rank, first name, and last name for all the faculty.",  # quantified
    "What is the email and phone number of Astrid Gruber the customer?",  # named just before
    "List the grape, winery and year of the wines whose price is bigger than 100.",  # a column asked for
    "Show the season, the player, and the name of the country.",
    "What is the name of the nurse has the most appointments?",  # picked by a superlative
    "Find the id of the order made most recently.",
])
def test_an_entity_referred_back_to_listed_or_picked_is_no_unstated_entity(question: str) -> None:
    words = {w: w for w in ("host", "faculty", "customer", "grape", "player", "nurse", "order", "playlist")}
    assert unstated_entity(question, words, set()) is None


def test_an_entity_pointed_at_without_a_name_is_still_asked_for() -> None:
    words = {w: w for w in ("playlist", "customer", "employee", "invoice")}
    assert unstated_entity("How many tracks are on the playlist?", words, set()) == "playlist"
    assert unstated_entity("What did the customer buy?", words, set()) == "customer"
    assert unstated_entity("Which tracks did the employee sell?", words, set()) == "employee"
    assert unstated_entity("What is the total of the invoice?", words, set()) == "invoice"


def test_a_sort_key_or_an_attribute_is_no_unstated_time() -> None:
    from knowledge.parameters import unstated_time

    assert not unstated_time("Names of the chairs of festivals, sorted in ascending order of the year held?")
    assert not unstated_time("List the clubs by the year founded")
    assert unstated_time("What were the sales in the month?")


@pytest.mark.parametrize("question", [
    "What are the date and venue of each debate?",  # the date is what is asked for
    "List the date, theme and sales of the journal.",
    "Find the year which offers the largest number of courses.",
    "List the year in which there are more than one festivals.",
    "List the date the claim was made and the claim id.",
    "display the employee ID and the date on which he ended his previous job.",
    "how many programs are broadcast in each time section of the day?",
])
def test_a_time_column_asked_for_is_no_unstated_time(question: str) -> None:
    from knowledge.parameters import unstated_time

    assert not unstated_time(question)


def test_asking_for_a_date_column_gets_an_answer_not_a_question_back(shop_settings: Settings,
                                                                     shop_store: ChromaStore) -> None:
    out, models = _ask(shop_settings, shop_store, "What are the date and amount of each order?", planner={})
    assert out.kind == "answer" and out.sql
    assert models["generator"].prompts
    out, models = _ask(shop_settings, shop_store, "What were the orders in the month?", planner={})
    assert out.kind == "follow_up" and "period" in (out.missing or "") and not models["generator"].prompts


@pytest.mark.parametrize("question", [
    "What was Nvidia's return over the month?", "Total traded volume of Tesla in the quarter",
    "Average closing price of Amazon for the year", "Which stock performed best in the week, and by how much?",
    "Quel est le volume échangé sur le mois ?",
])
def test_a_time_referred_to_without_stating_it(question: str) -> None:
    from knowledge.parameters import unstated_time

    assert unstated_time(question)
