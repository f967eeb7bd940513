"""The game's words for the players, in the language in use: why it is a player's turn, why a move is illegal.

The rules decide (:attr:`Position.turn_cause`, :meth:`Position.illegality`);
this module only words what they decided, for every interface: the web's
views and refusals, and the terminal game.
"""

from __future__ import annotations

from babel.numbers import format_percent

from . import i18n
from .core.components import BONUS_SIZE, PATCHES
from .core.moves import ADVANCE, BUY, SPECIAL, Move, square_name
from .core.position import Position
from .i18n import N_, _, ngettext


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


def percent(fraction: float) -> str:
    """A share as the language in use writes it: "62%" in English, "62%" or "62 %" as a locale has it."""
    return format_percent(fraction, locale=i18n.locale())


def buttons(number: int) -> str:
    """"3 buttons", "1 button" ("5 guzików"): a count of buttons in the language in use."""
    return ngettext("{n} button", "{n} buttons", number).format(n=number)


def spaces(number: int) -> str:
    """"3 spaces" of the time track, in the language in use."""
    return ngettext("{n} space", "{n} spaces", number).format(n=number)


def illegal(position: Position, move: Move, names: list[str]) -> str | None:
    """Why ``move`` is illegal in ``position``, the players named, or ``None`` when it is legal (:meth:`Position.illegality`)."""
    found = position.illegality(move)
    if found is None:
        return None
    name = names[found.player] if found.player is not None else ""
    squares, patch = ", ".join(found.squares), found.patch
    if found.kind == "not_a_move":
        return _("that is not a move of the game")
    if found.kind == "over":
        return _("the game is over")
    if found.kind == "no_special":
        return _("{name} has no special patch to place").format(name=name)
    if found.kind == "special_covered":
        return _("square {square} of {name}'s quilt is already covered").format(square=squares, name=name)
    if found.kind == "special_first":
        return _("{name} must first place the special patch just earned").format(name=name)
    if found.kind == "bought":
        return _("patch {patch} has already been bought").format(patch=patch)
    if found.kind == "not_offered":
        offered = ", ".join(map(str, found.offered))
        return _("patch {patch} is not among the next three patches (on offer: {offered})").format(patch=patch, offered=offered)
    if found.kind == "too_dear":
        return _("patch {patch} costs {price}, {name} has {buttons}").format(
            patch=patch, price=buttons(found.price), name=name, buttons=buttons(found.buttons)
        )
    return ngettext(
        "patch {patch} would cover square {squares}, already covered on {name}'s quilt",
        "patch {patch} would cover squares {squares}, already covered on {name}'s quilt",
        len(found.squares),
    ).format(patch=patch, squares=squares, name=name)


def move_summary(before: Position, move: Move) -> str:
    """One line saying what a move did, for the move list (the rules' :meth:`Position.effect`, in words)."""
    effect = before.effect(move)
    parts: list[str] = []
    if move.kind == ADVANCE:
        parts.append(_("advanced {spaces}: +{buttons}").format(spaces=spaces(effect.spaces), buttons=buttons(effect.advance_buttons)))
    elif move.kind == BUY:
        patch = PATCHES[move.patch]  # type: ignore[index]
        parts.append(_("bought patch {patch} for {buttons}, {time} time").format(patch=patch.id, buttons=buttons(effect.cost), time=patch.time))
    elif move.kind == SPECIAL:
        parts.append(_("placed a special patch on {square}").format(square=square_name(*move.cells[0])))
    if effect.income:
        parts.append(_("collected {buttons} of income").format(buttons=buttons(effect.income)))
    if effect.specials_earned:
        parts.append(_("earned a special patch"))
    if effect.bonus_earned:
        parts.append(_("earned the {size}x{size} bonus").format(size=BONUS_SIZE))
    # translators: what joins the parts of a move's summary ("bought patch 5 for 3 buttons; earned a special patch")
    return _("; ").join(parts)
