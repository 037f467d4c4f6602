"""Prompt-cache warm-up: the planner's and the generator's stable prefixes are sent once, errors are values."""

from __future__ import annotations

from agent.runner import build_deps
from agent.warmup import warm_up
from core.settings import CandidateSpec, Settings
from retrieval.store import ChromaStore
from tests.support.scripted_model import ScriptedChatModel


def test_warm_up_sends_the_planner_and_generator_prefixes(shop_settings: Settings, shop_store: ChromaStore) -> None:
    models = {"planner": ScriptedChatModel(replies=["{"]), "generator": ScriptedChatModel(replies=["S"])}
    fixed = build_deps(shop_settings, llm_overrides=models, store=shop_store)  # type: ignore[arg-type]
    assert set(warm_up(fixed).seconds) == {"generator"}  # default settings: the plan needs no planner call
    insights = shop_settings.model_copy(update={"use_insights": True})
    deps = build_deps(insights, llm_overrides=models, store=shop_store)  # type: ignore[arg-type]
    report = warm_up(deps)
    assert report.ok and set(report.seconds) == {"planner", "generator"}
    planner_system = str(models["planner"].prompts[0][0].content)
    generator_system = str(models["generator"].prompts[0][0].content)
    assert "Optional steps" in planner_system
    assert "customers" in generator_system and "orders" in generator_system  # the whole (small) schema


def test_warm_up_reports_failures(shop_settings: Settings, shop_store: ChromaStore) -> None:
    down = ScriptedChatModel(replies=[ConnectionError("refused")])
    deps = build_deps(shop_settings, llm_overrides={"planner": down, "generator": down}, store=shop_store)  # type: ignore[arg-type]
    report = warm_up(deps)
    assert not report.ok and "refused" in report.errors["generator"]


def test_warm_up_sends_the_whole_schema_prefix_when_the_cascade_has_it(shop_settings: Settings,
                                                                         shop_store: ChromaStore) -> None:
    with_whole = shop_settings.model_copy(update={"generation": shop_settings.generation.model_copy(
        update={"candidates_local": CandidateSpec.parse_list("whole,direct,plain")})})
    generator = ScriptedChatModel(replies=["S"])
    deps = build_deps(with_whole, llm_overrides={"generator": generator}, store=shop_store)  # type: ignore[arg-type]
    report = warm_up(deps)
    assert report.ok and set(report.seconds) == {"generator", "whole_schema"}
    whole_system = str(generator.prompts[1][0].content)
    assert whole_system.startswith("You write one sqlite SQL query") and "CREATE TABLE" in whole_system
