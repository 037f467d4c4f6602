"""Onboarding a bare database: profile it, draft its documentation and knowledge, order the drafts for review.

``nl2sql onboard`` and the developer panel's *Onboarding* page run :func:`run_onboarding` over the declared
steps of :data:`STEPS` (profile, dictionary, describe, draft_records, draft_joins, draft_metrics, mine_log,
draft_examples, review_queue), checkpointing
each in a JSON state file under ``state_dir/onboarding/`` so an interrupted run resumes. Everything drafted is
pending: the agent uses it only once approved, or with ``knowledge.use_drafts``. Human-written text (database
comments, the metadata file, approved or edited descriptions, existing records) is never overwritten.

Modules: :mod:`.context` (the job, steps' inputs and outputs, progress events), :mod:`.state` (the checkpoint
file), :mod:`.profile` and :mod:`.joins` (profiling and candidate joins), :mod:`.drafts` (enum and synonym
drafts), :mod:`.join_drafts` (candidate joins for review), :mod:`.usage` (what past SQL reads), :mod:`.examples` (examples drafted from the log), :mod:`.queue` (the review order), :mod:`.steps` (the declared
list), :mod:`.runner` (running it).
"""

from __future__ import annotations

from retrieval.onboarding.context import OnboardingJob, Progress, StepOutcome, StepRun, state_file
from retrieval.onboarding.queue import QueueItem, review_queue, value
from retrieval.onboarding.runner import (
    OnboardingReport,
    StepReport,
    as_dict,
    current_queue,
    run_onboarding,
    step_table,
)
from retrieval.onboarding.state import load_state
from retrieval.onboarding.steps import STEPS, Step

__all__ = [
    "STEPS",
    "OnboardingJob",
    "OnboardingReport",
    "Progress",
    "QueueItem",
    "Step",
    "StepOutcome",
    "StepReport",
    "StepRun",
    "as_dict",
    "current_queue",
    "load_state",
    "review_queue",
    "run_onboarding",
    "state_file",
    "step_table",
    "value",
]
