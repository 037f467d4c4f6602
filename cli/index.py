"""``nl2sql index``: build or refresh a database's indexes, and warm the model's prompt cache for it."""

from __future__ import annotations

import argparse
from pathlib import Path

from cli.common import settings_from_args
from cli.preflight import approved_feedback, check_database, move_index_aside
from core.settings import Settings


def cmd_index(args: argparse.Namespace) -> int:
    """Build or refresh the Chroma indexes of one database (tables, schema chunks, examples).

    ``--rebuild`` first moves the Chroma folder aside (``<folder>.broken-<timestamp>``, nothing deleted), then
    builds every index afresh; a damaged folder is detected on open (:mod:`retrieval.integrity`).
    """
    from agent.runner import open_store
    from database.connection import Database
    from retrieval.indexing import index_database, load_examples

    settings = settings_from_args(args)
    check_database(settings, deep=True)
    db = Database.from_settings(settings)
    examples_path = Path(args.examples) if args.examples else settings.resolved_examples_path()
    examples = load_examples(examples_path) if examples_path else None
    feedback = approved_feedback(settings, db.key)
    if args.rebuild:
        move_index_aside(settings)
    report = index_database(db, open_store(settings), settings, examples=examples, progress=not args.quiet,
                            feedback=feedback)
    print(report.summary())
    if report.drift:
        print("Schema drift detected since the previous index (see above); review examples and metadata.")
    if args.warm_up:
        warm_up_command(settings)
    return 0


def warm_up_command(settings: Settings) -> None:
    """Prefill the database's prompt prefixes (and save the generator's slot for the next process to restore)."""
    from agent.runner import build_deps
    from agent.warmup import warm_up

    report = warm_up(build_deps(settings))
    how = ", ".join(f"{role} {secs:.0f} s {report.sources.get(role, '')}".strip() for role, secs in report.seconds.items())
    print(f"Warm-up: {how}" + (f"; skipped: {'; '.join(report.errors.values())}" if report.errors else ""))
