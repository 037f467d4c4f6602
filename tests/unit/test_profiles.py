"""Generation profile by model capability, not by URL; the local server's port moves the roles' URLs."""

from __future__ import annotations

import pytest

from core.profile import detect_profile, is_small_model, model_size_billions
from core.settings import LOCAL_BASE_URL, ROLES, Settings


@pytest.mark.parametrize(("model", "size"), [
    ("qwen2.5-coder-1.5b-instruct", 1.5), ("Qwen/Qwen2.5-Coder-7B-Instruct", 7.0), ("llama3.1:8b", 8.0),
    ("llama3.3:70b", 70.0), ("qwen3-30b-a3b", 30.0), ("gpt-4o-mini", None), ("gpt-4.1", None),
])
def test_model_size_is_read_from_the_name(model: str, size: float | None) -> None:
    assert model_size_billions(model) == size


def test_small_models_by_size_or_family() -> None:
    assert is_small_model("qwen2.5-coder:1.5b") and is_small_model("phi-3-mini-4k-instruct")
    assert not is_small_model("gpt-4o-mini") and not is_small_model("mistral-small-24b")
    assert detect_profile("gpt-4.1", local_server=True) == "small"
    assert detect_profile("gpt-4.1", local_server=False) == "large"


def test_local_default_gets_the_small_profile() -> None:
    settings = Settings()
    assert settings.is_local("generator") and settings.generation_profile() == "small"
    assert settings.cascade_candidates() and not settings.parallel_candidates()
    assert settings.profile_warning() is None


def test_same_model_on_another_port_keeps_the_small_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__PORT", "9123")
    settings = Settings()
    assert all(settings.llm(r).base_url == "http://127.0.0.1:9123/v1" for r in ROLES)  # the roles follow
    assert settings.uses_local_llm() and settings.generation_profile() == "small"
    elsewhere = Settings(generator={"base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5-coder:1.5b"})
    assert not elsewhere.is_local("generator") and elsewhere.generation_profile() == "small"
    assert [c.strategy for c in elsewhere.candidate_specs()] == ["whole_schema", "direct", "plain", "query_plan",
                                                                 "divide_and_conquer"]


def test_explicit_urls_are_not_moved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__PORT", "9123")
    monkeypatch.setenv("NL2SQL_JUDGE__BASE_URL", "https://api.example.com/v1")
    settings = Settings()
    assert settings.judge.base_url == "https://api.example.com/v1" and not settings.is_local("judge")
    assert settings.planner.base_url != LOCAL_BASE_URL


def test_a_remote_large_model_gets_the_large_profile() -> None:
    settings = Settings(generator={"base_url": "https://api.example.com/v1", "model": "gpt-4.1"})
    assert settings.generation_profile() == "large" and len(settings.candidate_specs()) == 4
    assert settings.parallel_candidates() and not settings.cascade_candidates()


def test_explicit_profile_wins_and_warns_for_a_small_model() -> None:
    forced = Settings(generation={"profile": "large"})
    assert forced.generation_profile() == "large"
    assert forced.profile_warning() is not None and "small" in (forced.profile_warning() or "")
    small_remote = Settings(generator={"base_url": "https://api.example.com/v1", "model": "gpt-4.1"},
                            generation={"profile": "small"})
    assert small_remote.generation_profile() == "small" and small_remote.profile_warning() is None
