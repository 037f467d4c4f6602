"""The answer's confidence on feedback: ``confidence_level`` and ``confidence_reasons`` on ``feedback``.

Both columns are nullable: records written before the confidence was kept (and feedback on answers without one:
errors, clarifications, refusals) keep NULL. ``confidence_reasons`` holds a JSON list of strings. Existing rows
are kept.

Revision ID: 0003_feedback_confidence
Revises: 0002_users_audit
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_feedback_confidence"
down_revision = "0002_users_audit"
branch_labels = None
depends_on = None

COLUMNS = ("confidence_level", "confidence_reasons")


def upgrade() -> None:
    """Add the two nullable columns to ``feedback``."""
    for column in COLUMNS:
        op.add_column("feedback", sa.Column(column, sa.Text, nullable=True))


def downgrade() -> None:
    """Drop the two columns (the levels and reasons they hold are lost)."""
    with op.batch_alter_table("feedback") as batch:
        for column in COLUMNS:
            batch.drop_column(column)
