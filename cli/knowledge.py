"""``nl2sql knowledge``: list, mine, propose, approve and reject the business-knowledge records of a database.

``mine --log FILE`` reads past SQL (a ``.sql`` file of ``;``-separated statements, or a JSONL/CSV-free JSONL of
objects with ``sql``), plus the examples file and the approved feedback of the database, and appends the
frequent joins, filters and aggregates as *pending* records to the knowledge file (:mod:`knowledge.mining`).
``propose`` asks the generator model to draft metric and rule records from the schema, profiles and examples
(:mod:`retrieval.knowledge_proposal`), also pending. Records reach prompts only once approved (here, or in the
developer panel).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.llm import LLMProvider, UsageLog
from core.local_server import ensure_local_server
from core.settings import Settings
from database.connection import Database
from database.guard import sqlglot_dialect
from knowledge.files import load_knowledge, save_knowledge
from knowledge.mining import mine_workload, propose_records
from knowledge.query_log import read_log as read_log
from knowledge.records import KnowledgeBase, Status
from records.feedback import FeedbackStore
from records.paths import feedback_path
from retrieval.indexing import load_examples
from retrieval.knowledge_proposal import propose_knowledge


def run_knowledge(args: argparse.Namespace, settings: Settings) -> int:
    """Dispatch ``list`` | ``mine`` | ``propose`` | ``approve`` | ``reject``; returns the exit status (0 ok, 1 nothing done).

    Raises:
        ValueError: no knowledge file can be placed for this database, an unknown record id, a bad log file.
    """
    settings = settings.with_database(getattr(args, "database", None))
    path = settings.resolved_knowledge_path()
    if path is None:
        raise ValueError("this database has no default knowledge file; set NL2SQL_KNOWLEDGE_PATH")
    kb = load_knowledge(path)
    if args.knowledge_command == "list":
        for r in kb.records:
            print(f"{r.status:9} {r.type:8} {r.id:40} {r.name}  [{r.provenance}]")
        print(f"{len(kb.records)} records, {len(kb.approved())} approved ({path})")
        return 0
    if args.knowledge_command in ("approve", "reject"):
        status: Status = "approved" if args.knowledge_command == "approve" else "rejected"
        for record_id in args.ids:
            try:
                kb = kb.set_status(record_id, status)
            except KeyError as exc:
                raise ValueError(str(exc.args[0])) from exc
        save_knowledge(path, kb)
        print(f"{len(args.ids)} record(s) {status} in {path}")
        return 0
    db = Database.from_settings(settings)
    if args.knowledge_command == "propose":
        return _propose(settings, db, kb, path, args.limit)
    dialect = sqlglot_dialect(db.dialect)
    statements = read_log(Path(args.log), dialect) if args.log else []
    examples = settings.resolved_examples_path()
    statements += [e["sql"] for e in load_examples(examples)] if examples else []
    statements += [e["sql"] for e in FeedbackStore(feedback_path(settings)).approved_examples(db.key)]
    hints = mine_workload(statements, dialect)
    print(hints.document(args.top))
    proposed = propose_records(hints, kb, min_count=args.min_count, top=args.top)
    for record in proposed:
        kb = kb.upsert(record)
    if proposed:
        save_knowledge(path, kb)
    print(f"\n{len(proposed)} pending record(s) proposed in {path}; review them with `nl2sql knowledge list`, "
          f"then approve or reject (or use the developer panel).")
    return 0 if proposed else 1


def _propose(settings: Settings, db: Database, kb: KnowledgeBase, path: Path, limit: int) -> int:
    """Draft records with the LLM, save the valid ones as pending, print what was kept and rejected."""
    if settings.is_local("generator"):
        ensure_local_server(settings)
    examples_path = settings.resolved_examples_path()
    examples = load_examples(examples_path) if examples_path else []
    usage = UsageLog()
    kb, report = propose_knowledge(db, LLMProvider(settings), kb, examples=examples, usage=usage, limit=limit)
    if report.added:
        save_knowledge(path, kb)
    for record in report.added:
        print(f"proposed {record.type} {record.id}: {record.sql}")
    for name, why in report.rejected:
        print(f"rejected draft {name!r}: {why}")
    print(f"{len(report.added)} pending record(s) in {path}; {int(usage.totals()['llm_calls'])} LLM call(s)")
    return 0 if report.added else 1


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser,  # type: ignore[type-arg]
               func: object) -> None:
    """Register ``knowledge`` with its sub-commands on the CLI's sub-parsers."""
    p = sub.add_parser("knowledge", parents=[common],
                       help="business knowledge records: list | mine --log FILE | propose | approve ID.. | reject ID..")
    p.set_defaults(func=func)
    ks = p.add_subparsers(dest="knowledge_command", required=True)
    ks.add_parser("list", help="every record with its status")
    mine = ks.add_parser("mine", help="propose pending records from a query log, the examples and feedback")
    mine.add_argument("--log", help="query log: .sql (statements separated by ;) or .jsonl with 'sql'")
    mine.add_argument("--min-count", type=int, default=2, help="propose items seen at least this often")
    mine.add_argument("--top", type=int, default=15, help="at most this many of each kind")
    propose = ks.add_parser("propose", help="draft metric and rule records with the LLM (pending until approved)")
    propose.add_argument("--limit", type=int, default=8, help="at most this many drafts")
    for name in ("approve", "reject"):
        ks.add_parser(name, help=f"{name} records by id").add_argument("ids", nargs="+")
