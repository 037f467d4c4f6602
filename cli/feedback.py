"""``nl2sql feedback export``: the reviewed feedback and examples of a database as a training set (JSONL)."""

from __future__ import annotations

import argparse
from pathlib import Path

from core.settings import Settings
from database.connection import Database
from records.export import training_records, write_jsonl
from records.feedback import FeedbackStore
from records.paths import feedback_path, runs_path
from records.runs import RunStore
from retrieval.indexing import load_examples


def run_feedback(args: argparse.Namespace, settings: Settings) -> int:
    """Write ``args.out`` (default ``<state_dir>/training/<db>.jsonl``); returns 0, or 1 when it is empty."""
    settings = settings.with_database(getattr(args, "database", None))
    db = Database.from_settings(settings)
    examples_path = settings.resolved_examples_path()
    examples = load_examples(examples_path) if examples_path and not args.feedback_only else []
    statuses = tuple(s.strip() for s in args.status.split(",") if s.strip())
    records = training_records(FeedbackStore(feedback_path(settings)), RunStore(runs_path(settings)), db.key,
                               examples, statuses=statuses)
    out = Path(args.out) if args.out else Path(settings.state_dir) / "training" / f"{db.key}.jsonl"
    write_jsonl(out, records)
    sources = {s: sum(r["source"] == s for r in records) for s in sorted({r["source"] for r in records})}
    print(f"wrote {len(records)} pairs to {out} ({', '.join(f'{n} {s}' for s, n in sources.items()) or 'none'})")
    return 0 if records else 1


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser,  # type: ignore[type-arg]
               func: object) -> None:
    """Register ``feedback export`` on the CLI's sub-parsers."""
    p = sub.add_parser("feedback", parents=[common], help="feedback records: export (training set JSONL)")
    p.set_defaults(func=func)
    fs = p.add_subparsers(dest="feedback_command", required=True)
    export = fs.add_parser("export", help="reviewed feedback and examples as question/query/db_id JSONL")
    export.add_argument("--out", help="output file (default: <state_dir>/training/<db>.jsonl)")
    export.add_argument("--status", default="approved", help="feedback statuses to include, comma-separated")
    export.add_argument("--feedback-only", action="store_true", help="leave the examples file out")
