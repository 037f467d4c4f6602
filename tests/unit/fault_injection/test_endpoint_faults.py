"""Model endpoint faults (down, slow, garbage, HTTP errors, resets) in ``ask`` and the CLI."""

from __future__ import annotations

from typing import Any

import pytest

from core.settings import ROLES, Settings
from tests.unit.fault_injection.faults import QUESTION, TALLY, FakeEndpoint, closed_port
from tests.unit.fault_injection.support import (
    ENDPOINT_FAULTS,
    ROLE_FAST,
    ask_once,
    env_for,
    is_clear,
    plan_for,
    run_cli,
)


@pytest.mark.parametrize("target", ["planner", "generator", "*"])
@pytest.mark.parametrize("fault", ENDPOINT_FAULTS)
def test_endpoint_fault_in_ask(place: dict[str, Any], endpoint: FakeEndpoint, fault: str, target: str) -> None:
    settings: Settings = place["settings"]
    if fault == "down":
        dead = f"http://127.0.0.1:{closed_port()}/v1"
        roles = ROLES if target == "*" else tuple(r for r in ROLES if r == target)
        settings = settings.model_copy(update={r: settings.llm(r).model_copy(update={"base_url": dead}) for r in roles})
    else:
        endpoint.script({target: plan_for(fault)} if target != "*" else {"*": plan_for(fault)})
    try:
        out = ask_once(settings)
        escaped = False
    except Exception:  # noqa: BLE001 - the assertion below reports it
        out, escaped = None, True
    clear = not escaped and out is not None and bool(out.answer) and "Traceback" not in (out.answer or "")
    TALLY.add("model endpoint (ask)", f"{fault} @ {target}", clear=clear, traceback=escaped)
    assert not escaped and out is not None
    if fault.endswith("-then-ok") or target == "planner":  # retried, or the standard plan replaces the planner's
        assert out.status == "ok" and out.rows == [[2]], out.answer
    else:
        assert out.status == "error" and "could not" in (out.answer or "").lower(), out.answer
    endpoint.script({"*": ["ok"]})
    again = ask_once(place["settings"])
    assert again.status == "ok" and again.rows == [[2]], again.answer


@pytest.mark.parametrize("fault", ENDPOINT_FAULTS)
def test_endpoint_fault_in_cli(place: dict[str, Any], endpoint: FakeEndpoint, fault: str,
                               monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    settings: Settings = place["settings"]
    if fault == "down":
        dead = f"http://127.0.0.1:{closed_port()}/v1"
        settings = settings.model_copy(update={r: settings.llm(r).model_copy(update={"base_url": dead}) for r in ROLES})
    else:
        endpoint.script({"*": plan_for(fault)})
    env_for(monkeypatch, settings)
    code, text = run_cli(capsys, "ask", QUESTION)
    TALLY.add("model endpoint (CLI)", fault, clear=is_clear(text) and code in (0, 1), traceback="Traceback" in text)
    assert is_clear(text) and code in (0, 1), text
    endpoint.script({"*": ["ok"]})
    env_for(monkeypatch, place["settings"])
    code, text = run_cli(capsys, "ask", QUESTION)
    assert code == 0 and "2" in text, text


def test_retries_honour_the_question_budget(place: dict[str, Any], endpoint: FakeEndpoint) -> None:
    settings: Settings = place["settings"]
    spent = settings.model_copy(update={"question_budget_s": 1e-6})
    endpoint.script({"*": ["503"]})
    out = ask_once(spent)
    assert out.status == "error" and "time budget" in (out.answer or "")
    assert endpoint.calls("planner") == 1 and endpoint.calls("generator") == 1  # first tries only, no retry
    endpoint.script({"*": ["503"]})
    out = ask_once(settings)
    assert endpoint.calls("generator") == 1 + int(ROLE_FAST["transient_retries"])
    endpoint.script({"*": ["429", "429", "ok"]})
    out = ask_once(settings)
    assert out.status == "ok" and out.rows == [[2]]
    TALLY.add("model endpoint (ask)", "budget spent during 503s", clear=bool(out.answer))

