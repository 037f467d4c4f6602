"""``nl2sql eval``: run an evaluation, print its summary, report an unreachable endpoint as exit status 2."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from core.settings import Settings
from eval.langsmith_upload import upload_run
from eval.runner import EndpointDownError, EvalRequest, run_eval


def request_from_args(args: argparse.Namespace) -> EvalRequest:
    """The :class:`~eval.runner.EvalRequest` of parsed ``nl2sql eval`` arguments."""
    return EvalRequest(**{name: getattr(args, name) for name in EvalRequest.model_fields if hasattr(args, name)})


def eval_command(request: EvalRequest, settings: Settings, *,
                 llm_overrides: dict[str, BaseChatModel] | None = None,
                 report: Callable[[Path], Any] | None = None) -> int:
    """Run ``request``, print the per-configuration summary (and the LangSmith upload status when asked).

    Returns the exit status: 0 done, 2 the LLM endpoint was unreachable (rerun the same command to resume).
    """
    try:
        summary = run_eval(request, settings, llm_overrides=llm_overrides, report=report)
    except EndpointDownError as exc:
        print(f"error: {exc}")
        return 2
    if request.langsmith:
        print(upload_run(Path(request.out)))
    print(json.dumps(summary.get("configs", summary), indent=1)[:4000])
    return 0


def id_list(text: str) -> list[str]:
    """``--ids`` value: comma-separated ids, or ``@FILE`` with one id per line (blank lines ignored)."""
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            raise argparse.ArgumentTypeError(f"no such file: {path}")
        parts = path.read_text(encoding="utf-8").split()
    else:
        parts = text.split(",")
    ids = [p.strip() for p in parts if p.strip()]
    if not ids:
        raise argparse.ArgumentTypeError("no question id given")
    return ids


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser,  # type: ignore[type-arg]
               func: object) -> None:
    """Register ``eval`` and its options (the fields of :class:`~eval.runner.EvalRequest`) on the CLI's sub-parsers."""
    p = sub.add_parser("eval", parents=[common],
                       help="evaluate configurations side by side (EX, LLM judge, soft F1, cost, latency)")
    p.set_defaults(func=func)
    p.add_argument("--dataset", choices=["demo", "spider", "file"], default="demo",
                   help="demo gold set, a Spider-format folder, or a CSV/JSONL of question, gold_sql, database_url")
    p.add_argument("--path", help="Spider folder (dev.json + database/<db_id>/<db_id>.sqlite) or the CSV/JSONL file")
    p.add_argument("--split", choices=["all", "dev", "test"], default="all",
                   help="with --dataset demo: the whole gold set, or its fixed dev or test half (eval/demo_split.py)")
    p.add_argument("--configs", default="with_examples",
                   help="comma-separated: with_examples, no_examples, no_knowledge, dc_only, qp_only, single_shot, or all")
    p.add_argument("--limit", type=int, help="first N questions (after --sample)")
    p.add_argument("--sample", type=int, help="random sample of N questions (with --seed)")
    p.add_argument("--per-db", type=int, help="at most N questions per database (with --seed; before --sample)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ids", type=id_list, help="answer only these question ids of the selection (comma-separated "
                   "or @FILE, one per line); the few-shot split stays the whole selection's")
    p.add_argument("--out", default="eval/runs/latest", help="run directory (resumes what is already there)")
    p.add_argument("--workers", type=int, default=1, help="questions answered in parallel")
    p.add_argument("--llm-judge", action=argparse.BooleanOptionalAction, default=True,
                   help="LLM-as-judge metric (called only when EX cannot decide)")
    p.add_argument("--judge-model", help="model of the evaluation judge (default: the judge role's)")
    p.add_argument("--judge-base-url", help="endpoint of the evaluation judge")
    p.add_argument("--examples-per-db", type=int, default=40, help="few-shot examples per database (disjoint split)")
    p.add_argument("--chroma", help="Chroma folder of the evaluation (default: <state_dir>/eval/chroma)")
    p.add_argument("--langsmith", action="store_true",
                   help="upload dataset and experiments to LangSmith (needs LANGSMITH_API_KEY)")
