"""What one onboarding run works on (:class:`OnboardingJob`), what a step sees and returns, and progress events.

A step is a function ``StepRun -> StepOutcome``: it reads the job and the results of the steps it uses, reports
progress as "item j of m" through :meth:`StepRun.item`, may save partial progress with :meth:`StepRun.checkpoint`
(so an interrupted step resumes where it stopped) and records its model calls in :attr:`StepRun.usage`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from core.errors import ConfigurationError
from core.llm import LLMProvider, UsageLog
from core.settings import Settings
from database.connection import Database
from database.descriptions import default_enriched_path

ProgressState = Literal["running", "done", "skipped", "incomplete"]


@dataclass(frozen=True)
class Progress:
    """One progress event: step ``step`` of ``steps`` (1-based) named ``name``, item ``item`` of ``items``.

    ``state`` is "running" while the step works, then "done", "skipped" (finished before, not redone) or
    "incomplete" (finished with errors; redone next time). ``label`` names the item (a table, a column pair).
    """

    step: int
    steps: int
    name: str
    item: int = 0
    items: int = 0
    label: str = ""
    state: ProgressState = "running"


ProgressFn = Callable[[Progress], None]


def state_file(state_dir: Path, db_key: str) -> Path:
    """Where the onboarding state of database ``db_key`` is kept: ``<state_dir>/onboarding/<db_key>.json``."""
    return Path(state_dir) / "onboarding" / f"{db_key}.json"


@dataclass
class OnboardingJob:
    """The inputs of one onboarding run.

    Attributes:
        db: the database (read through its guarded read-only path).
        llms: the models; the steps that need one use role ``generator``.
        knowledge_path: the knowledge file the drafted records are added to (created when missing).
        enriched_path: the enrichment file the drafted descriptions go to (:mod:`retrieval.enrichment`).
        state_path: the JSON checkpoint of the run (:mod:`retrieval.onboarding.state`).
        model_name: provenance written with each drafted description.
        log: statements of a past query log (None: no log given); ``log_name`` names it in messages.
        examples: ``{"question", "sql"}`` pairs (examples file, approved feedback): context for the metric drafts
            and usage counts of the review queue.
        sensitive_patterns: column-name regexes whose values are masked (never stored, never drafted from).
        metric_limit: at most this many metric/rule drafts from the model.
        min_count: a mined join, filter or aggregate is proposed when seen at least this often in the log.
        examples_path: the examples file the examples drafted from the log are appended to (None: no file can
            be placed, a server database without ``examples_path``).
        dictionary: a data dictionary the team wrote (:mod:`retrieval.onboarding.dictionary`; None: none given),
            imported as reviewed descriptions before the model describes the rest.
        opaque_only: the ``describe`` step drafts descriptions only for tables and columns whose names say
            nothing (``c14``; :func:`knowledge.abbreviations.is_opaque_name`), the rest read as words or
            abbreviations; a wide warehouse is described in a fraction of the model time.
        example_limit: at most this many log statements are turned into drafted examples per run (0, the
            default: the step is off; on the bare demo it added no measured accuracy, see docs/onboarding.md).
        ensure_model: called once before the first step that needs the model runs (starts a local server).
        progress: receives :class:`Progress` events.
        today: the date stamped on drafted descriptions (default: today).
    """

    db: Database
    llms: LLMProvider
    knowledge_path: Path
    enriched_path: Path
    state_path: Path
    model_name: str = ""
    log: list[str] | None = None
    log_name: str | None = None
    examples: list[dict[str, str]] = field(default_factory=list)
    sensitive_patterns: list[str] = field(default_factory=list)
    metric_limit: int = 8
    min_count: int = 2
    examples_path: Path | None = None
    example_limit: int = 0
    opaque_only: bool = False
    dictionary: Path | None = None
    ensure_model: Callable[[], None] | None = None
    progress: ProgressFn | None = None
    today: dt.date | None = None

    @classmethod
    def from_settings(cls, settings: Settings, db: Database, llms: LLMProvider, **options: Any) -> OnboardingJob:
        """The job for ``db`` with the paths and provenance the settings give; ``options`` set the other fields.

        Raises:
            ConfigurationError: the database has no knowledge file to write to (a server database without
                ``knowledge_path``).
        """
        knowledge = settings.resolved_knowledge_path()
        if knowledge is None:
            raise ConfigurationError(f"The database '{db.key}' has no knowledge file to write the drafts to",
                                     remedy="Set NL2SQL_KNOWLEDGE_PATH to a YAML file (it is created if missing).")
        enriched = default_enriched_path(db, settings.state_dir)
        assert enriched is not None  # a state_dir is given
        options.setdefault("examples_path", examples_target(settings))
        return cls(db=db, llms=llms, knowledge_path=knowledge, enriched_path=enriched,
                   state_path=state_file(settings.state_dir, db.key), model_name=settings.generator.model,
                   sensitive_patterns=list(settings.retrieval.sensitive_patterns), **options)


def examples_target(settings: Settings) -> Path | None:
    """Where drafted examples go: ``examples_path``, else ``<stem>.examples.jsonl`` beside a SQLite file, else None."""
    existing = settings.resolved_examples_path()
    if existing is not None or not settings.database_url.startswith("sqlite:///"):
        return existing
    db_path = Path(settings.database_url.removeprefix("sqlite:///"))
    return db_path.with_name(f"{db_path.stem}.examples.jsonl")


@dataclass
class StepOutcome:
    """What a step returns.

    ``items`` it produced or processed, its ``result`` (JSON-ready, kept in the state file for later steps), a
    one-line ``note``, ``errors``, whether it is ``complete`` (False: redone next run) and whether it had nothing
    to do (``skipped``, e.g. no query log).
    """

    items: int = 0
    result: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    errors: list[str] = field(default_factory=list)
    complete: bool = True
    skipped: bool = False


@dataclass
class StepRun:
    """What a running step sees.

    The job, earlier results (``results[step name]``), its usage log, its position (``step`` of ``steps``), its
    saved ``partial`` progress, and the callback behind :meth:`checkpoint`.
    """

    job: OnboardingJob
    results: dict[str, dict[str, Any]]
    usage: UsageLog
    step: int
    steps: int
    name: str
    partial: dict[str, Any] = field(default_factory=dict)
    on_checkpoint: Callable[[dict[str, Any]], None] | None = None

    def item(self, done: int, total: int, label: str = "") -> None:
        """Report item ``done`` of ``total`` of this step (both counts, 1-based ``done``)."""
        if self.job.progress is not None:
            self.job.progress(Progress(self.step, self.steps, self.name, done, total, label))

    def checkpoint(self, partial: dict[str, Any]) -> None:
        """Save ``partial`` (JSON-ready) so an interrupted run resumes this step from it."""
        self.partial = partial
        if self.on_checkpoint is not None:
            self.on_checkpoint(partial)
