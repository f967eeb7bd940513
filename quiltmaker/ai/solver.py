"""An exact endgame solver: perfect play (win first, then score margin) when the rest of the game is small.

Alpha-beta search over every legal move, with a transposition table, to the
end of the game. It gives up, rather than guess, when a node budget runs out;
players then fall back on Monte Carlo tree search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.moves import Move
from ..core.position import Position
from ..compiled import announce_compiling
from ..compiled import rules as K
from .solver_kernel import ABORTED, INFINITY, MAX_PLY, WIN, alphabeta

ENDGAME_SOLVER = "the endgame solver"
"""What the compiling notice calls the solver's compiled code."""

DEFAULT_TABLE_BITS = 20
"""The transposition table has 2**DEFAULT_TABLE_BITS entries."""


@dataclass(frozen=True)
class Solution:
    """The exact outcome of a position under perfect play by both sides.

    Attributes:
        best_move: A move that achieves it (``None`` when the game is over).
        winner: Who wins.
        margin: Final score of player 0 minus player 1.
        nodes: Positions searched.
        seconds: Time taken.
    """

    best_move: Move | None
    winner: int
    margin: int
    nodes: int
    seconds: float


class EndgameSolver:
    """Solves positions exactly, keeping its transposition table between calls."""

    def __init__(self, table_bits: int = DEFAULT_TABLE_BITS) -> None:
        size = 1 << table_bits
        self._keys = np.zeros(size, dtype=np.uint64)
        self._values = np.zeros(size, dtype=np.int64)
        self._flags = np.zeros(size, dtype=np.int64)
        self._moves = np.zeros(size, dtype=np.int64)
        self._rows = np.zeros((MAX_PLY, K.MAX_MOVES), dtype=np.int64)
        self._ring: tuple[int, ...] | None = None
        # Nodes left, and the stop flag another thread may raise (the compiled search runs without the GIL).
        self._budget = np.zeros(2, dtype=np.int64)

    def interrupt(self) -> None:
        """Stop a solve under way in another thread at its next node (it returns ``None``)."""
        self._budget[1] = 1

    def solve(self, position: Position, max_nodes: int = 2_000_000, stop: Callable[[], bool] | None = None) -> Solution | None:
        """Solve ``position``, or return ``None`` if that takes more than ``max_nodes`` positions or is interrupted.

        ``stop`` is asked once the solve is set up: a caller that raises its
        stop and then calls :meth:`interrupt` stops the solve wherever it is.
        """
        state, ring = K.from_position(position)
        if ring != self._ring:
            # Table entries are keyed by state alone, which is only sound for one ring.
            self._keys[:] = 0
            self._ring = ring
        budget = self._budget
        budget[0] = max_nodes
        budget[1] = 0
        if stop is not None and stop():
            return None
        started = time.perf_counter()
        announce_compiling(ENDGAME_SOLVER, (alphabeta,), "5 seconds (or run 'quiltmaker compile' once)")
        value, action = alphabeta(
            state, ring, -INFINITY, INFINITY, 0, self._rows, self._keys, self._values, self._flags, self._moves, budget
        )
        if value == ABORTED:
            return None
        winner = 0 if value > 0 else 1
        margin = int(value - WIN if winner == 0 else value + WIN)
        return Solution(
            best_move=None if action == K.NO_ACTION else Move.from_action(int(action)),
            winner=winner,
            margin=margin,
            nodes=max_nodes - int(budget[0]),
            seconds=time.perf_counter() - started,
        )
