"""Where the product's durable records live, under ``Settings.state_dir``."""

from __future__ import annotations

from pathlib import Path

from core.settings import Settings


def runs_path(settings: Settings) -> Path:
    """Conversations and run traces: ``<state_dir>/runs.sqlite``."""
    return Path(settings.state_dir) / "runs.sqlite"


def feedback_path(settings: Settings) -> Path:
    """Thumbs up/down records: ``<state_dir>/feedback.sqlite``."""
    return Path(settings.state_dir) / "feedback.sqlite"
