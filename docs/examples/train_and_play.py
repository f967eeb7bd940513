"""Train a small policy through the Gymnasium environment, then play it against a quiltmaker level.

The whole path in one file, NumPy only:

1. ``gym.make("quiltmaker/Patchwork-v0", opponent="beginner")`` gives games
   against quiltmaker's ``beginner`` level, with the legal-action mask in
   every observation;
2. a linear softmax policy over the legal actions, each action described by
   a few features read from the observation, learns by REINFORCE from the
   final score margin (``info["margin"]``);
3. the trained policy becomes a quiltmaker :class:`~quiltmaker.ai.players.Player`
   and plays a match against a level (``--against``), alternating seats; one
   game is saved as a record that ``quiltmaker replay`` reads.

Run it (well under a minute with the defaults)::

    python docs/examples/train_and_play.py --episodes 300 --games 20 --against beginner

Needs the ``envs`` extra: ``pip install 'quiltmaker[envs]'``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import quiltmaker.envs.gymnasium_env  # noqa: F401  (registers quiltmaker/Patchwork-v0)
from quiltmaker import ACTION_COUNT, Move, Position
from quiltmaker.core import record
from quiltmaker.specs import player_from_spec
from quiltmaker.core.components import BOARD_SIZE, LAST_SPACE, PATCHES, SQUARES
from quiltmaker.envs.observation import BUTTONS_SCALE, INCOME_SPACES, LAYOUT, action_mask, encode
from quiltmaker.core.moves import ADVANCE, SPECIAL
from quiltmaker.ai.players import Player, play_game

FEATURES = ("advance", "special", "income", "points", "cost", "time", "snug", "buy", "gain", "left")


def _action_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-action constants: the static features, a neighbour matrix and border contacts.

    ``neighbours[a, s]`` counts the squares of action ``a``'s placement that
    touch square ``s`` along an edge, so ``neighbours @ quilt`` is how snugly
    ``a`` lies against the covered squares (as the greedy player measures it).
    """
    static = np.zeros((ACTION_COUNT, 5), np.float32)  # advance?, special?, patch income, size, cost
    neighbours = np.zeros((ACTION_COUNT, SQUARES), np.float32)
    border = np.zeros(ACTION_COUNT, np.float32)
    for action in range(ACTION_COUNT):
        move = Move.from_action(action)
        if move.kind == ADVANCE:
            static[action, 0] = 1.0
            continue
        if move.kind == SPECIAL:
            static[action, 1] = 1.0
        else:
            assert move.patch is not None
            patch = PATCHES[move.patch]
            static[action, 2:] = patch.income, patch.size, patch.cost
        for row, col in move.cells:
            for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                if 0 <= r < BOARD_SIZE and 0 <= c < BOARD_SIZE:
                    neighbours[action, r * BOARD_SIZE + c] += 1.0
                else:
                    border[action] += 1.0
    return static, neighbours, border


STATIC, NEIGHBOURS, BORDER = _action_tables()
TIMES = np.array([PATCHES[m.patch].time if m.patch is not None else 0 for m in map(Move.from_action, range(ACTION_COUNT))], np.float32)


def action_features(observation: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Features of each legal action (rows) in this observation, scaled to about [0, 1]."""
    incomes_left = observation[LAYOUT["income_left"]][0] * INCOME_SPACES
    own_time, their_time = observation[LAYOUT["time"]] * LAST_SPACE
    buttons = observation[LAYOUT["buttons"]][0] * BUTTONS_SCALE
    quilt = observation[LAYOUT["own_quilt"]]
    static = STATIC[legal]
    buy = (static[:, 0] + static[:, 1] == 0).astype(np.float32)
    return np.stack(
        [
            static[:, 0],
            static[:, 1],
            static[:, 2] * incomes_left / 10,  # buttons the patch's income will still pay
            static[:, 3] * 2 / 10,  # 2 points per square covered
            static[:, 4] / 10,
            TIMES[legal] / 6,
            (NEIGHBOURS[legal] @ quilt + BORDER[legal]) / 10,
            buy,
            static[:, 0] * (min(their_time + 1, LAST_SPACE) - own_time) / 10,  # buttons advancing pays
            (buttons - static[:, 4]) / 20,  # buttons left after the move
        ],
        axis=1,
    )


def softmax(logits: np.ndarray) -> np.ndarray:
    exp = np.exp(logits - logits.max())
    probabilities: np.ndarray = exp / exp.sum()
    return probabilities


def train(episodes: int, opponent: str, seed: int, learning_rate: float = 0.1) -> np.ndarray:
    """REINFORCE with a running baseline; the return is the final margin in units of 20 points."""
    env = gym.make("quiltmaker/Patchwork-v0", opponent=opponent)
    rng = np.random.default_rng(seed)
    weights = np.zeros(len(FEATURES))
    baseline = 0.0
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        grads = []
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            features = action_features(obs["observation"], legal)
            probs = softmax(features @ weights)
            choice = rng.choice(len(legal), p=probs)
            grads.append(features[choice] - probs @ features)  # grad of log pi(a|s)
            obs, reward, done, _, info = env.step(legal[choice])
        ret = info["margin"] / 20
        baseline += 0.05 * (ret - baseline)
        weights += learning_rate * (ret - baseline) * np.sum(grads, axis=0)
        if (episode + 1) % max(1, episodes // 5) == 0:
            print(f"episode {episode + 1:4d}: margin {info['margin']:+4d}, baseline {baseline * 20:+6.1f}")
    env.close()
    return weights


class LinearPolicyPlayer(Player):
    """The trained policy as a quiltmaker player: the most probable legal action."""

    name = "linear-policy"

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = weights

    def choose_move(self, position: Position) -> Move:
        player = position.to_move
        assert player is not None, "the game is over"
        legal = np.flatnonzero(action_mask(position))
        scores = action_features(encode(position, player), legal) @ self.weights
        return Move.from_action(int(legal[int(np.argmax(scores))]))


def evaluate(weights: np.ndarray, against: str, games: int, seed: int, record_path: Path | None = None, label: str = "trained") -> float:
    """Play ``games`` games against a level, alternating seats; return the policy's win rate."""
    wins, margins = 0, []
    for number in range(games):
        seat = number % 2
        ours, theirs = LinearPolicyPlayer(weights), player_from_spec(against, seed=seed + number)
        players: list[Player] = [ours, theirs] if seat == 0 else [theirs, ours]
        game = play_game(players, Position.initial(seed + 10_000 + number))
        final = game.position
        wins += final.winner == seat
        margins.append(final.score(seat) - final.score(1 - seat))
        if record_path is not None and number == 0:
            record_path.write_text(json.dumps(record.to_json(game)), encoding="utf-8")
    rate = wins / games
    print(f"{label} policy against {against}: won {wins} of {games} ({rate:.0%}), mean margin {np.mean(margins):+.1f}")
    return rate


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300, help="training games against --opponent")
    parser.add_argument("--opponent", default="beginner", help="the level to train against")
    parser.add_argument("--games", type=int, default=20, help="evaluation games")
    parser.add_argument("--against", default="beginner", help="the level to evaluate against")
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", type=Path, default=None, help="save the first evaluation game as a JSON record")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    # All weights zero: every action scores the same and the first legal one, advancing, is always taken.
    untrained = evaluate(np.zeros(len(FEATURES)), args.against, args.games, args.seed, label="untrained")
    weights = train(args.episodes, args.opponent, args.seed, args.learning_rate)
    print("weights:", ", ".join(f"{name} {w:+.2f}" for name, w in zip(FEATURES, weights)))
    trained = evaluate(weights, args.against, args.games, args.seed, args.record)
    print(f"done in {time.perf_counter() - started:.0f} s")
    return {"untrained": untrained, "trained": trained, "weights": weights.tolist()}


if __name__ == "__main__":
    main()
