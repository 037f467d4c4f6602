"""The records tables: threads, runs, feedback.

Each table and index is created only when missing, so SQLite files written before migrations existed (the
same tables, made by ``CREATE TABLE IF NOT EXISTS`` DDL) are adopted as they are, rows kept.

Revision ID: 0001_initial
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the three tables and their indexes where missing."""
    op.create_table(
        "threads",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("database", sa.Text),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("updated", sa.Double, nullable=False),
        if_not_exists=True,
    )
    op.create_table(
        "runs",
        sa.Column("run_id", sa.Text, primary_key=True),
        sa.Column("thread_id", sa.Text),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("database", sa.Text),
        sa.Column("status", sa.Text),
        sa.Column("latency_s", sa.Double),
        sa.Column("llm_calls", sa.Integer),
        sa.Column("prompt_tokens", sa.Integer),
        sa.Column("completion_tokens", sa.Integer),
        sa.Column("outcome", sa.Text, nullable=False),
        if_not_exists=True,
    )
    op.create_index("runs_thread", "runs", ["thread_id", "created"], if_not_exists=True)
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("updated", sa.Double, nullable=False),
        sa.Column("run_id", sa.Text),
        sa.Column("thread_id", sa.Text),
        sa.Column("database", sa.Text),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("sql", sa.Text),
        sa.Column("result_digest", sa.Text),
        sa.Column("row_count", sa.Integer),
        sa.Column("rating", sa.Text, nullable=False),
        sa.Column("comment", sa.Text),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("langsmith", sa.Text),
        sqlite_autoincrement=True,
        if_not_exists=True,
    )
    op.create_index("feedback_status", "feedback", ["status", "database"], if_not_exists=True)


def downgrade() -> None:
    """Drop the three tables (their rows are lost)."""
    op.drop_table("feedback")
    op.drop_table("runs")
    op.drop_table("threads")
