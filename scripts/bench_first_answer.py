"""The first-run target of ``make demo``: page up, first answer after the prefill, follow-up; in a real browser.

Three figures, each printed beside its target:

1. **page up** (target <= 20 s): seconds from the start of ``make demo``'s steps - its index command (read from
   ``make -n demo``: ``nl2sql index --quiet``, no ``--warm-up``) into a state folder that does not exist yet,
   then the app with ``make demo``'s own ``streamlit run`` command on a free port - until the chat page is
   drawn in Debian's Chromium (heading shown, the page's script run finished, so the question box is usable);
2. **first answer** (target <= 25 s after the prefill): the page starts at once and the app prefills the model's
   prompts in the background, showing a live warm-up line meanwhile (``ui.chat.warm_up_note``); once that line
   has gone, the first question is asked, and the clock runs until its status box says Done or Failed. How long
   the line stayed after page up is reported as the prefill (the app starts it while drawing the page, so it is
   the prefill's duration to within the page's last moments);
3. **follow-up** (target <= 20 s): seconds for the follow-up question in the same conversation.

The setup step of ``make demo`` (``nl2sql setup --model``: dependencies, model files, demo database) is not
timed: it is done once. Prints the figures and writes them to ``--json``. Needs the local model, Chromium and
Playwright; the machine should have its cores to itself. ``--app tests/e2e/fake_app.py`` runs the same steps
with the scripted model (no prefill), to check the script itself.

    python scripts/bench_first_answer.py --json benchmarks/results/<date>-<subject>/first-answer.json
    python scripts/bench_first_answer.py --app tests/e2e/fake_app.py
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.settings import DEMO_DB_PATH, PROJECT_ROOT  # noqa: E402
from tests.e2e import steps  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402

QUESTION = "Which exchange has the most listed equities?"
FOLLOW_UP = "And which has the fewest?"
TARGETS = {"page_up_s": 20.0, "first_answer_s": 25.0, "follow_up_s": 20.0}
"""The first-run target, in seconds."""
TIMEOUT_S = 900.0


def app_env(app: str, state: Path) -> dict[str, str]:
    """The state folder; a script other than ``app.py`` brings its own (scripted) model: no model server."""
    env = {"NL2SQL_STATE_DIR": str(state)}
    if (PROJECT_ROOT / app).resolve() != (PROJECT_ROOT / "app.py").resolve():
        env["NL2SQL_LOCAL_LLM__AUTO_START"] = "false"
    return env


def verdict(figures: dict[str, Any], key: str, status: str | None = None) -> str:
    """``(target <= 20 s: met)``, ``missed`` or ``failed`` (an answer that failed meets no target)."""
    if status is not None and not status.startswith("Done"):
        met = False
        word = "failed"
    else:
        met = figures[key] <= TARGETS[key]
        word = "met" if met else "missed"
    figures.setdefault("met", {})[key] = met
    return f"(target <= {TARGETS[key]:.0f} s: {word})"


def commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_ROOT, capture_output=True,
                              text=True, check=True).stdout.strip() or None
    except (OSError, subprocess.CalledProcessError):
        return None


def main(argv: list[str] | None = None) -> int:
    """Run ``make demo``'s steps once, ask the question and its follow-up, print the three figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--question", default=QUESTION, help="the first question (default: %(default)s)")
    parser.add_argument("--follow-up", default=FOLLOW_UP, help="asked next, same thread (default: %(default)s)")
    parser.add_argument("--app", default="app.py",
                        help="the Streamlit script, from the project root (default %(default)s; "
                             "tests/e2e/fake_app.py: the scripted model, to check this script)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S, help="seconds any one wait may take")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    if not (PROJECT_ROOT / args.app).is_file():
        parser.error(f"no such app script: {args.app}")
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if executable is None:
        print(f"Chromium not found at {CHROMIUM}: `make browser` installs Debian's package", file=sys.stderr)
        return 2
    if not DEMO_DB_PATH.exists():  # made by `make demo`'s setup step, which is not timed
        from data.markets.generate import generate

        generate(DEMO_DB_PATH)
    from playwright.sync_api import sync_playwright

    timeout_ms = args.timeout * 1000
    expect.set_options(timeout=timeout_ms)
    folder = Path(tempfile.mkdtemp(prefix="nl2sql-first-"))
    state = folder / "state"  # absent: `make demo` on a machine without a state folder
    env = app_env(args.app, state)
    index_cmd = steps.demo_index_command()
    figures: dict[str, Any] = {"commit": commit(), "date": date.today().isoformat(), "app": args.app,
                               "index_command": " ".join([Path(index_cmd[0]).name, *index_cmd[1:]]),
                               "question": args.question, "follow_up": args.follow_up, "targets": TARGETS}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)  # untimed
        started = time.perf_counter()
        done = subprocess.run(index_cmd, cwd=PROJECT_ROOT, env={**os.environ, **env}, capture_output=True,
                              text=True)
        figures["index_s"] = round(time.perf_counter() - started, 1)
        print(f"{figures['index_command']}: {figures['index_s']} s  {done.stdout.strip()[-200:]}", flush=True)
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            browser.close()
            return 1
        app_started = time.perf_counter()
        with serve(args.app, env, folder / "app.log") as app:
            figures["app_health_s"] = round(time.perf_counter() - app_started, 1)
            print(f"app health check: {figures['app_health_s']} s after the app started", flush=True)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(timeout_ms)
            steps.open_chat(page, app.url)
            up = time.perf_counter()
            figures["page_up_s"] = round(up - started, 1)
            print(f"page up       {figures['page_up_s']:6.1f} s from the start of make demo's steps  "
                  f"{verdict(figures, 'page_up_s')}", flush=True)
            figures["warm_up_shown"] = steps.warm_up_shown(page)
            steps.warmed_up(page, timeout_ms)
            figures["prefill_s"] = round(time.perf_counter() - up, 1)  # 0 when no line was shown
            print(f"prefill       {figures['prefill_s']:6.1f} s the warm-up line stayed after page up"
                  + ("" if figures["warm_up_shown"] else " (none was shown)"), flush=True)
            for key, question, turn in (("first_answer_s", args.question, 1), ("follow_up_s", args.follow_up, 2)):
                asked = time.perf_counter()
                answer = steps.ask(page, question, turn, timeout_ms=int(timeout_ms))
                figures[key] = round(time.perf_counter() - asked, 1)
                status = str(page.get_by_text(steps.STATUS).inner_text()).strip()
                name = key.removesuffix("_s")
                figures[f"{name}_status"] = status
                figures[f"{name}_text"] = steps.answer_text(answer)[:300]
                label = "first answer" if turn == 1 else "follow-up"
                print(f"{label:13} {figures[key]:6.1f} s after asking{' (prefilled)' if turn == 1 else ''}  "
                      f"{verdict(figures, key, status)}  {status}: {question}", flush=True)
                if turn == 1:
                    figures["page_up_to_first_answer_s"] = round(time.perf_counter() - up, 1)
        browser.close()
    shutil.rmtree(state, ignore_errors=True)  # the index and the saved prompt slots; the app log stays
    print(f"page up to first answer (prefill included): {figures['page_up_to_first_answer_s']} s; "
          f"all targets met: {all(figures['met'].values())}; app log {folder / 'app.log'}")
    figures["met"] = figures.pop("met")  # last in the file
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
