"""Many games at once: a NumPy policy against the greedy player, in the batched environment.

The policy reads only what any agent gets, the observation and the mask of
every game, and chooses for all of them with a few array operations: it
buys whenever some purchase is legal (a uniformly random one), and
advances otherwise. It is set against the uniform random policy over the
same games, and both play ``greedy`` inside the compiled call.

    python docs/examples/batched_play.py                 # 1,024 games at once, 2,048 games each
    python docs/examples/batched_play.py --games 64 --total 128
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from quiltmaker.core.moves import FIRST_BUY_ACTION
from quiltmaker.envs.batched import PatchworkBatch


def uniform(batch: PatchworkBatch, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action in every game (the batch's compiled sampler)."""
    return batch.random_actions()


def buy_first(batch: PatchworkBatch, rng: np.random.Generator) -> np.ndarray:
    """A random legal purchase where there is one, else the first legal action (advance, or a special patch)."""
    mask = batch.legal_action_mask
    noise = rng.random(mask.shape, dtype=np.float32)
    purchase = np.where(mask[:, FIRST_BUY_ACTION:], noise[:, FIRST_BUY_ACTION:], -1.0).argmax(axis=1) + FIRST_BUY_ACTION
    can_buy = mask[:, FIRST_BUY_ACTION:].any(axis=1)
    return np.where(can_buy, purchase, mask.argmax(axis=1))


def play(policy, games: int, total: int, seed: int) -> tuple[float, float, float]:
    """Play ``total`` games against greedy, ``games`` at a time; return (win rate, mean margin, steps a second)."""
    batch = PatchworkBatch(games, opponent="greedy", seed=seed)
    rng = np.random.default_rng(seed)
    wins, margins, steps = 0, [], 0
    start = time.perf_counter()
    while len(margins) < total:
        batch.step(policy(batch, rng))
        steps += games
        for row in np.flatnonzero(batch.terminated):
            seat = batch.final_seat[row]
            wins += int(batch.final_winner[row] == seat)
            margins.append(int(batch.final_scores[row, seat] - batch.final_scores[row, 1 - seat]))
    elapsed = time.perf_counter() - start
    return wins / len(margins), float(np.mean(margins)), steps / elapsed


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1024, help="games at once")
    parser.add_argument("--total", type=int, default=2048, help="games for each policy")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    results = {}
    for name, policy in (("uniform", uniform), ("buy first", buy_first)):
        results[name] = play(policy, args.games, args.total, args.seed)
        win_rate, margin, speed = results[name]
        print(f"{name:>9} against greedy: wins {win_rate:.1%}, mean margin {margin:+.1f}, {speed:,.0f} steps a second")
    return results


if __name__ == "__main__":
    main()
