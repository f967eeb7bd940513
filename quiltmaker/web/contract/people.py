"""The contract's lists of games, the lobby and the players' pages."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from ..round.kinds import AnyMode

from .game import GameRating, Model, Number, Result, Seat


class LessonSummary(Model):
    number: int
    done: bool


class GameSummary(Model):
    """A line of a list of games (the front page's, an account's, a profile's)."""

    id: str
    mode: AnyMode
    status: Literal["waiting", "playing", "over", "aborted"]
    names: list[str]
    version: int
    to_move: Seat | None
    result: Result | None
    created: str
    lesson: LessonSummary | None
    clock: str | None
    seat: Seat | Literal["both"] | None = None  # in an account's or a profile's list: the seat its player held
    rating: GameRating | None = None  # in a profile's list


class DamagedGame(Model):
    id: str
    status: Literal["corrupt"]
    message: str


class GameList(Model):
    games: list[GameSummary | DamagedGame]


# ---------------------------------------------------------------- the lobby and players


class Challenge(Model):
    id: str
    kind: Literal["open", "named"]
    control: str
    words: str
    family: str
    rated: bool
    by: str
    rating: int
    for_: str | None = Field(alias="for")
    within: Number | None
    mine: bool
    can_accept: bool
    why_not: str | None

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True, serialize_by_alias=True)


class PlayingGame(Model):
    id: str
    names: list[str]
    clock: str | None
    rated: bool


class Lobby(Model):
    """The lobby as one viewer sees it (``GET /api/lobby`` and the lobby socket's messages)."""

    type: Literal["lobby"]
    playing: list[PlayingGame]
    online: list[str]
    seeking: int
    challenges: list[Challenge]


class Rating(Model):
    rating: int
    rd: int
    games: int
    provisional: bool


class RatingChange(Model):
    game: str | None  # None: a game by private invitation, on another player's page
    family: str
    before: int
    after: int
    rd: int
    at: str


class Profile(Model):
    """A player's page (``GET /api/players/{name}``)."""

    name: str
    ratings: dict[str, Rating]
    history: list[RatingChange]
    games: list[GameSummary]
    more: str | None = None  # the next page of games: ``?before=`` this id (None: the last page)


class LeaderboardEntry(Model):
    name: str
    rating: int
    rd: int
    games: int | None
    computer: bool
    level: str | None = None  # the AI's entries: its level


class Leaderboard(Model):
    """A family's best established ratings, with the AI's levels at their fixed ratings (``GET /api/leaderboard``)."""

    family: str
    entries: list[LeaderboardEntry]
    levels: dict[str, Number]


# ---------------------------------------------------------------- seats, accounts and quick matches


class SeatTaken(Model):
    """A seat handed to this browser (a new game, an accepted challenge, an invitation used): keep its token."""

    id: str | None = None  # the game (an invitation's join answers for the game it was sent to)
    token: str
    seat: Seat | Literal["both"]
    invite: str | None = None


class AccountName(Model):
    name: str


class AccountView(Model):
    """Who is signed in on this browser (``/api/account`` and each sign-in, sign-up or sign-out)."""

    account: AccountName | None


class Claimed(Model):
    claimed: list[str]


class AccountGames(Model):
    games: list[GameSummary]


class Fallback(Model):
    level: str
    rating: int
    after: Number


class Waiting(Model):
    """A quick match still waiting: for how long, the rating range searched now, and the computer offered after a while."""

    matched: Literal[False]
    control: str
    rated: bool
    waited: Number
    rating: int
    range: int
    fallback: Fallback


class Paired(Model):
    """A quick match paired (with a person, or the computer): the game, and this browser's seat and token."""

    matched: Literal[True]
    game: str
    token: str
    seat: Seat
    computer: str | None = None


class Seek(Model):
    """A quick match's ticket, to poll with; ``paired``: its seat, when someone was waiting for exactly it (no poll needed)."""

    seek: str
    secret: str
    paired: Paired | None = None


class Withdrawn(Model):
    matched: Literal[False]
    cancelled: Literal[True]
