"""Speed measurements on one core, used by ``quiltmaker bench`` and ``benchmarks/``."""

from __future__ import annotations

import platform
import random
import time
from collections.abc import Callable

from .position import Position


def _rate(work: Callable[[int], int], seconds: float) -> float:
    """Run ``work(i)`` for i = 0, 1, ... for about ``seconds``; return units of work per second."""
    work(-1)  # warm-up, excluded from the figure
    done = 0
    calls = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += work(calls)
        calls += 1
    return done / elapsed


def random_game(seed: int) -> int:
    """Play one uniform-random game from a seeded setup; returns 1 (one game)."""
    rng = random.Random(seed)
    position = Position.initial(seed)
    while not position.is_over:
        moves = position.legal_moves()
        position = position.play_unchecked(moves[rng.randrange(len(moves))])
    return 1


def sample_positions(count: int, seed: int = 12345) -> list[Position]:
    """Positions from uniform-random games, a fixed sample for move-generation timing."""
    rng = random.Random(seed)
    positions: list[Position] = []
    while len(positions) < count:
        position = Position.initial(rng.randrange(1 << 30))
        while not position.is_over and len(positions) < count:
            positions.append(position)
            moves = position.legal_moves()
            position = position.play_unchecked(rng.choice(moves))
    return positions


def run_benchmarks(seconds: float = 3.0) -> dict[str, float | str]:
    """Measure uniform-random full games per second and legal-move generations per second."""
    positions = sample_positions(2000)

    def generate(batch: int) -> int:
        for position in positions:
            position.legal_moves()
        return len(positions)

    return {
        "random_games_per_s": round(_rate(random_game, seconds), 1),
        "movegen_per_s": round(_rate(generate, seconds), 1),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
