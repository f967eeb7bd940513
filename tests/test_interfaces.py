"""Every interface words what the core decides, and says the same facts.

The web page's states, the full-screen terminal game and the line-mode
game each have their own sentences, but the turn's cause and a move's
effect come from the core (:attr:`Position.turn_cause`,
:meth:`Position.effect`): here each interface's wording is run on the same
positions and moves and must carry the core's numbers.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers import EARNING_PURCHASE, EARNS_A_SPECIAL, moves_of_sample_games

from quiltmaker.core.components import BONUS_SIZE
from quiltmaker.core.moves import ADVANCE, BUY, Move
from quiltmaker.core.position import Position
from quiltmaker import words
from quiltmaker.tui import line, model
from quiltmaker.web.round import views

PLAIN_CIRCLE = [*range(1, 33), 0]
NAMES = ["Ada", "Bo"]

# Each interface's sentence for why the player to move is to move.
TURN_REASONS: dict[str, Callable[[Position], str]] = {
    "web": lambda position: views.turn_reason(position, NAMES),
    "full-screen": lambda position: model.turn_reason(position, NAMES),
    "line mode": lambda position: line._why_you_move(position),
}

# Each interface's sentence for what a move did.
MOVE_WORDS: dict[str, Callable[[Position, Move], str]] = {
    "web": words.move_summary,
    "terminals": lambda before, move: line.describe_move(before, move, "Ada"),
}


def turn_positions() -> dict[str, Position]:
    start = Position.initial(circle=PLAIN_CIRCLE, first_player=1)
    behind = start.play("A")
    on_top = behind.play("3R0@a1")
    special = Position.from_text(EARNS_A_SPECIAL).play(EARNING_PURCHASE)
    return {"start": start, "behind": behind, "on_top": on_top, "special": special}


@pytest.mark.parametrize("interface", TURN_REASONS)
@pytest.mark.parametrize("kind", ["start", "behind", "on_top", "special"])
def test_every_interface_gives_the_cores_reason_for_the_turn(interface: str, kind: str) -> None:
    position = turn_positions()[kind]
    cause = position.turn_cause
    assert cause.kind == kind
    text = TURN_REASONS[interface](position).lower()
    expected = {
        "start": ["start"],
        "behind": ["behind", str(cause.space), str(cause.other_space)],
        "on_top": ["top"],
        "special": ["special"],
    }[kind]
    assert all(word in text for word in expected), (interface, text)
    if interface != "line mode":  # the line mode speaks to "you"; the others name the player
        assert NAMES[position.to_move].lower() in text  # type: ignore[index]


def sample_moves() -> list[tuple[Position, Move]]:
    """Moves of every kind and effect: advancing past income, purchases with income, specials, the bonus."""
    found: dict[str, tuple[Position, Move]] = {}
    for position, move in moves_of_sample_games():
        effect = position.effect(move)
        key = move.kind + (" income" if effect.income else "") + (" bonus" if effect.bonus_earned else "")
        key += " earns a special" if effect.specials_earned else ""
        found.setdefault(key, (position, move))
    kinds = " ".join(found)
    assert all(word in kinds for word in ("advance", "buy", "special", "income", "bonus")), sorted(found)
    return list(found.values())


@pytest.mark.parametrize("interface", MOVE_WORDS)
def test_every_interface_words_the_cores_effect_of_a_move(interface: str) -> None:
    for before, move in sample_moves():
        effect = before.effect(move)
        text = MOVE_WORDS[interface](before, move)
        if move.kind == BUY:
            assert f"patch {move.patch}" in text and f"{effect.cost} button" in text, text
        elif move.kind == ADVANCE:
            assert f"{effect.advance_buttons} button" in text, text
        else:
            assert "special patch" in text, text
        if effect.income:
            assert str(effect.income) in text and "income" in text, text
        assert ("special" in text) == (move.kind == "special" or effect.specials_earned > 0), text
        assert (f"{BONUS_SIZE}x{BONUS_SIZE}" in text) == effect.bonus_earned, text
