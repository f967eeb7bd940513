"""Server processes write a heartbeat, so that the time no process ran is given back to the clocks.

Revision ID: 0005
Revises: 0004
Created: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "beats",
        sa.Column("process", sa.String(32), primary_key=True),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("beats")
