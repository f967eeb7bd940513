"""Analysis: what the search thinks of a position, and of every move of a game.

    python docs/examples/analysis.py                  # a position from seed 3, 2,000 playouts
    python docs/examples/analysis.py --iterations 500
"""

from __future__ import annotations

import argparse

from quiltmaker import Game, Position
from quiltmaker.ai.analysis import analyse_game, analyse_position
from quiltmaker.ai.players import GreedyPlayer, Limit, play_game


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000, help="playouts a position")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    limit = Limit(iterations=args.iterations)

    # One position: the chance to win of the player to move, the margin it expects, its best moves.
    start = Position.initial(args.seed)
    analysis = analyse_position(start, limit)
    print(f"player {analysis.to_move} to move: wins {analysis.win_probability:.0%}, expects {analysis.expected_margin:+.1f}")
    for move, visits, win_rate, margin in analysis.moves[:3]:
        print(f"  {move:>10}  {visits:5d} playouts  wins {win_rate:.0%}  margin {margin:+.1f}")

    # A whole game (greedy against itself, the first 6 moves): how each move changed the outlook.
    game = play_game([GreedyPlayer(1), GreedyPlayer(2)], start)
    short = Game(start, game.players)
    for move in game.moves[:6]:
        short.play(move)
    results = analyse_game(short, limit)
    for number, (before, move) in enumerate(zip(results, short.moves), start=1):
        print(f"{number:2}. {move.text():>10}  player {before.to_move} wins {before.win_probability:.0%} (best {before.best_move})")
    return {"position": analysis, "game": results}


if __name__ == "__main__":
    main()
