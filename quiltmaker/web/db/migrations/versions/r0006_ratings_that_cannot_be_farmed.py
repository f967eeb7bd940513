"""Ratings that cannot be farmed: the addresses each account was seen from (a digest), and why a rated game
was settled without rating anyone.

Revision ID: 0006
Revises: 0005
Created: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_addresses",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("address_key", sa.String(64), primary_key=True),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_account_addresses_address_key", "account_addresses", ["address_key"])
    with op.batch_alter_table("rated_games") as table:
        table.add_column(sa.Column("unrated", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rated_games") as table:
        table.drop_column("unrated")
    op.drop_index("ix_account_addresses_address_key", "account_addresses")
    op.drop_table("account_addresses")
