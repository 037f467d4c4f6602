"""Users and the SQL audit log: ``user_id`` on threads, runs and feedback, and the ``audit_log`` table.

The new columns are nullable: rows written before users were recorded keep NULL (no owner; only developers see
them, in the developer panel). Existing rows are kept.

Revision ID: 0002_users_audit
Revises: 0001_initial
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_users_audit"
down_revision = "0001_initial"
branch_labels = None
depends_on = None

OWNED = ("threads", "runs", "feedback")


def upgrade() -> None:
    """Add the ``user_id`` columns and their indexes, and create ``audit_log``."""
    for table in OWNED:
        op.add_column(table, sa.Column("user_id", sa.Text, nullable=True))
    op.create_index("threads_user", "threads", ["user_id", "updated"])
    op.create_index("runs_user", "runs", ["user_id", "created"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("user_id", sa.Text),
        sa.Column("database", sa.Text),
        sa.Column("sql", sa.Text, nullable=False),
        sa.Column("row_count", sa.Integer, nullable=False),
        sa.Column("elapsed_ms", sa.Double, nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
        sa.Column("error", sa.Text),
        sqlite_autoincrement=True,
    )
    op.create_index("audit_created", "audit_log", ["created"])
    op.create_index("audit_user", "audit_log", ["user_id", "created"])


def downgrade() -> None:
    """Drop ``audit_log`` (its rows are lost) and the ``user_id`` columns."""
    op.drop_table("audit_log")
    op.drop_index("runs_user", "runs")
    op.drop_index("threads_user", "threads")
    for table in OWNED:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("user_id")
