"""Players and limits: build players from specifications, give them a budget, play a game and save it.

    python docs/examples/players_and_limits.py
    python docs/examples/players_and_limits.py --a casual --b "mcts:time=0.2" --record game.json
"""

from __future__ import annotations

import argparse
from pathlib import Path

from quiltmaker import Position, record
from quiltmaker.ai.levels import LEVELS
from quiltmaker.specs import player_from_spec
from quiltmaker.ai.mcts import MCTSPlayer
from quiltmaker.ai.players import Limit, play_game


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="greedy", help="a level, random, greedy or mcts:...")
    parser.add_argument("--b", default="mcts:iterations=300", help="likewise")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--record", type=Path, help="save the game here (JSON)")
    args = parser.parse_args(argv)

    for name, level in LEVELS.items():  # the levels and what each one is
        print(f"{name:>8}: {level.spec}")
    # Any specification the command line takes builds a player; seeds make searches repeatable.
    players = [player_from_spec(args.a, seed=args.seed), player_from_spec(args.b, seed=args.seed + 1)]
    # Or build one directly, with a limit by playouts (repeatable) or by seconds (kept within the time).
    direct = MCTSPlayer(Limit(iterations=200), seed=7, name="mcts-200")
    print(f"{direct.name} opens with {direct.choose_move(Position.initial(args.seed)).text()}")

    game = play_game(players, Position.initial(args.seed))
    final = game.position
    print(f"{game.players[0]} {final.score(0)} : {final.score(1)} {game.players[1]} after {len(game.moves)} moves")
    if args.record:
        record.save(game, args.record)
        print(f"saved: {args.record} (replay it with: quiltmaker replay {args.record})")
    for player in players:
        player.close()
    return {"game": game}


if __name__ == "__main__":
    main()
