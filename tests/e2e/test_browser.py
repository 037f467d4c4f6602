"""The product in a real browser: headless Debian Chromium (Playwright) against ``streamlit run``.

Scripted model (fast): ask a demo question, see the table, give a thumbs up, approve the example in the
developer panel, find it in the examples collection, ask a follow-up that needs the thread's history.
Real local model (slow, marked ``integration``): one demo question end to end. Screenshots are saved under
``tests/e2e/artifacts/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import ARTIFACTS, serve

QUESTION = "How many equities are listed on each exchange?"
FOLLOW_UP = "Only the ones in the United States?"


@pytest.fixture(scope="module")
def fake_app(demo_state: dict[str, str]) -> Iterator[str]:
    yield from serve("tests/e2e/fake_app.py", {**demo_state, "NL2SQL_LOCAL_LLM__AUTO_START": "false"},
                     ARTIFACTS / "fake_app.log")


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    context.close()


def ask(page: Any, question: str, timeout_ms: int = 60_000) -> None:
    """Type a question into the chat input and wait until its status says Done or Failed."""
    done_before = page.get_by_text(re.compile(r"^(Done|Failed) in")).count()
    page.get_by_test_id("stChatInputTextArea").fill(question)
    page.keyboard.press("Enter")
    page.get_by_text(re.compile(r"^(Done|Failed) in")).nth(done_before).wait_for(timeout=timeout_ms)


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def test_ask_feedback_approve_and_follow_up(fake_app: str, page: Any) -> None:
    page.goto(fake_app)
    page.get_by_text("Ask your data").wait_for()
    ask(page, QUESTION)
    page.get_by_text("11 rows × 2 columns").wait_for()
    page.get_by_test_id("stDownloadButton").get_by_text("Download CSV").wait_for()
    page.get_by_text("SQL", exact=True).click()
    assert "GROUP BY e.exchange_name" in page.get_by_test_id("stCode").first.inner_text()
    shot(page, "chat")

    page.get_by_role("radio", name="Thumbs up").click()
    page.get_by_text(re.compile("proposed as an example")).wait_for()
    page.get_by_label("Comment (optional)").fill("Right numbers")
    page.get_by_role("button", name="Save comment").click()
    page.get_by_text("Comment: Right numbers").wait_for()

    page.get_by_role("link", name="Developer panel").click()
    page.get_by_text("Developer panel", exact=True).first.wait_for()
    page.get_by_role("tab", name="Traces").click()
    page.get_by_text("LLM calls", exact=True).wait_for()
    shot(page, "developer-traces")
    page.get_by_role("tab", name="Review").click()
    page.get_by_role("button", name="Approve").first.click()
    page.get_by_text(re.compile("Nothing waiting")).wait_for()
    page.get_by_role("tab", name="Collections").click()
    search = page.get_by_label("Search (semantic; empty = browse)")
    search.fill(QUESTION)
    search.press("Enter")
    page.wait_for_timeout(1500)
    question_box = page.get_by_label("Question", exact=True).locator("visible=true").first
    question_box.wait_for()
    assert question_box.input_value() == QUESTION
    shot(page, "developer-collections")

    page.get_by_role("link", name="Chat").click()
    page.get_by_text("11 rows × 2 columns").wait_for()  # the conversation is still there
    ask(page, FOLLOW_UP)
    page.get_by_text(re.compile(r"^\d+ rows × 2 columns")).nth(1).wait_for()
    page.get_by_text("SQL", exact=True).nth(1).click()
    assert "country_code = 'US'" in page.get_by_test_id("stCode").nth(1).inner_text()
    shot(page, "chat-follow-up")


def test_past_conversation_reopens_in_a_new_session(fake_app: str, page: Any) -> None:
    page.goto(fake_app)
    page.get_by_text("Ask your data").wait_for()
    page.get_by_role("button", name=re.compile(r"How many equities are listed")).first.click()
    page.get_by_text("11 rows × 2 columns").wait_for()
    assert page.get_by_text(FOLLOW_UP).count() >= 1


def test_settings_view_hides_secrets(fake_app: str, page: Any) -> None:
    page.goto(f"{fake_app}/settings")
    page.get_by_text("API keys are never displayed", exact=False).wait_for()
    assert "sk-local" not in page.content()
    shot(page, "settings")


@pytest.mark.integration
def test_real_local_model_answers_in_the_browser(demo_state: dict[str, str], browser: Any) -> None:
    """The real app (``app.py``) with the embedded model: one demo question end to end."""
    server = serve("app.py", demo_state, ARTIFACTS / "real_app.log")
    url = next(server)
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(url)
        page.get_by_text("Ask your data").wait_for(timeout=240_000)
        ask(page, "What was Apple's closing price on the last trading day in the data?", timeout_ms=300_000)
        assert page.get_by_text(re.compile(r"^Done in")).count() == 1
        page.get_by_text("SQL", exact=True).click()
        assert "AAPL" in page.get_by_test_id("stCode").first.inner_text() or "Apple" in page.content()
        shot(page, "chat-real-model")
        context.close()
    finally:
        server.close()
