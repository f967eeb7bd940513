"""The baseline: the schema every version before migrations kept (they created their tables with ``create_all``).

A database of any of those versions holds some of these tables, as they are
here: versions only ever added tables, never changed one. So the baseline
creates each table that is missing and leaves alone the ones there, which
brings any of them, and an empty database, to the same schema.

Revision ID: 0001
Revises:
Created: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

DATETIME = sa.DateTime(timezone=True)


def tables() -> list[tuple[str, list[Any], list[str]]]:
    """Each table: its name, its columns and constraints, and the columns with an index."""
    return [
        (
            "accounts",
            [
                sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                sa.Column("name", sa.String(24), nullable=False),
                sa.Column("name_key", sa.String(24), nullable=False, unique=True),
                sa.Column("password_hash", sa.String(200), nullable=False),
                sa.Column("created", DATETIME, nullable=False),
            ],
            [],
        ),
        (
            "games",
            [
                sa.Column("id", sa.String(32), primary_key=True),
                sa.Column("created", DATETIME, nullable=False),
                sa.Column("mode", sa.String(8), nullable=False),
                sa.Column("start", sa.Text, nullable=False),
                sa.Column("names", sa.JSON, nullable=False),
                sa.Column("ai_level", sa.String(32)),
                sa.Column("ai_seat", sa.Integer),
                sa.Column("token_hashes", sa.JSON, nullable=False),
                sa.Column("invite_hash", sa.String(64)),
                sa.Column("analysis", sa.JSON),
            ],
            [],
        ),
        (
            "account_games",
            [
                sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
                sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
                sa.Column("seat", sa.String(8), nullable=False),
            ],
            [],
        ),
        (
            "challenges",
            [
                sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
                sa.Column("kind", sa.String(8), nullable=False),
                sa.Column("control", sa.String(12), nullable=False),
                sa.Column("rated", sa.Boolean, nullable=False),
                sa.Column("creator_id", sa.Integer, sa.ForeignKey("accounts.id")),
                sa.Column("creator_name", sa.String(40), nullable=False),
                sa.Column("creator_rating", sa.Float, nullable=False),
                sa.Column("for_id", sa.Integer, sa.ForeignKey("accounts.id")),
                sa.Column("for_name", sa.String(40)),
                sa.Column("within", sa.Float),
                sa.Column("created", DATETIME, nullable=False),
                sa.Column("taken", DATETIME),
            ],
            ["created", "taken"],
        ),
        (
            "chat",
            [
                sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
                sa.Column("seat", sa.Integer, nullable=False),
                sa.Column("text", sa.String(300), nullable=False),
                sa.Column("created", DATETIME, nullable=False),
            ],
            ["game_id"],
        ),
        (
            "clocks",
            [
                sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
                sa.Column("control", sa.JSON, nullable=False),
                sa.Column("deadline", DATETIME),
            ],
            ["deadline"],
        ),
        (
            "events",
            [
                sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
                sa.Column("number", sa.Integer, nullable=False),
                sa.Column("kind", sa.String(8), nullable=False),
                sa.Column("value", sa.String(64), nullable=False),
                sa.Column("seat", sa.Integer),
                sa.Column("client_id", sa.String(64)),
                sa.Column("created", DATETIME, nullable=False),
                sa.UniqueConstraint("game_id", "number"),
            ],
            ["game_id"],
        ),
        (
            "lessons",
            [
                sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
                sa.Column("number", sa.Integer, nullable=False),
            ],
            [],
        ),
        (
            "rated_games",
            [
                sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
                sa.Column("family", sa.String(16), nullable=False),
                sa.Column("accounts", sa.JSON, nullable=False),
                sa.Column("settled", sa.Boolean, nullable=False),
            ],
            ["settled"],
        ),
        (
            "rating_changes",
            [
                sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
                sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
                sa.Column("family", sa.String(16), nullable=False),
                sa.Column("before", sa.Float, nullable=False),
                sa.Column("after", sa.Float, nullable=False),
                sa.Column("rd", sa.Float, nullable=False),
                sa.Column("at", DATETIME, nullable=False),
                sa.UniqueConstraint("game_id", "account_id"),
            ],
            ["game_id", "account_id"],
        ),
        (
            "ratings",
            [
                sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
                sa.Column("family", sa.String(16), primary_key=True),
                sa.Column("rating", sa.Float, nullable=False),
                sa.Column("rd", sa.Float, nullable=False),
                sa.Column("volatility", sa.Float, nullable=False),
                sa.Column("games", sa.Integer, nullable=False),
                sa.Column("updated", DATETIME, nullable=False),
            ],
            [],
        ),
        (
            "seeks",
            [
                sa.Column("id", sa.String(16), primary_key=True),
                sa.Column("secret_hash", sa.String(64), nullable=False),
                sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id")),
                sa.Column("name", sa.String(40), nullable=False),
                sa.Column("rating", sa.Float, nullable=False),
                sa.Column("control", sa.String(12), nullable=False),
                sa.Column("rated", sa.Boolean, nullable=False),
                sa.Column("created", DATETIME, nullable=False),
                sa.Column("polled", DATETIME, nullable=False),
                sa.Column("game_id", sa.String(32)),
                sa.Column("token", sa.String(64)),
                sa.Column("seat", sa.Integer),
            ],
            ["polled"],
        ),
        (
            "seen",
            [
                sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
                sa.Column("at", DATETIME, nullable=False),
            ],
            ["at"],
        ),
        (
            "sessions",
            [
                sa.Column("token_hash", sa.String(64), primary_key=True),
                sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
                sa.Column("created", DATETIME, nullable=False),
            ],
            ["account_id"],
        ),
    ]


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    for name, items, indexed in tables():
        if name in present:
            continue
        op.create_table(name, *items)
        for column in indexed:
            op.create_index(f"ix_{name}_{column}", name, [column])


def downgrade() -> None:
    for name, _, _ in reversed(tables()):
        op.drop_table(name)
