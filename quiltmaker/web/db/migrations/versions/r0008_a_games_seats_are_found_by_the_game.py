"""A game's seats held by accounts are found by the game: the state says which seats are accounts.

Revision ID: 0008
Revises: 0007
Created: 2026-12-07
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The table's key begins with the account: without this, finding a game's seats read the whole table.
    op.create_index("ix_account_games_game_id", "account_games", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_account_games_game_id", table_name="account_games")
