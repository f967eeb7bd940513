"""The endgame solver against plain exhaustive search."""

from __future__ import annotations

import functools

import pytest

from quiltmaker.ai.solver import EndgameSolver
from quiltmaker.ai.players import GreedyPlayer, RandomPlayer, play_game
from quiltmaker.core.position import Position


def exhaustive(position: Position) -> tuple[int, int]:
    """(winner, margin) under perfect play: win first, then margin, by plain minimax over every move."""

    @functools.cache
    def value(p: Position) -> int:
        if p.is_over:
            margin = p.scores[0] - p.scores[1]
            return 1000 + margin if p.winner == 0 else -1000 + margin
        values = [value(p.play_unchecked(m)) for m in p.legal_moves()]
        return max(values) if p.to_move == 0 else min(values)

    v = value(position)
    return (0, v - 1000) if v > 0 else (1, v + 1000)


def endgames() -> list[Position]:
    """Positions a few moves from the end of greedy and random games."""
    positions = []
    for seed in range(8):
        players = [GreedyPlayer(seed), GreedyPlayer(seed + 1)] if seed % 2 else [GreedyPlayer(seed), RandomPlayer(seed)]
        game = play_game(players, Position.initial(seed))
        positions.extend(game.positions[-5:-1])
    return positions


@pytest.mark.parametrize("index", range(32))
def test_solver_agrees_with_exhaustive_search(index: int) -> None:
    position = endgames()[index]
    solution = EndgameSolver(table_bits=12).solve(position)
    assert solution is not None
    assert (solution.winner, solution.margin) == exhaustive(position)
    # Its move achieves the value: the position after it is worth the same.
    assert solution.best_move is not None
    after = position.play(solution.best_move)
    assert exhaustive(after) == (solution.winner, solution.margin)


def test_solver_gives_up_past_its_budget() -> None:
    assert EndgameSolver().solve(Position.initial(1), max_nodes=1000) is None


def test_finished_position() -> None:
    game = play_game([GreedyPlayer(0), GreedyPlayer(1)], Position.initial(3))
    solution = EndgameSolver().solve(game.position)
    assert solution is not None and solution.best_move is None
    assert solution.winner == game.position.winner
    assert solution.margin == game.position.scores[0] - game.position.scores[1]


def test_ordered_actions_are_exactly_the_legal_actions() -> None:
    import numpy as np

    from quiltmaker.compiled import rules as kernel
    from quiltmaker.ai.solver_kernel import ordered_actions

    out = np.empty(kernel.MAX_MOVES, dtype=np.int64)
    for seed in range(20):
        game = play_game([RandomPlayer(seed), GreedyPlayer(seed)], Position.initial(seed))
        for position in game.positions[::3]:
            state, ring = kernel.from_position(position)
            count = ordered_actions(state, ring, out)
            assert sorted(out[:count].tolist()) == sorted(m.action for m in position.legal_moves())


def test_another_thread_stops_a_solve_at_once() -> None:
    import threading

    # The middle of a game: far too big to solve, so only the interruption can end it.
    position = Position.initial(5)
    for _ in range(12):
        position = position.play(GreedyPlayer(1).choose_move(position))
    solver = EndgameSolver()
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(solver.solve(position, max_nodes=1 << 60)))
    worker.start()
    worker.join(0.3)
    assert worker.is_alive(), "the solve should still be running"
    solver.interrupt()
    worker.join(30)
    assert not worker.is_alive() and results == [None]
    # The solver is usable afterwards, and a stop raised before a solve starts is seen.
    assert solver.solve(position, max_nodes=1 << 60, stop=lambda: True) is None
    assert solver.solve(position, max_nodes=100) is None
