"""The page mechanics of ``scripts/screenshots.py``: which shots are wanted and taken, waiting until the page
keeps still, framing chat messages in the view, and asking a question through the chat (``tests/e2e/steps.py``).

Kept apart from the scenes so each file stays one concern: this one knows Streamlit's page, the other what to
show.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e import steps

VIEWPORT: Any = {"width": 1400, "height": 1000}  # playwright's ViewportSize
TIMEOUT_S = 900.0
SCROLLER = '[data-testid="stAppScrollToBottomContainer"]'
STILL = """(scroller) => {
  const e = document.querySelector(scroller);
  if (!e) return true;
  const now = e.scrollTop + ':' + e.scrollHeight, s = window.__shotStill || (window.__shotStill = {v: null, n: 0});
  if (s.v === now) s.n += 1; else { s.v = now; s.n = 0; }
  return s.n >= 10;
}"""
"""True once the page's scroll position and height have kept still for 10 animation frames: Streamlit's chat
scrolls itself to the bottom with an animation whenever it grows, and a scroll made meanwhile is undone."""
FRAME = """([first, last, prefer, scroller]) => {
  const top = 70, bottom = window.innerHeight - 140;  // below Streamlit's header, above the question box
  const fits = () => first.getBoundingClientRect().top >= top && last.getBoundingClientRect().bottom <= bottom;
  first.style.scrollMarginTop = top + 'px';
  last.style.scrollMarginBottom = (window.innerHeight - bottom) + 'px';
  const e = document.querySelector(scroller);
  if (e) e.scrollTop = 0;  // the page's title too, when all fits
  if (!fits()) first.scrollIntoView({block: 'start'});
  if (!fits() && prefer === 'end') last.scrollIntoView({block: 'end'});
  return e ? e.scrollTop : 0;
}"""
"""Scroll so the view shows the elements ``first`` to ``last`` (from the top of the page when it all fits); when
they do not fit, the top of ``first`` (``prefer="start"``) or the bottom of ``last`` (``"end"``). Returns the
scroll position it set."""


@dataclass
class Shots:
    """The wanted shots, where they go, and which were taken or missed (with the reason)."""

    out: Path
    wanted: list[str]
    timeout_ms: float = TIMEOUT_S * 1000
    taken: list[str] = field(default_factory=list)
    missed: dict[str, str] = field(default_factory=dict)
    step: str = ""

    def wants(self, *names: str) -> bool:
        """True when any of ``names`` is wanted and still to take."""
        return any(n in self.wanted and n not in self.taken and n not in self.missed for n in names)

    def doing(self, step: str) -> None:
        """Name the step under way (printed, and quoted if it fails)."""
        self.step = step
        print(f"  {step}", flush=True)

    def take(self, page: Any, name: str, frame: tuple[int, int] | None = None, prefer: str = "start",
             missing: str | None = None) -> None:
        """Screenshot the page as ``name``, if wanted, scrolled to show the chat messages ``frame`` (first and
        last index; see :data:`FRAME` for ``prefer``); report it missed with ``missing`` instead when the page
        lacks what the shot should show."""
        if not self.wants(name):
            return
        if missing:
            self.miss(name, missing)
            return
        page.mouse.move(VIEWPORT["width"] - 5, VIEWPORT["height"] // 2)  # over nothing: no hover toolbars
        if frame is not None:
            framed(page, frame, prefer)
        else:
            still(page)
        path = self.out / f"{name}.png"
        page.screenshot(path=str(path), animations="disabled")
        self.taken.append(name)
        print(f"took {name}: {path}", flush=True)

    def miss(self, name: str, reason: str) -> None:
        self.missed[name] = reason
        print(f"could not take {name}: {reason}", flush=True)


def still(page: Any) -> None:
    """Wait until the page has stopped scrolling and growing (:data:`STILL`)."""
    page.evaluate("() => { window.__shotStill = null; }")
    page.wait_for_function(STILL, arg=SCROLLER, polling="raf")


def framed(page: Any, frame: tuple[int, int], prefer: str, attempts: int = 3) -> None:
    """Scroll to show the chat messages ``frame`` (:data:`FRAME`) once the page keeps still, and again if the
    chat's own scrolling moved it afterwards (when it grew meanwhile)."""
    found = steps.messages(page)
    for _ in range(attempts):
        still(page)
        target = page.evaluate(FRAME, [found.nth(frame[0]).element_handle(), found.nth(frame[1]).element_handle(),
                                       prefer, SCROLLER])
        still(page)
        if abs(page.evaluate("(s) => document.querySelector(s)?.scrollTop ?? 0", SCROLLER) - target) < 2:
            return


def first_lines(exc: BaseException, limit: int = 3) -> str:
    """The gist of a failed wait: the first lines of its message, without Playwright's call log."""
    lines = []
    for line in str(exc).splitlines():
        if line.strip().lower().startswith("call log"):
            break
        if line.strip():
            lines.append(line.strip())
    return " / ".join(lines[:limit]) or type(exc).__name__


def gist(answer: Any) -> str:
    """What the assistant said instead, on one line."""
    return repr(steps.answer_text(answer).replace("\n", " / ")[:200])


def status_label(page: Any) -> str:
    """The label of the just-answered turn's status box (``Done in 3.1 s`` or ``Failed in ...``)."""
    return str(page.get_by_text(steps.STATUS).inner_text()).strip()


def answered(page: Any, shots: Shots, question: str, turn: int) -> tuple[Any, str | None]:
    """Ask ``question`` as turn ``turn``; the assistant's message, and why it is no answer to show (or None)."""
    shots.doing(f"asking {question!r}")
    answer = steps.ask(page, question, turn, timeout_ms=int(shots.timeout_ms))
    label = status_label(page)
    if label.startswith("Done"):
        return answer, None
    return answer, f"the answer to {question!r} failed ({label}): {gist(answer)}"


def show_sql(answer: Any) -> None:
    """Open the answer's SQL expander unless it is open already."""
    code = answer.get_by_test_id("stCode")
    if code.count() and code.first.is_visible():
        return
    toggle = answer.get_by_text("SQL", exact=True)
    if toggle.count():
        toggle.click()
        expect(code.first).to_be_visible()
