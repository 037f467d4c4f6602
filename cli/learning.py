"""``nl2sql eval-learning``: the learning-from-feedback evaluation (:mod:`eval.learning`).

It is wired to the product's own feedback path: each taught pair is recorded as a thumbs-up and approved
through the feedback store.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agent.context import AgentDeps
from agent.outcome import Outcome
from core.settings import Settings
from eval.learning import LearningItem, load_learning, run_learning
from records.feedback import FeedbackStore
from records.paths import feedback_path
from records.review import approve_feedback


def teach_by_feedback(deps: AgentDeps, items: list[LearningItem]) -> int:
    """Record each taught pair as a thumbs-up answer and approve it (the review flow of the developer panel)."""
    store = FeedbackStore(feedback_path(deps.settings))
    for item in items:
        outcome = Outcome(question=item.taught_question, sql=item.taught_sql, status="ok", database=deps.db.key)
        record = store.record(outcome, "up")
        approve_feedback(deps.store, deps.db, store, record.id, examples_path=deps.settings.resolved_examples_path())
    return len(items)


def run_learning_command(args: argparse.Namespace, settings: Settings) -> int:
    """``nl2sql eval-learning --path FILE --out DIR``: print and write the before/after summary."""
    if settings.uses_local_llm():
        from core.local_server import ensure_local_server

        ensure_local_server(settings)
    summary = run_learning(load_learning(Path(args.path)), settings, Path(args.out), teach_by_feedback)
    print(json.dumps(summary, indent=2))
    return 0
