"""The screenshot and first-run scripts without a browser or a model: shot selection, framing of a missed shot,
the app's environment, the index command they read from ``make -n demo``, and the first-run targets."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("playwright")

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"script_{name}", ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


shots_script = _load("screenshots")
bench = _load("bench_first_answer")


def test_every_shot_belongs_to_one_scene() -> None:
    in_scenes = [name for _, names in shots_script.SCENES for name in names]
    assert sorted(in_scenes) == sorted(shots_script.SHOTS)
    assert len(in_scenes) == len(set(in_scenes))


def test_the_readme_picture_is_a_shot() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    referenced = set(re.findall(r"docs/screenshots/([\w.-]+)\.png", readme))
    assert referenced and referenced <= set(shots_script.SHOTS)


def test_only_selects_in_shot_order_and_rejects_unknown_names() -> None:
    assert shots_script.chosen(None) == list(shots_script.SHOTS)
    assert shots_script.chosen(["developer-traces,chat-chart.png", "chat-real-model"]) == [
        "chat-real-model", "chat-chart", "developer-traces"]
    with pytest.raises(ValueError, match="unknown shot nope"):
        shots_script.chosen(["chat-chart", "nope"])


class _Page:
    def __init__(self) -> None:
        self.shots: list[str] = []

    def screenshot(self, path: str, **_: Any) -> None:
        self.shots.append(path)


def test_a_shot_the_page_cannot_show_is_reported_not_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    shots = shots_script.Shots(out=tmp_path, wanted=["chat-chart", "chat-clarify"])
    page = _Page()
    shots.take(page, "chat-chart", missing="the answer has no chart")
    shots.take(page, "developer-traces")  # not wanted: nothing happens
    assert page.shots == [] and shots.missed == {"chat-chart": "the answer has no chart"}
    assert "could not take chat-chart: the answer has no chart" in capsys.readouterr().out
    assert shots.wants("chat-clarify") and not shots.wants("chat-chart", "developer-traces")


def test_a_failed_wait_is_summed_up_without_the_call_log() -> None:
    exc = AssertionError("Locator expected to be visible\nActual value: None\nCall log:\n  - waiting for x\n  - y")
    assert shots_script.first_lines(exc) == "Locator expected to be visible / Actual value: None"


@pytest.mark.parametrize("script", [shots_script, bench])
def test_only_the_real_app_starts_the_model_server(script: ModuleType, tmp_path: Path) -> None:
    assert script.app_env("app.py", tmp_path) == {"NL2SQL_STATE_DIR": str(tmp_path)}
    fake = script.app_env("tests/e2e/fake_app.py", tmp_path)
    assert fake["NL2SQL_LOCAL_LLM__AUTO_START"] == "false"


@pytest.mark.skipif(shutil.which("make") is None, reason="make not found")
def test_the_index_step_is_make_demos_without_the_warm_up() -> None:
    from tests.e2e.steps import demo_index_command

    cmd = demo_index_command()
    assert Path(cmd[0]).name == "nl2sql" and cmd[1:] == ["index", "--quiet"]


def test_first_run_targets_are_judged_and_a_failed_answer_meets_none() -> None:
    figures = {"page_up_s": 19.9, "first_answer_s": 25.1, "follow_up_s": 3.0}
    assert bench.verdict(figures, "page_up_s") == "(target <= 20 s: met)"
    assert bench.verdict(figures, "first_answer_s", "Done in 25.0 s") == "(target <= 25 s: missed)"
    assert bench.verdict(figures, "follow_up_s", "Failed in 3.0 s") == "(target <= 20 s: failed)"
    assert figures["met"] == {"page_up_s": True, "first_answer_s": False, "follow_up_s": False}


def test_answer_text_drops_the_status_and_icon_names() -> None:
    from tests.e2e.steps import answer_text

    class Message:
        def inner_text(self) -> str:
            return "smart_toy\ncheck\n\nDone in 1.2 s\n\nNasdaq has the fewest.\n\nkeyboard_arrow_right\n\nSQL\n"

    assert answer_text(Message()) == "Nasdaq has the fewest.\nSQL"
