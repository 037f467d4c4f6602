"""Running the declared steps in order, with a checkpoint after each, and what the run reports.

:func:`run_onboarding` loads the state file (:mod:`retrieval.onboarding.state`), then for each step of
:data:`retrieval.onboarding.steps.STEPS`: a step finished earlier is skipped, unless ``restart`` is given, it
ended incomplete, its inputs changed, or a step it uses ran again in this run. A running step reports progress
("step i of n, item j of m") and may checkpoint partial progress; when it returns, its report and result are
written to the state file at once. An exception inside a step (an interruption, a database or file error)
leaves the earlier steps recorded, so the next run resumes with that step.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.llm import UsageLog
from retrieval.onboarding.context import OnboardingJob, Progress, StepRun
from retrieval.onboarding.queue import QueueItem, review_queue
from retrieval.onboarding.state import load_state, new_state, save_state
from retrieval.onboarding.steps import STEPS, Step


@dataclass
class StepReport:
    """One step's line of the run summary.

    ``status``: "done", "skipped" (nothing to do), "resumed" (finished in an earlier run, not redone) or
    "incomplete" (finished with ``errors``; redone next run). ``items``: what it produced or processed;
    ``llm_calls`` / ``model_seconds``: its model calls and their summed latency in seconds (for "resumed", those
    of the run that did it); ``seconds``: wall time of this step in this run.
    """

    name: str
    status: str
    items: int = 0
    llm_calls: int = 0
    model_seconds: float = 0.0
    seconds: float = 0.0
    note: str = ""
    errors: list[str] = field(default_factory=list)


@dataclass
class OnboardingReport:
    """What :func:`run_onboarding` did: one :class:`StepReport` per step, the review queue, the state file."""

    steps: list[StepReport]
    queue: list[QueueItem]
    state_path: Path


def _redo(step: Step, done: dict[str, Any] | None, fingerprint: str, ran: set[str], restart: bool) -> bool:
    if restart or done is None or done.get("status") == "incomplete" or ran & set(step.uses):
        return True
    return bool(fingerprint) and fingerprint != done.get("inputs", "")


def _report(name: str, entry: dict[str, Any], status: str | None = None) -> StepReport:
    return StepReport(name=name, status=status or entry["status"], items=int(entry.get("items", 0)),
                      llm_calls=int(entry.get("llm_calls", 0)), model_seconds=float(entry.get("model_seconds", 0.0)),
                      seconds=float(entry.get("seconds", 0.0)), note=str(entry.get("note", "")),
                      errors=list(entry.get("errors", [])))


def run_onboarding(job: OnboardingJob, *, restart: bool = False) -> OnboardingReport:
    """Run the steps of :data:`STEPS` for ``job`` (see the module docstring) and return the summary.

    Raises:
        Whatever a step raises (database errors, an invalid knowledge or enrichment file); the steps finished
        before stay recorded in ``job.state_path``.
    """
    key = job.db.key
    state = new_state(key) if restart else load_state(job.state_path, key)
    if restart:
        save_state(job.state_path, state)
    ran: set[str] = set()
    reports: list[StepReport] = []
    model_ready = False
    for index, step in enumerate(STEPS, start=1):
        done = state["steps"].get(step.name)
        fingerprint = step.inputs(job)
        if not _redo(step, done, fingerprint, ran, restart):
            assert done is not None
            reports.append(_report(step.name, done, "resumed"))
            _emit(job, Progress(index, len(STEPS), step.name, state="skipped"))
            continue
        if step.needs_model and not model_ready and job.ensure_model is not None:
            job.ensure_model()
            model_ready = True
        _emit(job, Progress(index, len(STEPS), step.name))
        usage, started = UsageLog(), time.perf_counter()

        def keep(partial: dict[str, Any], name: str = step.name) -> None:
            state["partial"][name] = partial
            save_state(job.state_path, state)

        results = {name: entry.get("result", {}) for name, entry in state["steps"].items()}
        run = StepRun(job=job, results=results, usage=usage, step=index, steps=len(STEPS), name=step.name,
                      partial=dict(state["partial"].get(step.name) or {}), on_checkpoint=keep)
        outcome = step.run(run)
        totals = usage.totals()
        status = "skipped" if outcome.skipped else ("done" if outcome.complete else "incomplete")
        entry = {"status": status, "inputs": fingerprint, "items": outcome.items,
                 "llm_calls": int(totals["llm_calls"]), "model_seconds": float(totals["llm_seconds"]),
                 "seconds": round(time.perf_counter() - started, 3), "note": outcome.note,
                 "errors": outcome.errors, "result": outcome.result,
                 "finished": dt.datetime.now().isoformat(timespec="seconds")}
        state["steps"][step.name] = entry
        state["partial"].pop(step.name, None)
        save_state(job.state_path, state)
        ran.add(step.name)
        reports.append(_report(step.name, entry))
        _emit(job, Progress(index, len(STEPS), step.name, outcome.items, outcome.items,
                            state="incomplete" if status == "incomplete" else "done"))
    return OnboardingReport(steps=reports, queue=current_queue(job), state_path=job.state_path)


def _emit(job: OnboardingJob, event: Progress) -> None:
    if job.progress is not None:
        job.progress(event)


def current_queue(job: OnboardingJob) -> list[QueueItem]:
    """The review queue now: pending drafts scored with the weights of the last ``review_queue`` step.

    Without a finished ``review_queue`` step every draft scores 1 (ordered by key).
    """
    state = load_state(job.state_path, job.db.key)
    weights = (state["steps"].get("review_queue") or {}).get("result", {}).get("weights")
    return review_queue(weights or {"columns": {}, "tables": {}}, knowledge_path=job.knowledge_path,
                        enriched_path=job.enriched_path, examples_path=job.examples_path,
                        dialect=job.db.dialect)


def step_table(state: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per declared step for display: name, needs model, status, items, LLM calls, model seconds, note."""
    rows = []
    for step in STEPS:
        entry = state["steps"].get(step.name) or {}
        rows.append({"step": step.name, "model": step.needs_model, "status": entry.get("status", "to do"),
                     "items": entry.get("items"), "llm_calls": entry.get("llm_calls"),
                     "model_s": entry.get("model_seconds"), "note": entry.get("note", "")})
    return rows


def as_dict(report: OnboardingReport) -> dict[str, Any]:
    """The report as JSON-ready data (steps and queue as dicts, the state path as text)."""
    return {"steps": [asdict(s) for s in report.steps], "queue": [asdict(i) for i in report.queue],
            "state_path": str(report.state_path)}
