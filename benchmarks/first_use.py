"""What a first use costs with nothing compiled yet, and what the compiled code then runs at, per source tree.

Run: ``python benchmarks/first_use.py cold`` (about three minutes on one core;
``PYTHONPATH=TREE`` measures another source tree):
each first use in a fresh process whose numba cache is an empty folder, so
nothing is loaded: the batched environment's construction and first step, a
search player's first move, the endgame solver's first solve, and
``quiltmaker compile``. Prints seconds as JSON.

``python benchmarks/first_use.py speed TREE [TREE ...] [--rounds 3]``: the
batched environment's steps a second (256 games; two-player, against random
and against greedy) and the search's iterations a second, for each source
tree in turn (a checkout or a ``git worktree`` of another commit, on
``PYTHONPATH``, each with its own warm cache), alternating the trees for
several rounds, since these machines are noisy: compare trees within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

COLD = {
    "batched_construct_and_first_step_s": """
from quiltmaker.envs.batched import PatchworkBatch
games = PatchworkBatch(4, seed=0)
games.step(games.legal_action_mask.argmax(axis=1))
""",
    "search_first_move_s": """
from quiltmaker import Position
from quiltmaker.ai.mcts import MCTSPlayer
from quiltmaker.ai.players import Limit
MCTSPlayer(Limit(iterations=200), seed=1).choose_move(Position.initial(0))
""",
    "solver_first_solve_s": """
from quiltmaker import Position
from quiltmaker.ai.solver import EndgameSolver
position = Position.initial(0)
while min(position.times) < 46:
    position = position.play_unchecked(position.legal_moves()[0])
EndgameSolver().solve(position, 1000)
""",
}

SPEED = """
import json
from quiltmaker import Position
from quiltmaker.ai.mcts import MCTSPlayer
from quiltmaker.ai.players import Limit
from quiltmaker.bench import _rate
from quiltmaker.envs.batched import PatchworkBatch

def batched(opponent):
    games = PatchworkBatch(256, opponent=opponent, seed=1)
    def run():
        for _ in range(10):
            games.step(games.random_actions())
        return 10 * 256
    return run

def search():
    MCTSPlayer(Limit(iterations=20000), seed=1).choose_move(Position.initial(3))
    return 20000

print(json.dumps({"batched_steps_per_s": _rate(batched(None), 2), "batched_vs_random_steps_per_s": _rate(batched("random"), 2),
                  "batched_vs_greedy_steps_per_s": _rate(batched("greedy"), 2), "search_iterations_per_s": _rate(search, 2)}))
"""


def timed(code: str, environment: dict[str, str]) -> float | None:
    """Seconds ``code`` takes in a fresh process (None if it fails: a tree without ``quiltmaker compile``, say)."""
    wrapped = f"import time\nstarted = time.perf_counter()\n{code}\nprint(time.perf_counter() - started)"
    done = subprocess.run([sys.executable, "-c", wrapped], capture_output=True, text=True, env=environment, check=False, cwd=tempfile.gettempdir())
    return round(float(done.stdout.split()[-1]), 1) if done.returncode == 0 else None


def cold() -> dict[str, float | None]:
    figures = {}
    for name, code in COLD.items():
        with tempfile.TemporaryDirectory() as cache:
            figures[name] = timed(code, {**os.environ, "NUMBA_CACHE_DIR": cache})
    with tempfile.TemporaryDirectory() as cache:
        figures["quiltmaker_compile_s"] = timed(
            "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'quiltmaker', 'compile'], check=True, capture_output=True)",
            {**os.environ, "NUMBA_CACHE_DIR": cache},
        )
    return figures


def speed(trees: list[Path], rounds: int) -> dict[str, list[dict[str, float]]]:
    caches = {tree: tempfile.mkdtemp(prefix="numba-cache-") for tree in trees}
    results: dict[str, list[dict[str, float]]] = {str(tree): [] for tree in trees}
    for _round in range(rounds + 1):  # the first round compiles into each tree's cache and is not counted
        for tree in trees:
            environment = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_CACHE_DIR": caches[tree]}
            done = subprocess.run([sys.executable, "-c", SPEED], capture_output=True, text=True, env=environment, check=True, cwd=tempfile.gettempdir())
            if _round:
                results[str(tree)].append({k: round(v) for k, v in json.loads(done.stdout).items()})
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("cold")
    compare = commands.add_parser("speed")
    compare.add_argument("trees", nargs="+", type=Path)
    compare.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(cold() if args.command == "cold" else speed(args.trees, args.rounds), indent=1))


if __name__ == "__main__":
    main()
