"""Sessions are purged by their age: an index on when each was made, for the hourly purge of the expired.

Revision ID: 0002
Revises: 0001
Created: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_sessions_created", "sessions", ["created"])


def downgrade() -> None:
    op.drop_index("ix_sessions_created", table_name="sessions")
