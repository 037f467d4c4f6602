"""Browser steps shared by the end-to-end tests. Every step waits on an element or on the app's run state
(Playwright's ``expect``, which retries up to the timeout set in ``conftest.py``); none sleeps or reads the page
before the element it needs is there, so CPU load slows the tests down but does not change their outcome.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS

STATUS = re.compile(r"^(Done|Failed) in")  # the label of a just-answered turn's status box
ANSWER_TIMEOUT_MS = 120_000


def settled(page: Any, timeout_ms: float | None = None) -> None:
    """Wait until the Streamlit script run that draws the page has finished (stale elements are gone then)."""
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning",
                                                           timeout=timeout_ms)


def open_chat(page: Any, url: str) -> None:
    """Load the chat page and wait until it is drawn completely."""
    page.goto(url)
    expect(page.get_by_role("heading", name="Ask your data")).to_be_visible()
    settled(page)


def messages(page: Any) -> Any:
    """The chat messages on the page, user and assistant alternating (two per turn)."""
    return page.get_by_test_id("stChatMessage")


def ask(page: Any, question: str, turn: int, timeout_ms: int = ANSWER_TIMEOUT_MS) -> Any:
    """Ask ``question`` as the conversation's ``turn``-th question (1-based) and wait until it is answered;
    returns the assistant message of that turn.

    Before typing, the earlier turns must be on the page; after Enter, the new turn's two messages must appear
    and the script run must finish; then the page holds exactly one status box (the new turn's: earlier turns
    are redrawn from the stored conversation without one), labelled Done or Failed.
    """
    expect(messages(page)).to_have_count(2 * (turn - 1))
    settled(page)
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    box.press("Enter")
    expect(messages(page)).to_have_count(2 * turn, timeout=timeout_ms)
    expect(messages(page).nth(2 * turn - 2)).to_contain_text(question)
    settled(page, timeout_ms)
    expect(page.get_by_text(STATUS)).to_have_count(1)
    return messages(page).nth(2 * turn - 1)


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
