"""The kinds of game and of logged event, declared once.

Both are string enums: their values are what the database stores and the
wire carries (``"online"``, ``"move"``), so a row or a message compares equal
to its member, and the contract's types and the page's are generated from
these. Nothing else spells a mode or an event kind.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, TypeAlias


class Mode(StrEnum):
    """Who plays a game, which says what the server does for it."""

    AI = "ai"  # a person against the computer
    LOCAL = "local"  # pass-and-play: two people on one device, one token for both seats
    ONLINE = "online"  # two people, each with their seat's token
    LESSON = "lesson"  # the learner against the tutor, from a lesson's start
    PUZZLE = "puzzle"  # one move to find, from a puzzle's position

    @property
    def against_ai(self) -> bool:
        """Whether one seat is played by the server (the computer, or a lesson's tutor)."""
        return self in (Mode.AI, Mode.LESSON)


# Every mode, for the contract's fields (Pydantic reads the strings and hands back the members; the page's types list
# the strings). A test holds it to the enum.
AnyMode: TypeAlias = Literal[Mode.AI, Mode.LOCAL, Mode.ONLINE, Mode.LESSON, Mode.PUZZLE]


class EventKind(StrEnum):
    """The kinds of event a game's log holds (:mod:`.game` says what each value is)."""

    MOVE = "move"
    UNDO = "undo"
    RESIGN = "resign"
    ABORT = "abort"
    TIMEOUT = "timeout"
    CREDIT = "credit"
    REMATCH = "rematch"


ENDINGS = (EventKind.RESIGN, EventKind.ABORT)  # the early ends a player asks for (a timeout is the clock's)


class OfferKind(StrEnum):
    """How a game is offered in the lobby: to anyone, to one account, or a quick match's pair (listed as being played)."""

    OPEN = "open"
    NAMED = "named"
    QUICK = "quick"
