"""The game's words for the players: why it is a player's turn, the engine's messages with the players' names.

The rules decide (:attr:`Position.turn_cause`, :meth:`Position.why_illegal`);
this module only words what they decided, for the views and the round's refusals.
"""

from __future__ import annotations

import re

from ..core.position import Position
from ..i18n import N_, _, ngettext


def turn_reason(position: Position, names: list[str]) -> str:
    """Why the player to move is to move, in words (the rules decide it: :attr:`Position.turn_cause`)."""
    cause = position.turn_cause
    if cause.player is None:
        return _("the game is over")
    name = names[cause.player]
    if cause.kind == "special":
        return _("{name} must place the special patch just earned").format(name=name)
    if cause.kind == "start":
        return _("{name} starts the game").format(name=name)
    if cause.kind == "behind":
        return _("{name} is behind on the time track (space {space} against {other})").format(
            name=name, space=cause.space, other=cause.other_space
        )
    return _("both tokens are on space {space}: {name} arrived last, so is on top and moves first").format(name=name, space=cause.space)


# A patch's eight orientations, R0..R3 turned clockwise and F0..F3 mirrored first, each worded whole.
_ORIENTATIONS = {
    "R0": N_("as drawn"),
    "R1": N_("turned once"),
    "R2": N_("turned twice"),
    "R3": N_("turned three times"),
    "F0": N_("flipped"),
    "F1": N_("flipped and turned once"),
    "F2": N_("flipped and turned twice"),
    "F3": N_("flipped and turned three times"),
}


def orientation_words(transform: str) -> str:
    """A patch's orientation (``R0``..``R3`` turned clockwise, ``F0``..``F3`` mirrored first) as the player reads it."""
    return _(_ORIENTATIONS[transform])


def buttons(number: int) -> str:
    """"3 buttons", "1 button" ("5 guzików"): a count of buttons in the language in use."""
    return ngettext("{n} button", "{n} buttons", number).format(n=number)


def spaces(number: int) -> str:
    """"3 spaces" of the time track, in the language in use."""
    return ngettext("{n} space", "{n} spaces", number).format(n=number)


_PLAYER = re.compile(r"\bplayer ([01])\b")


def with_names(message: str, names: list[str]) -> str:
    """An engine message with "player 0" and "player 1" replaced by the players' names."""
    return _PLAYER.sub(lambda match: names[int(match.group(1))], message)
