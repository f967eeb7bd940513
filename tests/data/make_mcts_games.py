"""Regenerate tests/data/mcts_games.json: whole games of iteration-limited search players, move by move.

Iteration-limited players are reproducible from their seeds, and changes to
how a search is timed or its tree is kept must not change what they play:
tests/test_search.py replays these games and expects the same moves. Run this
only for a change that is meant to change play, and say so in its commit::

    .venv/bin/python tests/data/make_mcts_games.py
"""

from __future__ import annotations

import json
from pathlib import Path

from quiltmaker.specs import player_from_spec
from quiltmaker.ai.players import play_game
from quiltmaker.core.position import Position

GAMES = (("mcts:iterations=300", 1), ("mcts:iterations=2000", 2), ("mcts:iterations=500,placements=0,playouts=random", 3))


def play(spec: str, seed: int) -> list[str]:
    """The moves of ``spec`` against greedy from setup ``seed`` (the search seated second for odd seeds)."""
    players = [player_from_spec(spec, seed=seed), player_from_spec("greedy", seed=seed)]
    if seed % 2:
        players.reverse()
    return [move.text() for move in play_game(players, Position.initial(seed)).moves]


if __name__ == "__main__":
    games = [{"spec": spec, "seed": seed, "moves": play(spec, seed)} for spec, seed in GAMES]
    path = Path(__file__).with_name("mcts_games.json")
    path.write_text(json.dumps(games, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(games)} games to {path}")
