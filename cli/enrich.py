"""``nl2sql enrich``: describe undocumented tables and columns with the LLM into a reviewable YAML file."""

from __future__ import annotations

import argparse
from pathlib import Path

from core.llm import LLMProvider, UsageLog
from core.local_server import ensure_local_server
from core.settings import Settings
from database.connection import Database
from database.descriptions import default_enriched_path
from retrieval.enrichment import enrich


def run_enrich(args: argparse.Namespace, settings: Settings) -> int:
    """``nl2sql enrich [--database URL] [--out PATH] [--force] [--opaque-only]``: describe undocumented ones.

    ``args`` needs ``out`` (path or None: the default of :func:`default_enriched_path`, server databases in
    ``settings.state_dir``) and ``force``; ``args.database`` (optional) overrides the database URL. Starts
    the local model server when the generator uses it. Returns 0, or 1 when some tables failed.
    Raises LocalServerError/ModelFileError (RuntimeError) when the local server cannot start.
    """
    settings = settings.with_database(getattr(args, "database", None))
    db = Database.from_settings(settings)
    out = Path(args.out) if getattr(args, "out", None) else default_enriched_path(db, settings.state_dir)
    assert out is not None
    if settings.is_local("generator"):
        ensure_local_server(settings)
    usage = UsageLog()
    report = enrich(db, LLMProvider(settings), out, usage=usage, model_name=settings.generator.model,
                    force=bool(getattr(args, "force", False)), progress=not getattr(args, "quiet", False),
                    opaque_only=bool(getattr(args, "opaque_only", False)))
    totals = usage.totals()
    print(f"Enriched '{db.key}' -> {out}: {len(report.tables_described)} table summaries, "
          f"{report.columns_described} column descriptions, {report.tables_skipped} tables already done; "
          f"{int(totals['llm_calls'])} LLM calls in {report.seconds:.1f} s")
    for table, error in sorted(report.errors.items()):
        print(f"  failed: {table}: {error}")
    return 1 if report.errors else 0
