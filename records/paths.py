"""Where the product's durable records live: SQLite files under ``Settings.state_dir``, or ``state_url``.

With ``Settings.state_url`` set (e.g. ``postgresql+psycopg://user:pass@host/db``) all stores are that one
database; the functions then return the URL instead of a path. Either value is accepted by the stores.
"""

from __future__ import annotations

from pathlib import Path

from core.settings import Settings


def runs_path(settings: Settings) -> Path | str:
    """Conversations and run traces: ``settings.state_url`` when set, else ``<state_dir>/runs.sqlite``."""
    return settings.state_url.strip() or Path(settings.state_dir) / "runs.sqlite"


def feedback_path(settings: Settings) -> Path | str:
    """Thumbs up/down records: ``settings.state_url`` when set, else ``<state_dir>/feedback.sqlite``."""
    return settings.state_url.strip() or Path(settings.state_dir) / "feedback.sqlite"


def audit_path(settings: Settings) -> Path | str:
    """The SQL audit log: ``settings.state_url`` when set, else ``<state_dir>/audit.sqlite``."""
    return settings.state_url.strip() or Path(settings.state_dir) / "audit.sqlite"
