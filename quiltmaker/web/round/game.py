"""A game as the server keeps it: its seats and settings, and the :class:`~quiltmaker.core.game.Game` its log replays to.

A game's state is never stored, only derived: its start position with the
log replayed through the rules. An event is ``move TEXT``, ``undo N``,
``resign SEAT``, ``abort SEAT`` (calling the game off before each side has
moved), ``timeout SEAT`` (the seat ran out of time on its clock), ``credit
SEAT SECONDS`` (time the server took from a real-time side, given back) or, once
the game is over, ``rematch GAME-ID`` (the next game between the same
seats); each keeps who sent it and the moment it was made, from which a
clocked game's clocks are derived (:mod:`.clocks`). Every event passes
:func:`.rules.check` before it is applied (:func:`.log.replay`), in the
replay as in the live server.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ...core.game import Ending, Game
from ...core.moves import Move
from ...tutorial import LESSONS, Lesson, lesson_of
from .clocks import Clock, Credit, TimeControl, clock_at
from .kinds import EventKind, Mode

BOTH_SEATS = "both"  # the seat of pass-and-play's one token


@dataclass(frozen=True)
class Event:
    """One event of a game's log: its number, kind and value (see the module's docstring), who sent it
    (a seat; None: the server, for the computer, a lesson's script or a clock), the client's message id, and when."""

    number: int
    kind: EventKind
    value: str
    seat: int | None
    client_id: str | None
    at: datetime


@dataclass
class StoredGame:
    """A game as the store knows it: metadata and the replayed :class:`Game`."""

    id: str
    created: datetime
    mode: Mode
    names: list[str]
    ai_level: str | None
    ai_seat: int | None
    token_hashes: list[str | None]
    invite_open: bool
    game: Game
    version: int = 0
    lesson_number: int | None = None  # which lesson a "lesson" game is; ``lesson`` once its script is replayed
    control: TimeControl | None = None  # the clock's time control; None: no clock
    client_ids: set[str] = field(default_factory=set)
    # The views' move list, kept between states, in each language it was worded in: the moves worded, and their entries.
    move_entries: dict[str, tuple[list[Move], list[dict[str, Any]]]] = field(default_factory=dict)
    rematch: str | None = None  # the id of the next game between the same seats
    lesson: Lesson | None = None  # the lesson a "lesson" game is (None when no lesson of this version starts there)
    move_times: list[datetime] = field(default_factory=list)  # when each move of the game was made
    ended_at: datetime | None = None  # when it was resigned, aborted or lost on time
    rating: dict[str, Any] | None = None  # a rated game's family and rating changes (ratings.Ratings.game_view); None: casual
    offer: dict[str, Any] | None = None  # a game offered in the lobby: {"kind": "open" or "named", "for": name}
    puzzle: dict[str, Any] | None = None  # a puzzle game's puzzle and, once answered, the answer (puzzles.Puzzles.state_of)
    credits: list[Credit] = field(default_factory=list)  # time given back to a real-time clock
    account_seats: list[bool] = field(default_factory=lambda: [False, False])  # whether an account holds each seat

    def __post_init__(self) -> None:
        self.mode = Mode(self.mode)  # (a plain string from a caller: its member)
        self._find_lesson()

    def apply(self, event: Event) -> None:
        """Carry out the next event of the log, which the rules allowed (:func:`.log.replay` checks, then calls this)."""
        _APPLY[event.kind](self, event)
        self.version += 1
        if event.client_id:
            self.client_ids.add(event.client_id)

    def _move(self, event: Event) -> None:
        self.game.play(event.value)
        self.move_times.append(event.at)
        self._find_lesson()

    def _undo(self, event: Event) -> None:
        for _ in range(int(event.value)):
            self.game.undo()
            self.move_times.pop()

    def _rematch(self, event: Event) -> None:
        self.rematch = event.value

    def _credit(self, event: Event) -> None:
        self.credits.append(Credit(*parse_credit(event.value), len(self.game.moves)))

    def _end(self, event: Event) -> None:
        """Resign, abort or timeout: the game's ending (a timeout a player sent is a correspondence claim)."""
        by = _ENDS.get(event.kind) or ("time" if event.seat is None else "claim")
        self.game.end(Ending(by, None if by == "abort" else int(event.value)))
        self.ended_at = event.at

    def _find_lesson(self) -> None:
        """A lesson game is its lesson once the lesson's script is played (the script's moves come first in its log)."""
        number = self.lesson_number
        if self.lesson is None and number is not None and 1 <= number <= len(LESSONS) and len(self.game.moves) == LESSONS[number - 1].ply:
            self.lesson = lesson_of(number, self.game)

    def clock_at(self, now: datetime) -> Clock | None:
        """The game's clocks at ``now`` (None for a game without a clock)."""
        if self.control is None:
            return None
        position = self.game.position
        if self.ended_at is not None and not position.is_over:
            # Stopped by a resignation or the time running out: the side to move spent its time until then.
            stopped = clock_at(self.control, self.game.movers, self.move_times, position.to_move, self.ended_at, self.credits)
            return replace(stopped, running=None, deadline=None)
        return clock_at(self.control, self.game.movers, self.move_times, position.to_move, now, self.credits)

    def clock_after(self, kind: EventKind, value: str, at: datetime) -> Clock | None:
        """The clocks as they will be once event ``kind value``, made at ``at``, is applied (None without a clock),
        with the deadline the server watches: none while the computer is to move, whose time ends only by its
        own move (it never runs out waiting for the server).

        (Only games without undo have clocks.)
        """
        if self.control is None:
            return None
        position = self.game.position
        if kind == EventKind.CREDIT and position.to_move is not None:
            clock = clock_at(self.control, self.game.movers, self.move_times, position.to_move, at, [*self.credits, Credit(*parse_credit(value), len(self.game.moves))])
        elif kind != EventKind.MOVE or position.to_move is None:
            return clock_at(self.control, self.game.movers, self.move_times, None, at, self.credits)  # the game ends, or is over
        else:
            after = position.play(Move.from_text(value))
            clock = clock_at(self.control, [*self.game.movers, position.to_move], [*self.move_times, at], after.to_move, at, self.credits)
        if self.against_ai and clock.running == self.ai_seat:
            return replace(clock, deadline=None)
        return clock

    def credited_this_turn(self) -> float:
        """Seconds given back to the side to move since the last move."""
        return sum(credit.seconds for credit in self.credits if credit.ply == len(self.game.moves))

    @property
    def ended(self) -> Ending | None:
        """How it ended before it was played out (resignation, time, claim or abort), or None."""
        return self.game.ending

    @property
    def against_ai(self) -> bool:
        """Whether seat ``ai_seat`` is played by the server: the computer, or the tutor of a lesson."""
        return self.mode.against_ai

    @property
    def moves_version(self) -> int:
        """The version of the last move or undo: what the game's positions depend on (a rematch, resign or abort changes none)."""
        return self.version - (self.rematch is not None) - (self.ended is not None)

    def seat_of(self, token: str | None) -> int | str | None:
        """The seat a token holds: 0, 1, ``"both"`` (pass-and-play) or ``None``."""
        if not token:
            return None
        digest = secret_hash(token)
        for seat, stored in enumerate(self.token_hashes):
            if stored is not None and hmac.compare_digest(stored, digest):
                return BOTH_SEATS if self.mode == Mode.LOCAL else seat
        return None

    def seat_number(self, seat: int | str | None) -> int | None:
        """The seat an event is recorded for: pass-and-play's one token acts for the player to move (seat 0 once over)."""
        if seat == BOTH_SEATS:
            to_move = self.game.position.to_move
            return 0 if to_move is None else to_move
        return seat if isinstance(seat, int) else None

    @property
    def is_finished(self) -> bool:
        """Over: played to its end, resigned or aborted, or a puzzle answered (its one move made). Nothing but a rematch may follow."""
        return self.game.position.is_over or self.ended is not None or (self.mode == Mode.PUZZLE and bool(self.game.moves))

    @property
    def status(self) -> str:
        if self.ended is not None and self.ended.by == "abort":
            return "aborted"
        if self.is_finished:
            return "over"
        if self.mode == Mode.ONLINE and self.invite_open:
            return "waiting"
        return "playing"


# How each kind of event is applied (:meth:`StoredGame.apply`), and the ending each early end is.
_APPLY = {
    EventKind.MOVE: StoredGame._move,
    EventKind.UNDO: StoredGame._undo,
    EventKind.REMATCH: StoredGame._rematch,
    EventKind.CREDIT: StoredGame._credit,
    EventKind.RESIGN: StoredGame._end,
    EventKind.ABORT: StoredGame._end,
    EventKind.TIMEOUT: StoredGame._end,
}
_ENDS = {EventKind.RESIGN: "resignation", EventKind.ABORT: "abort"}


def credit_value(seat: int, seconds: float) -> str:
    """A ``credit`` event's value: whole milliseconds, rounded down, so that it never exceeds the time it gives back."""
    return f"{seat} {math.floor(seconds * 1000) / 1000:.3f}"


def parse_credit(value: str) -> tuple[int, float]:
    """A ``credit`` event's value, ``"SEAT SECONDS"``, as (seat, seconds); ValueError if it is not one."""
    seat, seconds = value.split(" ")
    if seat not in ("0", "1") or not 0 <= float(seconds) < 86400:
        raise ValueError(f"not a credit: {value!r}")
    return int(seat), float(seconds)


def secret_hash(secret: str) -> str:
    """What is stored of a secret (a token, an invitation, a session): its SHA-256."""
    return hashlib.sha256(secret.encode()).hexdigest()
