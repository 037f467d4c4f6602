"""``nl2sql onboard``: from a bare database to drafted documentation and knowledge, ordered for one review pass.

Runs the declared steps of :data:`retrieval.onboarding.STEPS` with a progress line per step on stderr, then prints
a per-step summary (items, LLM calls, model seconds) and how many drafts await review, and where. Rerunning
resumes after the last finished step (``--restart`` redoes all). Bad input (an unreachable database, an unreadable
or empty query log) ends with one ``Error:`` line and exit code 2 (:mod:`cli.main`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from sqlalchemy.engine import make_url

from cli.preflight import approved_feedback, check_database
from core.errors import ConfigurationError, DatabaseUnavailable
from core.llm import LLMProvider
from core.settings import Settings
from database.connection import Database
from database.guard import sqlglot_dialect
from knowledge.query_log import read_log
from retrieval.indexing import load_examples
from retrieval.onboarding import STEPS, OnboardingJob, OnboardingReport, Progress, run_onboarding
from retrieval.onboarding.dictionary import read_dictionary
from retrieval.onboarding.examples import reviewed_examples
from retrieval.onboarding.queue import counts

REVIEW_HINT = ("Review them in the app's Developer panel > Onboarding tab (`streamlit run app.py`; bulk approve or "
               "reject, best first), or one by one with `nl2sql knowledge list` and `nl2sql knowledge approve ID`.")


def check_reachable(db: Database) -> None:
    """Raise :class:`DatabaseUnavailable` (naming the URL without its password) when ``SELECT 1`` fails."""
    result = db.run_query("SELECT 1 FROM DUAL" if db.dialect == "oracle" else "SELECT 1", row_cap=1)
    if not result.ok:
        where = make_url(db.url).render_as_string(hide_password=True)
        first = (result.error or "no answer").strip().splitlines()[0][:300]
        raise DatabaseUnavailable(f"Cannot reach the database {where}: {first}")


def read_query_log(path: Path, dialect: str) -> list[str]:
    """The statements of the log at ``path`` (:func:`knowledge.query_log.read_log`).

    Raises:
        ConfigurationError: the file is missing, unreadable, malformed or holds no statement.
    """
    try:
        statements = read_log(path, dialect)
    except ValueError as exc:
        raise ConfigurationError(str(exc), remedy="Give --log a readable .sql or .jsonl file.") from None
    if not statements:
        raise ConfigurationError(f"the query log {path} holds no SQL statement",
                                 remedy="Give --log a .sql file of ;-separated statements or a .jsonl with 'sql'.")
    return statements


class ProgressPrinter:
    """Prints :class:`Progress` events to ``stream``: a line per finished step; items in place on a terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        """Write to ``stream`` (default: stderr)."""
        self.stream: TextIO = stream or sys.stderr
        self.live = self.stream.isatty()

    def __call__(self, event: Progress) -> None:
        """Show one event."""
        head = f"[{event.step}/{event.steps}] {event.name}"
        if event.state == "running":
            if event.items and self.live:
                print(f"\r{head}: {event.item}/{event.items} {event.label[:50]:50}", end="", file=self.stream,
                      flush=True)
            elif not event.items:
                print(f"{head}...", file=self.stream, flush=True)
            return
        state = {"skipped": "already done", "done": f"done ({event.items} items)",
                 "incomplete": f"incomplete ({event.items} items)"}[event.state]
        line = f"\r{head}: {state:60}" if self.live else f"{head}: {state}"
        print(line, file=self.stream, flush=True)


def summary(report: OnboardingReport, db_key: str) -> str:
    """The per-step table (status, items, LLM calls, model seconds, note) and the review line."""
    lines = [f"Onboarding of '{db_key}' (state: {report.state_path})",
             f"{'step':14} {'status':10} {'items':>6} {'LLM calls':>9} {'model s':>8}  note"]
    needs = {s.name: s.needs_model for s in STEPS}
    for s in report.steps:
        model = f"{s.model_seconds:8.1f}" if needs.get(s.name) else f"{'-':>8}"
        lines.append(f"{s.name:14} {s.status:10} {s.items:>6} {s.llm_calls:>9} {model}  {s.note}")
        lines += [f"{'':16}! {error[:200]}" for error in s.errors[:5]]
    lines.append(f"\n{len(report.queue)} drafts await review ({counts(report.queue)}); nothing drafted is used "
                 "before it is approved, unless knowledge.use_drafts is on.")
    lines.append(REVIEW_HINT)
    return "\n".join(lines)


def run_onboard(args: argparse.Namespace, settings: Settings) -> int:
    """``nl2sql onboard``: run the onboarding steps on the database and print the summary.

    Options: ``--database URL``, ``--log FILE``, ``--dictionary FILE``, ``--draft-examples N``, ``--opaque-only``,
    ``--use-drafts``, ``--restart``.

    ``--use-drafts`` turns ``knowledge.use_drafts`` on for this command, whose last action is then indexing the
    database with the drafted descriptions. Returns 0, or 1 when a step ended incomplete (rerun to retry it) or
    the index refresh failed.

    Raises:
        DatabaseUnavailable / ConfigurationError: the database cannot be reached, the log or the data dictionary
            cannot be read, the database has no knowledge file (exit code 2). LocalServerError (RuntimeError) when the local model
            server cannot start.
    """
    settings = settings.with_database(getattr(args, "database", None))
    if args.use_drafts:
        settings = settings.model_copy(update={"knowledge": settings.knowledge.model_copy(update={"use_drafts": True})})
    check_database(settings)
    db = Database.from_settings(settings)
    check_reachable(db)
    log = read_query_log(Path(args.log), sqlglot_dialect(db.dialect)) if args.log else None
    dictionary = Path(args.dictionary) if getattr(args, "dictionary", None) else None
    if dictionary is not None:
        read_dictionary(dictionary)  # a bad file ends here with one line, before any step runs
    examples = reviewed_examples(settings.resolved_examples_path()) + approved_feedback(settings, db.key)

    def start_model() -> None:
        if settings.is_local("generator"):
            from core.local_server import ensure_local_server

            ensure_local_server(settings)

    if getattr(args, "draft_examples", 0) < 0:
        raise ConfigurationError("--draft-examples must be 0 or more", remedy="Give a count, e.g. --draft-examples 60.")
    job = OnboardingJob.from_settings(settings, db, LLMProvider(settings), log=log, log_name=args.log,
                                      examples=examples, ensure_model=start_model, progress=ProgressPrinter(),
                                      example_limit=getattr(args, "draft_examples", 0),
                                      opaque_only=bool(getattr(args, "opaque_only", False)),
                                      dictionary=dictionary)
    report = run_onboarding(job, restart=args.restart)
    print(summary(report, db.key))
    failed = any(s.status == "incomplete" for s in report.steps)
    imported = any(s.name == "dictionary" and s.status == "done" and s.items for s in report.steps)
    if settings.knowledge.use_drafts or imported:  # the examples file again: the log's drafted examples are in it now
        drafted = load_examples(job.examples_path) if job.examples_path and job.examples_path.is_file() else []
        examples = drafted + approved_feedback(settings, db.key)
        failed = not _refresh_index(settings, db, examples) or failed
    return 1 if failed else 0


def _refresh_index(settings: Settings, db: Database, examples: list[dict[str, str]]) -> bool:
    """Index ``db`` with its imported (and, with ``knowledge.use_drafts``, pending) descriptions.

    Returns False (and prints a line) when indexing fails.
    """
    from agent.runner import open_store
    from retrieval.indexing import index_database

    drafts = settings.knowledge.use_drafts
    try:
        report = index_database(db, open_store(settings), settings, examples=examples, progress=False)
    except Exception as exc:  # the descriptions are written; only the index refresh failed
        remedy = " with NL2SQL_KNOWLEDGE__USE_DRAFTS=true" if drafts else ""
        print(f"The descriptions are written but the index was not refreshed ({' '.join(str(exc).split())[:300]}); "
              f"run `nl2sql index`{remedy}.")
        return False
    if drafts:
        print(f"Indexed with the drafts in use: {report.summary()}. Keep NL2SQL_KNOWLEDGE__USE_DRAFTS=true so that "
              "questions use the pending records too, and so that a later `nl2sql index` keeps the drafted "
              "descriptions.")
    else:
        print(f"Indexed with the imported data dictionary: {report.summary()}.")
    return True


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser,  # type: ignore[type-arg]
               func: object) -> None:
    """Register ``onboard`` on the CLI's sub-parsers."""
    p = sub.add_parser("onboard", parents=[common],
                       help="document a bare database: profile, draft descriptions and records, order them for review")
    p.set_defaults(func=func)
    p.add_argument("--log", help="past SQL to mine: .sql (statements separated by ;) or .jsonl with 'sql'")
    p.add_argument("--draft-examples", type=int, default=0, metavar="N",
                   help="with --log: also draft up to N few-shot examples, a question for each logged statement "
                        "(one model call each; off by default: no measured gain on the bare demo)")
    p.add_argument("--dictionary", metavar="FILE",
                   help="the team's data dictionary (.csv, .tsv, .xlsx or .yaml with table, column and description "
                        "columns), imported as reviewed descriptions before the model describes the rest")
    p.add_argument("--opaque-only", action="store_true",
                   help="describe only tables and columns whose names say nothing (c14, t_03); the other names "
                        "read as words or abbreviations")
    p.add_argument("--use-drafts", action="store_true",
                   help="use the drafts before review (knowledge.use_drafts) and index them now")
    p.add_argument("--restart", action="store_true", help="redo every step instead of resuming")
