"""Puzzles and their ratings: which puzzle a puzzle game sets and how it was answered, each puzzle's rating, each account's.

Revision ID: 0003
Revises: 0002
Created: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "puzzle_games",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("puzzle_id", sa.String(16), nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id")),
        sa.Column("solved", sa.Boolean),
        sa.Column("player_before", sa.Float),
        sa.Column("player_after", sa.Float),
        sa.Column("puzzle_before", sa.Float),
        sa.Column("puzzle_after", sa.Float),
        sa.Column("answered", DATETIME),
    )
    op.create_index("ix_puzzle_games_puzzle_id", "puzzle_games", ["puzzle_id"])
    op.create_index("ix_puzzle_games_account_id", "puzzle_games", ["account_id"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("puzzle_id", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
    )
    op.create_table(
        "puzzle_players",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("updated", DATETIME, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_players")
    op.drop_table("puzzle_ratings")
    op.drop_index("ix_puzzle_games_account_id", table_name="puzzle_games")
    op.drop_index("ix_puzzle_games_puzzle_id", table_name="puzzle_games")
    op.drop_table("puzzle_games")
