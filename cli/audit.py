"""``nl2sql audit``: the newest rows of the SQL audit log; and the audit sink of the CLI's own SQL.

The CLI runs as ``users.default_user`` (``NL2SQL_USERS__DEFAULT_USER``): ``ask`` and ``sql`` record the SQL they
execute under that name (:mod:`records.audit`).
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import Any

from core.settings import Settings
from database.connection import Database
from database.results import QueryResult
from records.audit import AuditLog
from records.paths import audit_path
from tools.audit import AuditSink, audit_scope, run_audited

SQL_CHARS = 100


def audit_sink(settings: Settings) -> AuditSink:
    """The sink that appends executed SQL to the audit log of ``settings`` (state_url or state_dir)."""
    return AuditLog(audit_path(settings)).record


def run_sql(settings: Settings, statement: str) -> QueryResult:
    """Run ``statement`` on the configured database through the guarded path, audited as the CLI's user."""
    with audit_scope(audit_sink(settings), settings.users.default_user):
        return run_audited(Database.from_settings(settings), statement)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, not {value}")
    return value


def add_parser(sub: Any, common: argparse.ArgumentParser, func: Any) -> None:
    """Add ``audit [--limit N] [--user NAME] [--json]`` to the sub-command parsers ``sub``."""
    p = sub.add_parser("audit", parents=[common],
                       help="the newest executed SQL statements: user, database, rows, time, ok or error")
    p.set_defaults(func=func)
    p.add_argument("--limit", type=_positive, default=50, help="rows to show, newest first (default 50)")
    p.add_argument("--user", help="only this user's statements")
    p.add_argument("--json", action="store_true")


def run_audit(args: argparse.Namespace, settings: Settings) -> int:
    """Print the audit rows (only ``--database``'s when that option is given); 0 even when there are none."""
    database = Database.from_settings(settings).key if getattr(args, "database", None) else None
    rows = AuditLog(audit_path(settings)).recent(args.limit, user=args.user, database=database)
    if args.json:
        print(json.dumps(rows, indent=2, default=str, ensure_ascii=False))
        return 0
    if not rows:
        print("No SQL has been audited yet.")
        return 0
    for r in rows:
        when = datetime.fromtimestamp(r["created"]).strftime("%Y-%m-%d %H:%M:%S")
        status = "ok" if r["ok"] else f"error: {' '.join(str(r['error']).split())[:80]}"
        sql = " ".join(str(r["sql"]).split())
        sql = sql if len(sql) <= SQL_CHARS else sql[:SQL_CHARS - 3] + "..."
        print(f"{when}  {r['user_id'] or '-'}  {r['database'] or '-'}  {r['row_count']} rows  "
              f"{r['elapsed_ms']:.0f} ms  {status}\n    {sql}")
    return 0
