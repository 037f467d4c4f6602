"""``nl2sql`` command line: ask, sql, index, enrich, knowledge, onboard, feedback, audit, eval, mcp, setup, llm.

Every command accepts ``--database URL`` (a SQLAlchemy URL; default: the demo ``markets`` SQLite file).
Exit status (one rule, :mod:`core.errors`): 0 success, 1 the command ran but its result is a failure (e.g. a
SQL error, no answer), 2 bad usage or setup (settings, database, index, model endpoint, state store, disk), 130
interrupted.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from cli.common import print_json as _print_json
from cli.common import settings_from_args as _settings
from cli.index import cmd_index
from cli.preflight import check_database
from core.errors import EXIT_INTERRUPTED, EXIT_SETUP, classify
from core.settings import DEMO_DB_PATH, Settings


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer one question; ``--json`` prints the full outcome (answer, sql, rows, usage, latency)."""
    from agent.graph import build_graph
    from agent.memory import open_checkpointer
    from agent.runner import ask, build_deps
    from cli.ask import index_on_first_use, print_outcome
    from cli.audit import audit_sink

    settings = _settings(args)
    check_database(settings)
    deps = build_deps(settings)
    deps.audit = audit_sink(settings)  # the executed SQL is audited as users.default_user
    index_on_first_use(deps)
    graph = build_graph(checkpointer=open_checkpointer(settings)) if args.thread else None
    out = ask(deps, args.question, graph=graph, thread_id=args.thread)
    if args.json:
        _print_json({k: v for k, v in out.to_json().items() if args.verbose or k not in ("trace", "usage")})
    else:
        print_outcome(out)
    return 0 if out.status != "error" else 1


def cmd_sql(args: argparse.Namespace) -> int:
    """Run one statement through the guarded read-only path (audited as ``users.default_user``)."""
    from cli.ask import format_table
    from cli.audit import run_sql

    res = run_sql(_settings(args), args.statement)
    if args.json:
        _print_json({"ok": res.ok, "sql": res.sql, "columns": res.columns, "rows": res.rows,
                     "truncated": res.truncated, "elapsed_s": res.elapsed_s, "error": res.error})
    elif res.ok:
        print(format_table(list(res.columns), [list(r) for r in res.rows], limit=50))
        print(f"[{len(res.rows)} rows{' (truncated)' if res.truncated else ''}; {res.elapsed_s:.3f} s]")
    else:
        print(f"Error: {res.error}", file=sys.stderr)
    return 0 if res.ok else 1


def cmd_eval(args: argparse.Namespace) -> int:
    """Execution accuracy and cost on Spider-format data or the demo gold set."""
    from cli.eval import eval_command, request_from_args

    return eval_command(request_from_args(args), _settings(args))


def cmd_eval_report(args: argparse.Namespace) -> int:
    """Rebuild the report of an evaluation run directory from its JSONL records."""
    from eval.report import write_report

    summary = write_report(Path(args.run_dir))
    print(f"wrote {args.run_dir}/report.md and report.html ({len(summary['configs'])} configurations)")
    return 0


def cmd_enrich(args: argparse.Namespace) -> int:
    """LLM descriptions for undocumented tables and columns, into a reviewable YAML file."""
    from cli.enrich import run_enrich

    return run_enrich(args, _settings(args))


def cmd_onboard(args: argparse.Namespace) -> int:
    """Onboard a bare database: profile, drafts, review queue (see :mod:`cli.onboard`)."""
    from cli.onboard import run_onboard

    return run_onboard(args, _settings(args))


def cmd_setup(args: argparse.Namespace) -> int:
    """Install the offline embedding model files and generate the demo database (idempotent)."""
    from data.markets.generate import generate
    from retrieval.embeddings import install_embedding_model

    print(f"Embedding model: {install_embedding_model()}")
    if args.force or not DEMO_DB_PATH.exists():
        generate(DEMO_DB_PATH)
    print(f"Demo database: {DEMO_DB_PATH}")
    if args.model:
        from core.model_files import assemble_model

        print(f"Local model: {assemble_model(Settings().local_llm.model_path)}")
    return 0


def cmd_knowledge(args: argparse.Namespace) -> int:
    """Business knowledge records: list | mine | approve | reject (see :mod:`cli.knowledge`)."""
    from cli.knowledge import run_knowledge

    return run_knowledge(args, _settings(args))


def cmd_eval_learning(args: argparse.Namespace) -> int:
    """Learning from feedback: paraphrases before and after the taught pairs are approved."""
    from cli.learning import run_learning_command

    return run_learning_command(args, _settings(args))


def cmd_mcp(args: argparse.Namespace) -> int:
    """The MCP server (see :mod:`cli.mcp_server`)."""
    from cli.mcp_server import run_mcp

    return run_mcp(args, _settings(args))


def cmd_feedback(args: argparse.Namespace) -> int:
    """Feedback records: export (see :mod:`cli.feedback`)."""
    from cli.feedback import run_feedback

    return run_feedback(args, _settings(args))


def cmd_audit(args: argparse.Namespace) -> int:
    """The newest rows of the SQL audit log (see :mod:`cli.audit`)."""
    from cli.audit import run_audit

    return run_audit(args, _settings(args))


def cmd_llm(args: argparse.Namespace) -> int:
    """Delegate to the local server tool (serve | assemble | verify)."""
    from cli.llm import main as local_main

    return local_main([args.llm_command, *args.rest])


CANDIDATES_HELP = ("SQL candidates as strategy[:temperature],...; strategies whole (the whole schema as DDL, no "
                   "hints), direct, plain (free-text SQL without hints), qp (Query-Plan CoT), dc "
                   "(Divide-and-Conquer CoT); e.g. 'qp:0,dc:0' (default: the endpoint's profile)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of all sub-commands."""
    parser = argparse.ArgumentParser(prog="nl2sql", description="Ask SQL databases questions in plain language.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-v", "--verbose", action="store_true", help="log details; include trace in --json")
    common.add_argument("--database", help="SQLAlchemy database URL (default: the demo markets database)")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, func: Any, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, parents=[common])
        p.set_defaults(func=func)
        return p

    p = add("ask", cmd_ask, "answer a question")
    p.add_argument("question")
    p.add_argument("--json", action="store_true")
    p.add_argument("--thread", help="conversation id: follow-up questions see this thread's earlier turns")
    p.add_argument("--candidates", help=CANDIDATES_HELP)
    p = add("sql", cmd_sql, "run one read-only SQL statement")
    p.add_argument("statement")
    p.add_argument("--json", action="store_true")
    p = add("index", cmd_index, "build the vector indexes of a database")
    p.add_argument("--examples", help="JSONL of {question, sql} few-shot examples")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--rebuild", action="store_true",
                   help="move the index folder aside (kept as <folder>.broken-<time>) and build it afresh")
    p.add_argument("--warm-up", action="store_true",
                   help="then prefill the model's prompt cache for this database (saved for the app's server)")
    p = add("enrich", cmd_enrich, "describe undocumented tables/columns with the LLM (reviewable YAML)")
    p.add_argument("--out", help="output YAML (default: <db>.enriched.yaml beside a SQLite file)")
    p.add_argument("--force", action="store_true", help="regenerate pending/rejected entries")
    p.add_argument("--opaque-only", action="store_true",
                   help="describe only tables and columns whose names say nothing (c14, t_03)")
    p.add_argument("--quiet", action="store_true")
    from cli.eval import add_parser as add_eval_parser

    add_eval_parser(sub, common, cmd_eval)
    p = add("eval-report", cmd_eval_report, "rebuild summary.json, report.md and report.html of a run directory")
    p.add_argument("run_dir")
    p = add("eval-learning", cmd_eval_learning,
            "learning from feedback: ask paraphrases, approve the taught pairs, ask again (EX before/after)")
    p.add_argument("--path", required=True, help="learning set JSONL (taught_question, taught_sql, paraphrases)")
    p.add_argument("--out", default="eval/runs/learning", help="run directory (its own index and state)")
    p = add("setup", cmd_setup, "install embedding files, generate the demo database")
    p.add_argument("--model", action="store_true", help="also assemble the local model file")
    p.add_argument("--force", action="store_true", help="regenerate the demo database")
    from cli.knowledge import add_parser as add_knowledge_parser

    add_knowledge_parser(sub, common, cmd_knowledge)
    from cli.onboard import add_parser as add_onboard_parser

    add_onboard_parser(sub, common, cmd_onboard)
    from cli.feedback import add_parser as add_feedback_parser

    add_feedback_parser(sub, common, cmd_feedback)
    from cli.audit import add_parser as add_audit_parser

    add_audit_parser(sub, common, cmd_audit)
    p = add("mcp", cmd_mcp, "serve ask / run_sql / search_schema / search_values / list_databases over MCP")
    p.add_argument("--http", action="store_true", help="streamable HTTP on 127.0.0.1 instead of stdio")
    p.add_argument("--port", type=int, default=8770, help="port of the HTTP transport")
    p = add("llm", cmd_llm, "local model server: serve | assemble | verify")
    p.add_argument("llm_command", choices=["serve", "assemble", "verify"])
    p.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``nl2sql`` console script; returns the exit status.

    Exit codes (:mod:`core.errors`): 0 done; 1 the command ran but its result is a failure (no answer, a
    refused or failing statement, nothing to write); 2 usage or configuration problem (bad arguments, settings,
    missing or broken database, index, model endpoint, state store or disk; printed as one ``Error:`` line with
    its remedy, as JSON with ``--json``); 130 interrupted. A :class:`core.errors.NL2SQLError` exits with its own
    ``exit_code``.
    """
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # any failure: one clear line, no traceback (-v shows it)
        if args.verbose:
            raise
        known = classify(exc)
        if known is not None:
            message, code, extra = str(known)[:700], known.exit_code, known.to_json()
        else:
            text = " ".join(str(exc).split())[:500] or type(exc).__name__
            kind = "" if isinstance(exc, (OSError, RuntimeError, ValueError)) else f"{type(exc).__name__}: "
            message, code, extra = f"{kind}{text}", EXIT_SETUP, {}
        if getattr(args, "json", False):
            _print_json({**extra, "status": "error", "error": message})
        else:
            print(f"Error: {message}", file=sys.stderr)
        return code


if __name__ == "__main__":
    sys.exit(main())
