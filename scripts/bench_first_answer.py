"""First answer after ``make demo``: seconds from a fresh state folder to the first answered question in a browser.

Steps, each timed:

1. ``nl2sql index`` (with ``--warm-up`` unless ``--no-warm-up``) into a fresh state folder: the index step of
   ``make demo`` (with the warm-up it also prefills the schema prompt and saves the slot, core/slot_cache.py);
2. the app, started with ``make demo``'s own ``streamlit run`` command on a free port, until its health check
   answers;
3. Debian's Chromium (Playwright) opens the chat, and as soon as the page is drawn asks the question; the clock
   stops when the answer's status box says Done or Failed.

Prints one line per step and writes them to ``--json``. The two variants (with and without the saved slot) are
separate runs: each needs a fresh app process and server. Needs the local model, Chromium and Playwright.

    python scripts/bench_first_answer.py --json benchmarks/results/<date>-<subject>/first-answer.json
    python scripts/bench_first_answer.py --no-warm-up
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.settings import PROJECT_ROOT  # noqa: E402
from tests.e2e import steps  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402

QUESTION = "Which exchange is Toyota listed on?"


def main(argv: list[str] | None = None) -> int:
    """Run the three steps once and print their seconds."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--no-warm-up", action="store_true", help="index without the prompt-cache warm-up")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=600_000)  # the page's first run may wait for the model server (no warm-up)

    state = Path(tempfile.mkdtemp(prefix="nl2sql-first-"))
    env = {**os.environ, "NL2SQL_STATE_DIR": str(state)}
    figures: dict[str, object] = {"question": args.question, "warm_up": not args.no_warm_up}
    started = time.perf_counter()
    cmd = [sys.executable, "-m", "cli.main", "index", "--quiet", *([] if args.no_warm_up else ["--warm-up"])]
    done = subprocess.run(cmd, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True)
    figures["index_s"] = round(time.perf_counter() - started, 1)
    print(f"index{'' if args.no_warm_up else ' --warm-up'}: {figures['index_s']} s  {done.stdout.strip()[-200:]}")
    if done.returncode != 0:
        print(done.stderr[-2000:])
        return 1
    app_started = time.perf_counter()
    with serve("app.py", env, state / "app.log") as app, sync_playwright() as pw:
        figures["app_start_s"] = round(time.perf_counter() - app_started, 1)
        print(f"app health check: {figures['app_start_s']} s")
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(600_000)
        steps.open_chat(page, app.url)
        figures["page_drawn_s"] = round(time.perf_counter() - app_started, 1)
        asked = time.perf_counter()
        answer = steps.ask(page, args.question, 1, timeout_ms=600_000)
        figures["first_answer_s"] = round(time.perf_counter() - asked, 1)
        figures["answer"] = answer.inner_text()[:300]
        figures["app_to_answer_s"] = round(time.perf_counter() - app_started, 1)
        browser.close()
    print(f"page drawn {figures['page_drawn_s']} s after the app started; first answer {figures['first_answer_s']} s "
          f"after asking ({figures['app_to_answer_s']} s after the app started)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
