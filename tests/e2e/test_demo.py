"""``make demo`` end to end: the app served by the demo recipe's own command from the project root (so with the
repository's ``.streamlit/config.toml``; see ``conftest.serve``), here with the scripted model. A question, then
a follow-up in the same conversation: both answers are shown, and the server ran without a file watcher.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.conftest import PROJECT_ROOT, Server
from tests.e2e.steps import STATUS, ask, messages, open_chat, settled, shot

QUESTION = "How many equities are listed on each exchange?"
FOLLOW_UP = "Only the ones in the United States?"
WATCHER_LOG = re.compile(r"inotify|watchdog|watcher", re.IGNORECASE)


def inotify_watches(pid: int) -> int | None:
    """How many inotify watches process ``pid`` holds (None where /proc is not available)."""
    fds = Path(f"/proc/{pid}/fd")
    if not fds.is_dir():
        return None
    watches = 0
    for fd in fds.iterdir():
        try:
            if os.readlink(fd) != "anon_inode:inotify":
                continue
            info = Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text()
        except OSError:  # closed in the meantime
            continue
        watches += sum(line.startswith("inotify wd:") for line in info.splitlines())
    return watches


def test_demo_answers_a_question_and_its_follow_up(fake_app: Server, page: Any) -> None:
    open_chat(page, fake_app.url)
    first = ask(page, QUESTION, turn=1)
    expect(page.get_by_text(STATUS)).to_have_text(re.compile(r"^Done in"))
    expect(first.get_by_text("11 rows × 2 columns")).to_be_visible()

    second = ask(page, FOLLOW_UP, turn=2)
    expect(page.get_by_text(STATUS)).to_have_text(re.compile(r"^Done in"))
    settled(page)

    # both turns are on the page, in order, each with its answer (table and cost line)
    conversation = messages(page)
    expect(conversation).to_have_count(4)
    expect(conversation.nth(0)).to_contain_text(QUESTION)
    expect(conversation.nth(1).get_by_text("11 rows × 2 columns")).to_be_visible()
    expect(conversation.nth(1).get_by_text(re.compile(r" LLM calls · "))).to_be_visible()
    expect(conversation.nth(2)).to_contain_text(FOLLOW_UP)
    expect(second.get_by_text(re.compile(r"^\d+ rows × 2 columns"))).to_be_visible()
    expect(second.get_by_text(re.compile(r" LLM calls · "))).to_be_visible()
    # the scripted generator writes the US filter only when the prompt carries the first turn: same conversation
    second.get_by_text("SQL", exact=True).click()
    expect(second.get_by_test_id("stCode")).to_contain_text("country_code = 'US'")
    # ... which the sidebar lists once, as the current one, with two turns
    expect(page.get_by_role("button", name=re.compile(r"^▸ How many equities are listed.* · 2 · "))).to_have_count(1)
    shot(page, "demo-follow-up")

    # the repository's server configuration was in effect: no file watcher
    config = tomllib.loads((PROJECT_ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"
    assert config["server"]["runOnSave"] is False
    assert not (PROJECT_ROOT / "tests" / "e2e" / ".streamlit").exists(), "a script-level config would override it"
    watches = inotify_watches(fake_app.pid)
    assert watches in (0, None), f"the server holds {watches} inotify watches: a file watcher is running"
    watcher_lines = [line for line in fake_app.log.read_text().splitlines() if WATCHER_LOG.search(line)]
    assert not watcher_lines, watcher_lines[:5]
