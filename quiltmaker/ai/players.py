"""The agent interface and the first two players: uniform random and greedy.

A player is anything with ``choose_move(position) -> Move``; every player
here is reproducible from its seed. Stronger players build on :class:`Player`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from collections.abc import Callable, Sequence

from ..core.components import BOARD_SIZE, EMPTY_SQUARE_PENALTY, INCOME_UP_TO, LAST_SPACE, PATCHES, cells_to_mask
from ..core.game import Game
from ..core.moves import ADVANCE, BUY, Move
from ..core.position import Position
from ..core.seeds import seeded_random


@dataclass(frozen=True)
class Limit:
    """How much a player may think per move; ``None`` means no bound of that kind.

    Attributes:
        time: Seconds per move.
        iterations: Search iterations (playouts) per move.
        depth: Search depth in moves.
    """

    time: float | None = None
    iterations: int | None = None
    depth: int | None = None


class Player(ABC):
    """An agent that chooses moves.

    Attributes:
        name: A short name, written into game records.
    """

    name = "player"

    @abstractmethod
    def choose_move(self, position: Position) -> Move:
        """Return a legal move for ``position``, whose game must not be over."""

    def close(self) -> None:
        """Release what the player holds (an outside process, say); the default holds nothing."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomPlayer(Player):
    """Chooses uniformly among all legal moves."""

    name = "random"
    """The name written into records."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = seeded_random(seed)

    def choose_move(self, position: Position) -> Move:
        """A legal move drawn uniformly."""
        return self._rng.choice(position.legal_moves())


_ROW_FIRST = cells_to_mask((0, c) for c in range(BOARD_SIZE))
_ROW_LAST = cells_to_mask((BOARD_SIZE - 1, c) for c in range(BOARD_SIZE))
_COL_FIRST = cells_to_mask((r, 0) for r in range(BOARD_SIZE))
_COL_LAST = cells_to_mask((r, BOARD_SIZE - 1) for r in range(BOARD_SIZE))


def contact(quilt: int, mask: int) -> int:
    """Count the edges of the squares in ``mask`` that touch covered squares of ``quilt`` or the border.

    A snug placement leaves fewer isolated holes, which cost 2 points each at the end.
    """
    touching = (
        ((mask >> BOARD_SIZE) & quilt).bit_count()
        + ((mask << BOARD_SIZE) & quilt).bit_count()
        + (((mask & ~_COL_FIRST) >> 1) & quilt).bit_count()
        + (((mask & ~_COL_LAST) << 1) & quilt).bit_count()
    )
    border = (mask & _ROW_FIRST).bit_count() + (mask & _ROW_LAST).bit_count()
    border += (mask & _COL_FIRST).bit_count() + (mask & _COL_LAST).bit_count()
    return touching + border


def incomes_left(space: int) -> int:
    """Income spaces still ahead of a token on ``space``."""
    return INCOME_UP_TO[LAST_SPACE] - INCOME_UP_TO[space]


def forecast(position: Position, player: int) -> int:
    """The score ``player`` would end with buying nothing more (the UIs' score forecast).

    The score now (buttons, bonus, empty squares), plus a button per space
    still to advance to the end, plus income for each income space ahead.
    """
    space = position.times[player]
    return position.score(player) + (LAST_SPACE - space) + position.income[player] * incomes_left(space)


def patch_value(patch_id: int, space: int) -> int:
    """The greedy value of buying a patch from ``space``, in buttons.

    The income it will still pay, plus the points its squares save at the
    end, minus its cost, minus one button per space of time it takes (what
    advancing would have paid). The greedy player ranks purchases by it; its
    compiled twin, ``quiltmaker.compiled.playouts.patch_value``, does the same in
    playouts and in the endgame solver's move ordering, and a test holds the
    two equal.
    """
    patch = PATCHES[patch_id]
    end = min(space + patch.time, LAST_SPACE)
    return patch.income * incomes_left(space) + EMPTY_SQUARE_PENALTY * patch.size - patch.cost - (end - space)


class GreedyPlayer(Player):
    """A one-move-deep heuristic player.

    It values a purchase at the income it will still pay, plus the 2 points
    of each square it covers, minus its cost, minus one button per space of
    time it takes (what advancing would have paid); advancing is worth 0. Among
    placements of the chosen patch, and for special patches, it takes the
    snuggest square (most edges against covered squares or the border); ties
    are broken at random from its seed.
    """

    name = "greedy"
    """The name written into records."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = seeded_random(seed)

    def move_value(self, position: Position, move: Move, player: int) -> float:
        """The heuristic value of ``move`` for ``player``, who is to move."""
        quilt = position.quilts[player]
        if move.kind == ADVANCE:
            return 0.0
        placement = contact(quilt, move.mask) / 100
        if move.kind != BUY:
            return placement
        assert move.patch is not None
        return patch_value(move.patch, position.times[player]) + placement

    def choose_move(self, position: Position) -> Move:
        """The move that scores best now by the greedy player's measure (see the class)."""
        player = position.to_move
        assert player is not None, "the game is over"
        moves = position.legal_moves()
        values = [self.move_value(position, move, player) for move in moves]
        best = max(values)
        return self._rng.choice([m for m, v in zip(moves, values) if v == best])


PLAYER_TYPES: dict[str, Callable[[int | None], Player]] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
}
"""The simple players by name, each built from a seed."""


def play_game(players: Sequence[Player], start: Position) -> Game:
    """Play a whole game between two players from ``start`` and return it."""
    game = Game(start, [p.name for p in players])
    position = start
    while (mover := position.to_move) is not None:
        move = players[mover].choose_move(position)
        game.play(move)
        position = game.position
    return game
