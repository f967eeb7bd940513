"""Accounts keep their language: the one a player chose, for every browser they sign in on.

Revision ID: 0004
Revises: 0003
Created: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("language", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("accounts") as table:  # batch: SQLite drops a column by copying the table
        table.drop_column("language")
