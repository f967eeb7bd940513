"""How far from the end the exact endgame solver reaches within about one second.

Run: ``python benchmarks/solver_reach.py [GAMES] [NODES]``. Positions come from
MCTS self-play games (``casual`` level); for each number of moves before the
end, prints the share of positions solved within the node budget and the
median time of those solved. The figures in docs/benchmarks.md come from it.
"""

from __future__ import annotations

import statistics
import sys

from quiltmaker.specs import player_from_spec
from quiltmaker.ai.solver import EndgameSolver
from quiltmaker.ai.players import play_game
from quiltmaker.core.position import Position

if __name__ == "__main__":
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    solver = EndgameSolver()
    solver.solve(Position.initial(0), max_nodes=10)  # compile outside the figures
    histories = [play_game([player_from_spec("casual", s), player_from_spec("casual", s + 1)], Position.initial(s)).positions for s in range(games)]
    print(f"moves before the end | solved within {nodes:,} nodes | median seconds | median nodes")
    for back in range(2, 41, 2):
        times, counts, solved = [], [], 0
        for positions in histories:
            if back >= len(positions):
                continue
            solution = solver.solve(positions[-1 - back], max_nodes=nodes)
            if solution is not None:
                solved += 1
                times.append(solution.seconds)
                counts.append(solution.nodes)
        share = solved / len(histories)
        median = f"{statistics.median(times):.3f}" if times else "-"
        median_nodes = f"{statistics.median(counts):,.0f}" if counts else "-"
        print(f"{back:>20} | {100 * share:>27.0f}% | {median:>14} | {median_nodes:>12}")
        if solved == 0:
            break
