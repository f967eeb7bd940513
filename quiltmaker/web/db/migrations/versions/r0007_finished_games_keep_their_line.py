"""A finished game keeps its line for every list, so that lists and profiles never replay logs.

Revision ID: 0007
Revises: 0006
Created: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Games finished before are summed up the first time a list shows them (quiltmaker/web/round/summaries.py).
    op.create_table(
        "game_summaries",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("summary", sa.JSON, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("game_summaries")
