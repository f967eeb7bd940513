"""A match: two players over many games in parallel, seats swapped on every setup, with an Elo estimate.

    python docs/examples/matches.py                         # greedy against random, 20 games
    python docs/examples/matches.py --a casual --b greedy --games 40 --records match-records
"""

from __future__ import annotations

import argparse
from pathlib import Path

from quiltmaker.match import run_match


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="greedy")
    parser.add_argument("--b", default="random")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--workers", type=int, default=None, help="parallel games (default: one per core)")
    parser.add_argument("--records", type=Path, help="one JSON record per game")
    args = parser.parse_args(argv)

    result = run_match((args.a, args.b), args.games, seed=0, workers=args.workers, records=args.records)
    elo, low, high = result.elo()
    margin, half = result.margin_interval()
    print(f"{args.a} won {result.a_wins} of {result.games} ({result.score:.0%}), by seat {result.a_wins_by_seat}")
    print(f"Elo {elo:+.0f} (95%: {low:+.0f} to {high:+.0f}), mean margin {margin:+.1f} +/- {half:.1f}")
    return result.summary()


if __name__ == "__main__":
    main()
