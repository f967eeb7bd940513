"""The intents a seated player sends over a game's socket, and the event of the log each asks for, by the round's rules.

An intent that asks for an event (a move, an undo, a rematch, resigning,
aborting) is worded here as its event's value, in the words a player hears
when the rules refuse it; the server then writes it through the gate of the
log that the replay passes too (:meth:`..live.LiveGames.record`,
:func:`.rules.check_live`). A hint and a claim ask the server for
work, not for an event of the player's own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..protocol import move_of
from . import rules
from .game import StoredGame
from .kinds import EventKind

# The intents that ask for an event of the game's log, by the name a message gives them; then the others.
EVENT_INTENTS = {kind.value: kind for kind in (EventKind.MOVE, EventKind.UNDO, EventKind.REMATCH, EventKind.RESIGN, EventKind.ABORT)}
INTENTS = (*EVENT_INTENTS, "hint", "claim")


def event_value(stored: StoredGame, kind: EventKind, seat: int | None, message: dict[str, Any], now: datetime) -> Any:
    """The value of the event ``kind`` that ``seat``'s message asks for, if the rules allow it (a rematch's is the new
    game, which the server makes; a move's is its text as sent, any JSON: the gate of the log reads it).

    Raises:
        Refusal: what the rules say.
    """
    return _VALUES[kind](stored, kind, seat, message, now)


def _move_value(stored: StoredGame, kind: EventKind, seat: int | None, message: dict[str, Any], now: datetime) -> Any:
    rules.may_move(stored, seat)  # first, so that a move out of turn hears so, however it is written
    return move_of(message)  # as sent: the gate of the log reads and checks it, once (:func:`.rules.check_move`)


def _undo_value(stored: StoredGame, kind: EventKind, seat: int | None, message: dict[str, Any], now: datetime) -> str:
    return str(rules.may_undo(stored))


def _end_value(stored: StoredGame, kind: EventKind, seat: int | None, message: dict[str, Any], now: datetime) -> str:
    rules.may_end(stored, kind)
    return str(seat)


# The value of each event a player's intent asks for, checked by the rules.
_VALUES = {EventKind.MOVE: _move_value, EventKind.UNDO: _undo_value, EventKind.RESIGN: _end_value, EventKind.ABORT: _end_value}


