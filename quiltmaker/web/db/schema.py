"""Every table of the server's database, in one place; Alembic's migrations (:mod:`.migrations`) bring a database to it.

A change to a table here is a change of the schema: it comes with a new
migration (``quiltmaker migrate --new MESSAGE`` drafts it, and a test holds
the migrations and this module equal), so that a database made by any
earlier version upgrades to it with nothing lost (docs/web.md, "Upgrading").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ColumnElement, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint, and_, exists, not_, select
from sqlalchemy.orm import DeclarativeBase, InstrumentedAttribute, Mapped, aliased, mapped_column

from ..round.kinds import Mode, OfferKind


# Games ---------------------------------------------------------------------------


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    mode: Mapped[str] = mapped_column(String(8))
    start: Mapped[str] = mapped_column(Text)
    names: Mapped[list[str]] = mapped_column(JSON)
    ai_level: Mapped[str | None] = mapped_column(String(32), nullable=True)
    ai_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # SHA-256 of each seat's token (the local mode's one token sits in seat 0),
    # and of the online mode's one-time invitation code.
    token_hashes: Mapped[list[str | None]] = mapped_column(JSON)
    invite_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    analysis: Mapped[Any] = mapped_column(JSON, nullable=True)


class SummaryRow(Base):
    """A finished game's line in every list, as it ended (:mod:`..round.summaries`): lists never replay logs."""

    __tablename__ = "game_summaries"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    summary: Mapped[Any] = mapped_column(JSON)


class LessonRow(Base):
    """Which lesson a ``lesson`` game is."""

    __tablename__ = "lessons"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer)


class ClockRow(Base):
    """A clocked game's time control, and when its side to move runs out.

    ``deadline`` is what the server processes watch to end real-time games on
    time: written with every event, in the same transaction, and only a hint
    (the clock itself is derived from the log; a process finding a deadline
    that has not come puts it right).
    """

    __tablename__ = "clocks"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    control: Mapped[Any] = mapped_column(JSON)
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)


class BeatRow(Base):
    """Each server process's last sign of life, written every second: a span in which no process was alive
    is the service's downtime, which no clock is charged for (:mod:`..round.timeouts`)."""

    __tablename__ = "beats"

    process: Mapped[str] = mapped_column(String(32), primary_key=True)
    seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ChatRow(Base):
    """A line of a game's chat between its players: kept apart from the event log, so it never makes a move stale."""

    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(300))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EventRow(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # "move", "undo", "rematch", "resign", "abort", "timeout" or "credit"
    value: Mapped[str] = mapped_column(String(64))  # the move's text, how many to undo, the rematch's id, or the seat
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)  # who sent it (None: the server's: the AI, a script, a clock)
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# Accounts ------------------------------------------------------------------------


class AccountRow(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(24))
    name_key: Mapped[str] = mapped_column(String(24), unique=True)  # the name in lower case: "Ada" and "ada" are one
    password_hash: Mapped[str] = mapped_column(String(200))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    language: Mapped[str | None] = mapped_column(String(8))  # the language last chosen signed in (None: none chosen)


class SessionRow(Base):
    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)  # the hourly purge finds the expired by it


class AccountAddressRow(Base):
    """An address an account was seen from (signing up or in, taking a seat of a rated game): a digest, never the
    address itself. Two accounts seen from one address do not rate each other (:mod:`..rating.ratings`)."""

    __tablename__ = "account_addresses"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    address_key: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AccountGameRow(Base):
    """A seat of a game that an account holds (claimed from this browser's guest games, or played signed in)."""

    __tablename__ = "account_games"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True, index=True)  # (a game's seats: migration 0008)
    seat: Mapped[str] = mapped_column(String(8))  # "0", "1" or "both"


# Ratings -------------------------------------------------------------------------


class RatingRow(Base):
    """An account's rating in one family."""

    __tablename__ = "ratings"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    family: Mapped[str] = mapped_column(String(16), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingChangeRow(Base):
    """What one rated game did to one account's rating: the history the profile draws."""

    __tablename__ = "rating_changes"
    __table_args__ = (UniqueConstraint("game_id", "account_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    family: Mapped[str] = mapped_column(String(16))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatedGameRow(Base):
    """A rated game: its family, the account of each seat (None: the AI's), whether its ratings are settled, and if it
    was settled without rating anyone, why (:data:`..rating.fairness.UNRATED`)."""

    __tablename__ = "rated_games"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    family: Mapped[str] = mapped_column(String(16))
    accounts: Mapped[Any] = mapped_column(JSON)  # [account id or None, account id or None], by seat
    settled: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    unrated: Mapped[str | None] = mapped_column(String(16), nullable=True)


# The lobby -----------------------------------------------------------------------


class ChallengeRow(Base):
    """An online game offered in the lobby (open) or to one account (named); kept once taken, for "being played"."""

    __tablename__ = "challenges"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # "open", "named" or "quick" (a quick match, listed once playing)
    control: Mapped[str] = mapped_column(String(12))
    rated: Mapped[bool] = mapped_column(Boolean)
    creator_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)
    creator_name: Mapped[str] = mapped_column(String(40))
    creator_rating: Mapped[float] = mapped_column(Float)
    for_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)
    for_name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    within: Mapped[float | None] = mapped_column(Float, nullable=True)  # accept only within ± this of the creator's rating
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    taken: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)


class SeekRow(Base):
    """A player waiting for a quick match; once paired, the game and the player's seat token until fetched."""

    __tablename__ = "seeks"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    secret_hash: Mapped[str] = mapped_column(String(64))
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    rating: Mapped[float] = mapped_column(Float)
    control: Mapped[str] = mapped_column(String(12))
    rated: Mapped[bool] = mapped_column(Boolean)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    polled: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    game_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    token: Mapped[str | None] = mapped_column(String(64), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)


class SeenRow(Base):
    """When an account was last seen (a lobby or game open): who is online, across every process."""

    __tablename__ = "seen"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


# Puzzles -------------------------------------------------------------------------


class PuzzleGameRow(Base):
    """A ``puzzle`` game: which shipped puzzle it sets, who tried it, and, once answered, how it went.

    ``account_id`` is None for a guest, whose answer rates nothing; the
    ratings before and after are the account's and the puzzle's, as Lichess
    shows a puzzle's rating change.
    """

    __tablename__ = "puzzle_games"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    puzzle_id: Mapped[str] = mapped_column(String(16), index=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True, index=True)
    solved: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    player_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    player_after: Mapped[float | None] = mapped_column(Float, nullable=True)
    puzzle_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    puzzle_after: Mapped[float | None] = mapped_column(Float, nullable=True)
    answered: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class PuzzleRatingRow(Base):
    """A puzzle's Glicko-2 rating, moved by every signed-in player's answer (its shipped rating to begin with)."""

    __tablename__ = "puzzle_ratings"

    puzzle_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer)
    solved: Mapped[int] = mapped_column(Integer)


class PuzzlePlayerRow(Base):
    """An account's puzzle rating: a family of its own, apart from the games' (as on Lichess)."""

    __tablename__ = "puzzle_players"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer)
    solved: Mapped[int] = mapped_column(Integer)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True))


def public_game(game_id: InstrumentedAttribute[str]) -> ColumnElement[bool]:
    """Whether the game of ``game_id`` may be listed to anyone: every game but an online one by private invitation
    or by a named challenge (an online game is public when it started from the lobby's open challenges or the
    quick match, as the lobby's "being played" lists them)."""
    from_the_lobby = exists(select(ChallengeRow.game_id).where(ChallengeRow.game_id == game_id, ChallengeRow.kind.in_((OfferKind.OPEN, OfferKind.QUICK))))
    game = aliased(GameRow)  # its own: a query that joins the games already must not correlate this one with it
    online = exists(select(game.id).where(game.id == game_id, game.mode == Mode.ONLINE))
    return not_(and_(online, not_(from_the_lobby)))
