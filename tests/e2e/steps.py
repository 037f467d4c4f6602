"""Browser steps shared by the end-to-end tests. Every step waits on an element or on the app's run state
(Playwright's ``expect``, which retries up to the timeout set in ``conftest.py``); none sleeps or reads the page
before the element it needs is there, so CPU load slows the tests down but does not change their outcome.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from core.settings import PROJECT_ROOT
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


WARM_UP = re.compile(r"^Preparing the model for this database")
"""The chat page's live line while the app prefills the model's prompts (``ui.chat.warm_up_note``)."""


def warm_up_shown(page: Any) -> bool:
    """True when the drawn page shows the warm-up line (call once the page has settled: it is drawn by then)."""
    return bool(page.get_by_text(WARM_UP).count())


def warmed_up(page: Any, timeout_ms: float | None = None) -> None:
    """Wait until the warm-up line has gone (at once when none is shown: scripted models need no warm-up)."""
    expect(page.get_by_text(WARM_UP)).to_have_count(0, timeout=timeout_ms)


def demo_index_command() -> list[str]:
    """The index step of ``make demo`` (its recipe as printed by ``make -n demo``, with this interpreter's venv),
    for scripts that time or repeat ``make demo`` without its setup step."""
    make = shutil.which("make")
    if make is None:
        raise RuntimeError("make not found: the index command is read from `make -n demo`")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE") and k != "MFLAGS"}
    printed = subprocess.run([make, "-n", "--no-print-directory", "demo", f"VENV={sys.prefix}"], cwd=PROJECT_ROOT,
                             env=env, capture_output=True, text=True, check=True).stdout
    runs = [cmd for cmd in map(shlex.split, printed.splitlines())
            if len(cmd) > 1 and Path(cmd[0]).name == "nl2sql" and cmd[1] == "index"]
    if len(runs) != 1:
        raise RuntimeError(f"expected one `nl2sql index` line in `make -n demo`:\n{printed}")
    return runs[0]


def answer_text(message: Any) -> str:
    """An assistant message's text after its status box, one line per paragraph, without Material icon names
    (``keyboard_arrow_right``) or blank lines: what a report quotes of an answer."""
    text = str(message.inner_text())
    label = re.search(r"^(Done|Failed) in [^\n]*$", text, re.MULTILINE)
    if label:
        text = text[label.end():]
    return "\n".join(ln for ln in map(str.strip, text.splitlines()) if ln and not re.fullmatch(r"[a-z_]+", ln))
