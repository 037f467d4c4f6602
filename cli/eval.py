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
