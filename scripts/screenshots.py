"""Regenerate the screenshots in docs/screenshots/ from the running app on the demo database.

Needs the local model (``make setup``), Debian's Chromium (``make browser``) and Playwright (a dev dependency;
no browser download). Run by hand, or in CI only when asked: the local model answers the questions on the CPU,
so a full run takes minutes, and it must not share the cores with another model server.

Steps: ``make demo``'s index command (read from ``make -n demo``) builds the demo index into a fresh temporary
state folder (``NL2SQL_STATE_DIR``); the app is served with ``make demo``'s own ``streamlit run`` command on a
free port (``tests/e2e/conftest.serve``); Chromium opens the chat, waits until the app has prefilled the model's
prompts (the warm-up line has gone), then asks and takes the shots below. Every step waits on an element or on
the app's run state (``tests/e2e/steps.py``), never for a fixed time.

Shots (``docs/screenshots/<name>.png``, 1400 x 1000):

- ``chat-real-model``: the chat answering a question, its SQL shown (the README's picture);
- ``chat-follow-up``: a follow-up in the same conversation;
- ``chat-chart``: an answer drawn as a chart;
- ``chat-clarify``: a question with several readings: the assistant offers them as buttons;
- ``chat-ask-back``: a question missing a parameter (a return needs a period): the assistant asks for it;
- ``developer-traces``: the developer panel's trace of the last run;
- ``developer-review``: the review queue with the thumbed-up answer proposed as an example;
- ``developer-collections``: that example, approved, found in the examples collection.

A shot that cannot be taken (the app did not draw what it shows, an answer failed, a wait timed out) is reported
with the reason and the run goes on; the exit code is 1 when any shot was missed, and the temporary state
folder (with the app's log and a picture of the page where a wait failed) is then kept.

    python scripts/screenshots.py                                  # every shot into docs/screenshots/
    python scripts/screenshots.py --only chat-chart developer-traces
    python scripts/screenshots.py --app tests/e2e/fake_app.py --out /tmp/shots   # smoke test, scripted model
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.settings import DEMO_DB_PATH, PROJECT_ROOT  # noqa: E402
from scripts.screenshot_page import (  # noqa: E402
    TIMEOUT_S,
    VIEWPORT,
    Shots,
    answered,
    first_lines,
    gist,
    show_sql,
)
from tests.e2e import steps  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402

SHOTS = {
    "chat-real-model": "the chat answering a question, its SQL shown",
    "chat-follow-up": "a follow-up in the same conversation",
    "chat-chart": "an answer drawn as a chart",
    "chat-clarify": "a question with several readings, offered as buttons",
    "chat-ask-back": "a question missing a parameter: the assistant asks for it",
    "developer-traces": "the developer panel's trace of the last run",
    "developer-review": "the review queue with the thumbed-up answer proposed as an example",
    "developer-collections": "the approved example found in the examples collection",
}
QUESTION = "Which exchange has the most listed equities?"
FOLLOW_UP = "And which has the fewest?"
CHART = "Plot the daily close of MSFT in September 2025"
CLARIFY = "What are the biggest companies?"  # the demo knowledge file's 'biggest companies' has readings
ASK_BACK = "What is the return of SAP?"  # a return requires a period (markets.knowledge.yaml)
CHART_WAIT_MS = 30_000


def open_chat(page: Any, url: str, shots: Shots) -> None:
    """The chat page, drawn, with the model's prompts prefilled (so no warm-up line is in the pictures)."""
    shots.doing("opening the chat")
    steps.open_chat(page, url)
    if steps.warm_up_shown(page):
        shots.doing("waiting for the app to prefill the model's prompts")
    steps.warmed_up(page, shots.timeout_ms)


def developer_panel(page: Any, shots: Shots) -> None:
    shots.doing("opening the developer panel")
    page.get_by_role("link", name="Developer panel").click()
    expect(page.get_by_role("heading", name="Developer panel")).to_be_visible()
    steps.settled(page)


def conversation(page: Any, url: str, shots: Shots) -> None:
    """A question and its follow-up in one conversation, a thumbs-up, then the developer panel's views of them."""
    open_chat(page, url, shots)
    first, problem = answered(page, shots, QUESTION, 1)
    if not problem:
        show_sql(first)
    shots.take(page, "chat-real-model", frame=(0, 1), missing=problem)
    if shots.wants("developer-review", "developer-collections") and not problem:
        shots.doing("giving the answer a thumbs-up")
        first.get_by_role("radio", name="Thumbs up").click()
        expect(page.get_by_text(re.compile("feedback saved"))).to_be_visible()
        steps.settled(page)
    if shots.wants("chat-follow-up"):
        second, problem = answered(page, shots, FOLLOW_UP, 2)
        if not problem:
            show_sql(second)
        shots.take(page, "chat-follow-up", frame=(0, 3), prefer="end", missing=problem)
    if not shots.wants("developer-traces", "developer-review", "developer-collections"):
        return
    developer_panel(page, shots)
    page.get_by_role("tab", name="Traces").click()
    expect(page.get_by_text("LLM calls", exact=True)).to_be_visible()
    shots.take(page, "developer-traces")
    if not shots.wants("developer-review", "developer-collections"):
        return
    shots.doing("opening the review queue")
    page.get_by_role("tab", name="Review").click()
    expect(page.get_by_role("heading", name="Proposed examples (thumbs up)")).to_be_visible()
    approve = page.get_by_role("button", name="Approve", exact=True)
    waiting = approve.count() > 0
    shots.take(page, "developer-review", missing=None if waiting else
               "nothing waits for review (the thumbs-up was not recorded, or auto_approve_feedback is on)")
    if not shots.wants("developer-collections"):
        return
    if waiting:
        shots.doing("approving the proposed example")
        approve.first.click()
        expect(page.get_by_text(re.compile("Nothing waiting"))).to_be_visible()
        steps.settled(page)
    shots.doing("searching the examples collection")
    page.get_by_role("tab", name="Collections").click()
    search = page.get_by_label("Search (semantic; empty = browse)")
    search.fill(QUESTION)
    search.press("Enter")
    found = page.get_by_label("Question", exact=True).locator("visible=true").first
    expect(found).to_have_value(QUESTION)
    steps.settled(page)
    shots.take(page, "developer-collections")


def chart(page: Any, url: str, shots: Shots) -> None:
    """A question that asks for a plot."""
    open_chat(page, url, shots)
    answer, problem = answered(page, shots, CHART, 1)
    if not problem:
        try:  # the chart element comes once plotly's code has loaded: a bounded wait, not the answer's timeout
            expect(answer.get_by_test_id("stPlotlyChart").locator("svg.main-svg").first).to_be_visible(
                timeout=min(CHART_WAIT_MS, shots.timeout_ms))
        except AssertionError:
            problem = f"no chart was drawn within {CHART_WAIT_MS / 1000:.0f} s: {gist(answer)}"
    shots.take(page, "chat-chart", frame=(0, 1), missing=problem)


def ask_back(page: Any, url: str, shots: Shots) -> None:
    """A question with several readings, then one missing its period, in one conversation."""
    open_chat(page, url, shots)
    turn = 0
    if shots.wants("chat-clarify"):
        turn += 1
        answer, problem = answered(page, shots, CLARIFY, turn)
        readings = answer.get_by_role("button", name=re.compile("^" + re.escape(CLARIFY.rstrip("?")) + ","))
        if not problem and not readings.count():
            problem = f"no readings were offered: {gist(answer)}"
        shots.take(page, "chat-clarify", frame=(0, 1), missing=problem)
    if shots.wants("chat-ask-back"):
        turn += 1
        answer, problem = answered(page, shots, ASK_BACK, turn)
        if not problem and not answer.get_by_text(re.compile("^To answer this I need")).count():
            problem = f"the assistant did not ask back: {gist(answer)}"
        shots.take(page, "chat-ask-back", frame=(0, 2 * turn - 1), prefer="end", missing=problem)


Scene = Callable[[Any, str, Shots], None]
SCENES: list[tuple[Scene, tuple[str, ...]]] = [
    (conversation, ("chat-real-model", "chat-follow-up", "developer-traces", "developer-review",
                    "developer-collections")),
    (chart, ("chat-chart",)),
    (ask_back, ("chat-clarify", "chat-ask-back")),
]
"""Each scene runs in a new browser session (a new conversation) and takes its shots in this order."""


def chosen(only: list[str] | None) -> list[str]:
    """The shot names of ``--only`` (space- or comma-separated), in the order of :data:`SHOTS`.

    Raises:
        ValueError: an unknown name.
    """
    if not only:
        return list(SHOTS)
    names = {n.strip().removesuffix(".png") for item in only for n in item.split(",") if n.strip()}
    unknown = sorted(names - set(SHOTS))
    if unknown:
        raise ValueError(f"unknown shot {', '.join(unknown)}; the shots are {', '.join(SHOTS)}")
    return [n for n in SHOTS if n in names]


def app_env(app: str, state: Path) -> dict[str, str]:
    """The app's environment: the fresh state folder; a script other than ``app.py`` brings its own (scripted)
    model, so the local model server is not started for it."""
    env = {"NL2SQL_STATE_DIR": str(state)}
    if (PROJECT_ROOT / app).resolve() != (PROJECT_ROOT / "app.py").resolve():
        env["NL2SQL_LOCAL_LLM__AUTO_START"] = "false"
    return env


def chromium_path() -> str | None:
    return CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")


def build_index(env: dict[str, str]) -> bool:
    """``make demo``'s index step into the state folder of ``env``; prints what it says."""
    if not DEMO_DB_PATH.exists():
        from data.markets.generate import generate

        generate(DEMO_DB_PATH)
    cmd = steps.demo_index_command()
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=PROJECT_ROOT, env={**os.environ, **env}, capture_output=True, text=True)
    print(f"{' '.join(Path(cmd[0]).name if i == 0 else a for i, a in enumerate(cmd))}: "
          f"{time.perf_counter() - started:.1f} s  {done.stdout.strip()[-200:]}", flush=True)
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
    return done.returncode == 0


def run_scenes(url: str, shots: Shots, executable: str, state: Path) -> None:
    """Each scene with a wanted shot, in its own browser session; a failed wait ends the scene, not the run."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    expect.set_options(timeout=shots.timeout_ms)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            for scene, names in SCENES:
                if not shots.wants(*names):
                    continue
                print(f"{scene.__name__}:", flush=True)
                context = browser.new_context(viewport=VIEWPORT)
                page = context.new_page()
                page.set_default_timeout(shots.timeout_ms)
                try:
                    scene(page, url, shots)
                except (PlaywrightError, AssertionError) as exc:
                    picture: Path | None = state / f"failed-{scene.__name__}.png"
                    try:
                        page.screenshot(path=str(picture))
                    except PlaywrightError:
                        picture = None
                    where = f" (the page then: {picture})" if picture else ""
                    for name in names:
                        if shots.wants(name):
                            shots.miss(name, f"while {shots.step}: {first_lines(exc)}{where}")
                finally:
                    context.close()
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    """Build the index, serve the app and take the wanted shots; 1 when any was missed."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0],
                                     epilog="shots: " + "; ".join(f"{k}: {v}" for k, v in SHOTS.items()))
    parser.add_argument("--out", default="docs/screenshots", help="folder of the PNG files (default %(default)s)")
    parser.add_argument("--app", default="app.py",
                        help="the Streamlit script to serve, from the project root (default %(default)s; "
                             "tests/e2e/fake_app.py answers with a scripted model, for a smoke test)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="take only these shots (names or name.png)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S,
                        help="seconds any one wait may take, an answer included (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        wanted = chosen(args.only)
    except ValueError as exc:
        parser.error(str(exc))
    if not (PROJECT_ROOT / args.app).is_file():
        parser.error(f"no such app script: {args.app}")
    executable = chromium_path()
    if executable is None:
        print(f"Chromium not found at {CHROMIUM}: `make browser` installs Debian's package", file=sys.stderr)
        return 2
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    state = Path(tempfile.mkdtemp(prefix="nl2sql-shots-"))
    env = app_env(args.app, state / "state")
    shots = Shots(out=out, wanted=wanted, timeout_ms=args.timeout * 1000)
    print(f"state folder {state}; shots {', '.join(wanted)} into {out}", flush=True)
    log = state / "app.log"
    try:
        if not build_index(env):
            print(f"the index could not be built; state folder kept: {state}", file=sys.stderr)
            return 1
        with serve(args.app, env, log) as app:
            print(f"{args.app} served at {app.url}", flush=True)
            run_scenes(app.url, shots, executable, state)
    except (OSError, RuntimeError, subprocess.CalledProcessError) as exc:  # no make, the app did not start...
        print(f"could not take the shots: {exc}; state folder kept: {state}", file=sys.stderr)
        return 1
    print(f"took {len(shots.taken)} of {len(wanted)} shots into {out}")
    if shots.missed:
        for name, reason in shots.missed.items():
            print(f"  missed {name}: {reason}")
        print(f"state folder kept (app log {log}): {state}")
        return 1
    shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
