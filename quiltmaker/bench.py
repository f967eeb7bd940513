"""Speed measurements on one core, used by ``quiltmaker bench`` and ``benchmarks/``.

Warm-up (including any compilation) is excluded from every figure.
"""

from __future__ import annotations

import platform
import random
import time
from collections.abc import Callable

import numpy as np

from .core.components import DEFAULT_VARIANT, TIME_TRACKS
from .core.position import Position


def _rate(work: Callable[[], int], seconds: float) -> float:
    """Repeat ``work()`` for about ``seconds``; return its units of work per second."""
    work()  # warm-up, excluded from the figure
    done = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += work()
    return done / elapsed


def sample_positions(count: int, seed: int = 12345) -> list[Position]:
    """Positions from all stages of uniform-random games: a fixed sample for timing."""
    rng = random.Random(seed)
    positions: list[Position] = []
    while len(positions) < count:
        position = Position.initial(rng.randrange(1 << 30))
        while not position.is_over and len(positions) < count:
            positions.append(position)
            position = position.play_unchecked(rng.choice(position.legal_moves()))
    return positions


def python_random_game(seed: int) -> int:
    """One uniform-random game with the Python engine; returns 1."""
    rng = random.Random(seed)
    position = Position.initial(seed)
    while not position.is_over:
        moves = position.legal_moves()
        position = position.play_unchecked(moves[rng.randrange(len(moves))])
    return 1


def run_benchmarks(seconds: float = 3.0) -> dict[str, float | str]:
    """Measure the compiled core (random games, move generation, MCTS) and the Python engine."""
    from . import bench_kernels
    from .ai.mcts import SearchConfig, SearchTree
    from .compiled import rules as kernel

    special_mask = TIME_TRACKS[DEFAULT_VARIANT].special_mask
    positions = sample_positions(2000)
    compiled = [kernel.from_position(p) for p in positions]
    states = np.array([state for state, _ in compiled], dtype=np.int64)
    rings = np.array([ring for _, ring in compiled], dtype=np.int64)
    seeds = iter(range(1 << 30))

    def random_games() -> int:
        bench_kernels.play_random_games(1000, next(seeds), special_mask)
        return 1000

    def movegen() -> int:
        bench_kernels.generate_moves_repeatedly(states, rings, 1)
        return len(positions)

    # MCTS with uniform random playouts, from the starting position and from
    # positions spread over whole games (a playout from move 30 is shorter).
    search_positions = [Position.initial(seed) for seed in range(4)] + positions[::100]
    search_config = SearchConfig(playouts="random")

    def mcts_from(selection: list[Position]) -> Callable[[], int]:
        def run() -> int:
            done = 0
            for position in selection:
                if not position.is_over:
                    done += SearchTree(position, search_config, seed=1).search(iterations=2000)
            return done

        return run

    python_seeds = iter(range(1 << 30))
    figures: dict[str, float | str] = {
        "random_games_per_s": _rate(random_games, seconds),
        "movegen_per_s": _rate(movegen, seconds),
        "mcts_iterations_per_s": _rate(mcts_from(search_positions), seconds),
        "mcts_iterations_per_s_from_start": _rate(mcts_from(search_positions[:4]), seconds),
        "python_random_games_per_s": _rate(lambda: python_random_game(next(python_seeds)), seconds),
        "python_movegen_per_s": _rate(lambda: len([p.legal_moves() for p in positions]), seconds),
    }
    figures.update(environment_benchmarks(seconds))
    figures = {key: round(value, 1) for key, value in figures.items() if isinstance(value, float)}
    figures["python"] = platform.python_version()
    figures["machine"] = platform.machine()
    return figures


BATCH_GAMES = 1024
"""N for the batched environment's figures: the issue's size, near what memory allows."""


def environment_benchmarks(seconds: float = 3.0, games: int = BATCH_GAMES) -> dict[str, float]:
    """Environment steps a second: the batched environment (N games a call) beside the one-game Gymnasium adapter.

    Every figure includes choosing a uniformly random legal action (the
    batch's compiled sampler; a NumPy choice over the mask for the
    Gymnasium adapter) and returns full observations and masks. The
    Gymnasium figures need the ``envs`` extra and are left out without it.
    """
    from .envs.batched import PatchworkBatch

    def batched(opponent: str | None) -> Callable[[], int]:
        batch = PatchworkBatch(games, opponent=opponent, seed=1)

        def run() -> int:
            for _ in range(10):
                batch.step(batch.random_actions())
            return 10 * games

        return run

    figures = {
        "batched_env_steps_per_s": _rate(batched(None), seconds),
        "batched_env_vs_random_steps_per_s": _rate(batched("random"), seconds),
        "batched_env_vs_greedy_steps_per_s": _rate(batched("greedy"), seconds),
    }
    try:
        from .envs.gymnasium_env import PatchworkEnv
        from .envs.vector_env import PatchworkVectorEnv
    except ImportError:
        return figures
    rng = np.random.default_rng(1)

    def gymnasium(opponent: str) -> Callable[[], int]:
        env = PatchworkEnv(opponent=opponent)
        observation, _ = env.reset(seed=1)

        def run() -> int:
            nonlocal observation
            for _ in range(100):
                action = rng.choice(np.flatnonzero(observation["action_mask"]))
                observation, _, terminated, _, _ = env.step(action)
                if terminated:
                    observation, _ = env.reset()
            return 100

        return run

    vector = PatchworkVectorEnv(games, opponent="random", copy=False)
    vector.reset(seed=1)

    def vector_run() -> int:
        for _ in range(10):
            vector.step(vector.batch.random_actions())
        return 10 * games

    figures["gymnasium_env_vs_random_steps_per_s"] = _rate(gymnasium("random"), seconds)
    figures["gymnasium_env_vs_greedy_steps_per_s"] = _rate(gymnasium("greedy"), seconds)
    figures["batched_vector_env_vs_random_steps_per_s"] = _rate(vector_run, seconds)
    figures["batched_env_speedup_over_gymnasium"] = figures["batched_env_vs_random_steps_per_s"] / figures["gymnasium_env_vs_random_steps_per_s"]
    return figures
