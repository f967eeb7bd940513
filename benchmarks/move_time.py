"""Time per move of time-limited players: does a limit of T seconds answer within T?

Run: ``python benchmarks/move_time.py [--games N] [--json] [SPEC ...]`` (default
specs: ``mcts:time=0.2``, ``expert``, ``max``). Each spec plays N games
against ``random`` and N against ``greedy``, seats alternating: their replies
are ones a search rarely expects, so the tree often has to start afresh. The
time of every move is taken around ``choose_move``, as a match or the web
server sees it. Warm-up (loading the compiled core) is excluded, as in every
benchmark here. The figures in docs/benchmarks.md come from this script.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from quiltmaker.specs import player_from_spec
from quiltmaker.ai.mcts import MCTSPlayer, warm_up
from quiltmaker.ai.players import Player
from quiltmaker.core.position import Position

OPPONENTS = ("random", "greedy")
DEFAULT_SPECS = ("mcts:time=0.2", "expert", "max")


def timed_games(spec: str, games: int, seed: int = 0) -> dict[str, object]:
    """Play ``games`` games against each opponent; the limit and the times of the spec's moves."""
    times: list[float] = []
    stages: dict[str, float] = {}
    fresh_trees = 0
    limit = None
    for opponent_name in OPPONENTS:
        for game in range(games):
            player = player_from_spec(spec, seed=seed + game)
            assert isinstance(player, MCTSPlayer), f"{spec} is not a search player"
            limit = player.limit.time
            opponent: Player = player_from_spec(opponent_name, seed=seed + game)
            seats = (player, opponent) if game % 2 == 0 else (opponent, player)
            position = Position.initial(seed + game)
            while (mover := position.to_move) is not None:
                started = time.perf_counter()
                move = seats[mover].choose_move(position)
                elapsed = time.perf_counter() - started
                if seats[mover] is player:
                    times.append(elapsed)
                    report = player.last_report
                    assert report is not None
                    fresh_trees += not report.reused_tree and not report.solved
                    for stage, seconds in report.stages().items():
                        stages[stage] = stages.get(stage, 0.0) + seconds
                position = position.play_unchecked(move)
    times.sort()
    return {
        "spec": spec,
        "limit_s": limit,
        "moves": len(times),
        "mean_s": round(statistics.fmean(times), 4),
        "p99_s": round(times[min(len(times) - 1, int(0.99 * len(times)))], 4),
        "max_s": round(times[-1], 4),
        "over_margin": sum(t > limit + margin(limit) for t in times) if limit else 0,
        "fresh_trees": fresh_trees,
        "mean_stage_s": {stage: round(seconds / len(times), 4) for stage, seconds in stages.items()},
    }


def margin(limit: float) -> float:
    """The documented allowance over a time limit: 5% or 50 ms, whichever is larger."""
    return max(0.05 * limit, 0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", default=list(DEFAULT_SPECS))
    parser.add_argument("--games", type=int, default=4, help="games against each opponent (default 4)")
    parser.add_argument("--json", action="store_true", help="one JSON line per spec")
    args = parser.parse_args()
    warm_up()
    for spec in args.specs:
        result = timed_games(spec, args.games)
        if args.json:
            print(json.dumps(result), flush=True)
        else:
            print(
                f"{spec:>16}: limit {result['limit_s']} s, {result['moves']} moves, mean {result['mean_s']:.3f} s, "
                f"p99 {result['p99_s']:.3f} s, max {result['max_s']:.3f} s, {result['over_margin']} past the margin, "
                f"{result['fresh_trees']} fresh trees; mean per stage {result['mean_stage_s']}",
                flush=True,
            )


if __name__ == "__main__":
    main()
