"""Clocks of online games: the time controls, and each side's time derived from when each move was made.

Nothing about a clock is stored but its time control and the time of each
event in the game's log, so a clock survives any restart and reads the same
in every server process. The rules of the clock, in one place:

- **Real-time** (``minutes + seconds``, Fischer increment): each side has a
  store of time; the side to move spends it, and gains the increment after
  each of its moves. In Patchwork the side to move may move several times in
  a row, and each move counts. A side whose time runs out loses (as on Board
  Game Arena), whatever the score; the server ends the game.
- **Correspondence** (1 to 3 days a move): each move must come within the
  days given since the move before it. Time does not build up. A side past
  its time does not lose by itself: the opponent may claim the win.
- Neither clock runs until each side has made a move (as on Lichess): until
  then nobody's time is spent and either player may abort the game.
- Time the server took is given back (a ``credit`` event in the log): the
  computer's clock does not run while its move waits for a worker, only
  while it thinks.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from babel.numbers import format_decimal

from ... import i18n
from ...i18n import _, ngettext
from ...core.errors import QuiltmakerError

DAY = 86400.0
MIN_INITIAL = 15.0  # seconds, as Lichess's shortest
MAX_INITIAL = 180 * 60.0
MAX_INCREMENT = 60.0
DAYS = (1, 2, 3)
LOW_TIME = 20.0  # a real-time clock is low under this many seconds (or a tenth of its start, if less)

# The lobby's choices; any other real-time control is a custom one.
PRESETS = ("3+2", "5+3", "10+5", "15+10", "30+20", "1d", "2d", "3d")


@dataclass(frozen=True)
class TimeControl:
    """A game's time control: ``realtime`` with ``initial`` and ``increment`` seconds, or ``correspondence`` with ``days``."""

    kind: str
    initial: float = 0.0
    increment: float = 0.0
    days: int = 0

    def __post_init__(self) -> None:
        if self.kind == "realtime":
            if not MIN_INITIAL <= self.initial <= MAX_INITIAL:
                raise QuiltmakerError(f"a real-time clock starts with {MIN_INITIAL:g} s to {MAX_INITIAL / 60:g} minutes")
            if not 0 <= self.increment <= MAX_INCREMENT:
                raise QuiltmakerError(f"the increment is 0 to {MAX_INCREMENT:g} seconds a move")
        elif self.kind == "correspondence":
            if self.days not in DAYS:
                raise QuiltmakerError("a correspondence game gives 1, 2 or 3 days a move")
        else:
            raise QuiltmakerError(f"unknown kind of clock {self.kind!r}: expected realtime or correspondence")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """A control from its short name: ``"10+5"`` (minutes + seconds), ``"0.5+0"``, or ``"2d"`` (days a move)."""
        if match := re.fullmatch(r"([0-9]{1,3}(?:\.[0-9]{1,2})?)\+([0-9]{1,2})", text):
            return cls("realtime", initial=round(float(match[1]) * 60, 3), increment=float(match[2]))
        if match := re.fullmatch(r"([0-9])d", text):
            return cls("correspondence", days=int(match[1]))
        raise QuiltmakerError(f"not a time control: {text[:20]!r} (expected minutes+seconds such as 10+5, or 1d, 2d, 3d)")

    @property
    def short(self) -> str:
        """The short name :meth:`parse` reads."""
        if self.kind == "correspondence":
            return f"{self.days}d"
        return f"{self.initial / 60:g}+{self.increment:g}"

    @property
    def words(self) -> str:
        """The control as a player reads it, in the language in use: "10 minutes + 5 seconds a move", "2 days a move"."""
        return _words(self, i18n.language())

    def _spelled_out(self) -> str:
        if self.kind == "correspondence":
            return ngettext("{n} day a move", "{n} days a move", self.days).format(n=self.days)
        minutes, seconds, increment = self.initial / 60, self.initial, self.increment
        if self.initial >= 60:
            start = ngettext("{n} minute", "{n} minutes", _form(minutes)).format(n=_decimal(minutes))
        else:
            start = ngettext("{n} second", "{n} seconds", _form(seconds)).format(n=_decimal(seconds))
        each = ngettext("{n} second", "{n} seconds", _form(increment)).format(n=_decimal(increment))
        return _("{start} + {increment} a move").format(start=start, increment=each)

    @property
    def low_time(self) -> float:
        """Seconds left under which the page warns: 20, or a tenth of the start when that is less; a day for correspondence."""
        return DAY if self.kind == "correspondence" else min(LOW_TIME, self.initial / 10)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "initial": self.initial, "increment": self.increment, "days": self.days}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TimeControl:
        return cls(str(data["kind"]), float(data.get("initial", 0)), float(data.get("increment", 0)), int(data.get("days", 0)))


@functools.lru_cache(maxsize=256)
def _words(control: TimeControl, language: str) -> str:
    """:attr:`TimeControl.words`, worded once per control and language: every state shows it, and Babel's
    number formatting cost more than the rest of the clock's view."""
    with i18n.using(language):
        return control._spelled_out()


def _form(amount: float) -> int:
    """The count whose plural form an amount takes: a fraction that of 2, in English and in Polish ("1.5 minutes", "1,5 minuty")."""
    return int(amount) if amount == int(amount) else 2


def _decimal(amount: float) -> str:
    """An amount of minutes or seconds as the language in use writes it ("0.25"; "0,25")."""
    return format_decimal(amount, locale=i18n.locale())


class Credit(NamedTuple):
    """Time given back to a real-time side (a ``credit`` event): ``seconds`` to ``seat``, in the turn after move ``ply``."""

    seat: int
    seconds: float
    ply: int


@dataclass(frozen=True)
class Clock:
    """Both sides' time at a moment.

    Attributes:
        remaining: Seconds each side has left (the side to move's already charged up to the moment).
        running: The side whose time runs now; None before the clocks start and once the game is over.
        deadline: When ``running`` runs out of time.
        started: Whether the clocks have started (each side has moved).
    """

    control: TimeControl
    remaining: tuple[float, float]
    running: int | None
    deadline: datetime | None
    started: bool

    @property
    def flagged(self) -> int | None:
        """The side whose time is out (a real-time loss, a correspondence claim), or None."""
        if self.running is not None and self.remaining[self.running] <= 0:
            return self.running
        return None


def clock_at(
    control: TimeControl,
    movers: Sequence[int],
    times: Sequence[datetime],
    to_move: int | None,
    now: datetime,
    credits: Sequence[Credit] = (),
) -> Clock:
    """The clock at ``now`` of a game whose moves were made by ``movers`` at ``times``, ``to_move`` next (None: over),
    with the time ``credits`` give back added."""
    assert len(movers) == len(times)
    # The clocks start with the move that completes "each side has moved".
    seen: set[int] = set()
    start = None
    for index, mover in enumerate(movers):
        seen.add(mover)
        if len(seen) == 2:
            start = index
            break
    if control.kind == "correspondence":
        per_move = control.days * DAY
        if start is None or to_move is None:
            return Clock(control, (per_move, per_move), None, None, start is not None)
        deadline = times[-1] + timedelta(seconds=per_move)
        remaining = [per_move, per_move]
        remaining[to_move] = (deadline - now).total_seconds()
        return Clock(control, (remaining[0], remaining[1]), to_move, deadline, True)
    left = [control.initial, control.initial]
    if start is not None:
        for index in range(start + 1, len(movers)):
            mover = movers[index]
            left[mover] += control.increment - (times[index] - times[index - 1]).total_seconds()
        for credit in credits:
            left[credit.seat] += credit.seconds
    if start is None or to_move is None:
        return Clock(control, (left[0], left[1]), None, None, start is not None)
    deadline = times[-1] + timedelta(seconds=left[to_move])
    left[to_move] = (deadline - now).total_seconds()
    return Clock(control, (left[0], left[1]), to_move, deadline, True)


def thinking_cap(left: float, control: TimeControl) -> float:
    """The most the computer thinks a move with ``left`` seconds on a real-time clock: a fortieth of it plus most
    of the increment, so that its level's usual time never runs its clock out."""
    return max(0.05, left / 40 + control.increment * 0.8)


def clock_view(clock: Clock, now: datetime) -> dict[str, Any]:
    """The clock as the page draws it: seconds left as of the state's sending, whose runs, the control in words."""
    control = clock.control
    return {
        "control": control.short,
        "words": control.words,
        "kind": control.kind,
        "remaining": [max(0.0, round(left, 3)) for left in clock.remaining],
        "running": clock.running,
        "started": clock.started,
        "deadline": clock.deadline.isoformat() if clock.deadline else None,
        "low": control.low_time,
        "flagged": clock.flagged,
        "as_of": now.isoformat(),
    }
