"""Translation between the engine's moves and the plain rules' tuples (tests/plain_rules.py)."""

from __future__ import annotations

from typing import Any

from quiltmaker.core.components import LAST_SPACE, mask_to_cells
from quiltmaker.core.moves import ADVANCE, BUY, Move
from quiltmaker.core.position import NO_BONUS, Position


def plain_move(move: Move) -> tuple[Any, ...]:
    """The plain rules' tuple for an engine move."""
    if move.kind == ADVANCE:
        return ("advance",)
    if move.kind == BUY:
        return ("buy", move.patch, frozenset(move.cells))
    return ("special", move.cells[0])


def plain_snapshot(position: Position) -> dict[str, Any]:
    """An engine position in the form of the plain rules' ``snapshot()``."""
    return {
        "positions": list(position.times),
        "buttons": list(position.buttons),
        "income": list(position.income),
        "quilts": [frozenset(mask_to_cells(q)) for q in position.quilts],
        "circle": list(position.circle),
        "specials": [s for s in range(LAST_SPACE + 1) if position.specials >> s & 1],
        "bonus": None if position.bonus == NO_BONUS else position.bonus,
        "pending_specials": position.pending,
        "to_move": position.to_move,
    }
