"""The game's words for the players: why it is a player's turn, the engine's messages with the players' names.

The rules decide (:attr:`Position.turn_cause`, :meth:`Position.why_illegal`);
this module only words what they decided, for the views and the round's refusals.
"""

from __future__ import annotations

import re

from ..core.position import Position


def turn_reason(position: Position, names: list[str]) -> str:
    """Why the player to move is to move, in words (the rules decide it: :attr:`Position.turn_cause`)."""
    cause = position.turn_cause
    if cause.player is None:
        return "the game is over"
    name = names[cause.player]
    if cause.kind == "special":
        return f"{name} must place the special patch just earned"
    if cause.kind == "start":
        return f"{name} starts the game"
    if cause.kind == "behind":
        return f"{name} is behind on the time track (space {cause.space} against {cause.other_space})"
    return f"both tokens are on space {cause.space}: {name} arrived last, so is on top and moves first"


def orientation_words(transform: str) -> str:
    """A patch's orientation (``R0``..``R3`` turned clockwise, ``F0``..``F3`` mirrored first) as the player reads it."""
    turns = ("", "turned once", "turned twice", "turned three times")[int(transform[1:])]
    if transform.startswith("F"):
        return f"flipped and {turns}" if turns else "flipped"
    return turns or "as drawn"


_PLAYER = re.compile(r"\bplayer ([01])\b")


def with_names(message: str, names: list[str]) -> str:
    """An engine message with "player 0" and "player 1" replaced by the players' names."""
    return _PLAYER.sub(lambda match: names[int(match.group(1))], message)
