"""Helpers shared by the tests: where the test data lives, running the command line, a purchase that earns a special patch."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from collections.abc import Iterator
from typing import Any


# What the tests read is in tests/data, so that a clone runs every test wherever it lies. Where the
# project's shared data folder sits beside the repository (../shared/data, the source of the
# reference games and the component data), a test holds the copies equal to it.
TEST_DATA = Path(__file__).resolve().parent / "data"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def load_test_data(name: str) -> Any:
    """Load a JSON file of tests/data."""
    return json.loads((TEST_DATA / name).read_text(encoding="utf-8"))


def run_cli(
    cwd: Path, *args: str, stdin: str | None = None, timeout: float = 120, environment: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m quiltmaker`` with ``args`` in ``cwd``.

    Args:
        cwd: The working folder (a tmp_path, so nothing leaks into the repository).
        *args: The command-line arguments.
        stdin: Text fed to standard input; empty input when None.
        timeout: Seconds before the run counts as hung.
        environment: Variables set for the run (the language ones, say); the machine's own language is not passed on.

    Returns:
        The finished process, with stdout and stderr as text.
    """
    dropped = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    # A wide, colourless, UTF-8 console in English: rich then prints the same plain text on any machine.
    env.update(COLUMNS="200", LINES="50", NO_COLOR="1", PYTHONIOENCODING="utf-8", **(environment or {}))
    return subprocess.run(
        [sys.executable, "-m", "quiltmaker", *args],
        cwd=cwd,
        input=stdin or "",
        capture_output=True,
        encoding="utf-8",
        env=env,
        timeout=timeout,
        check=False,
    )


# A position where player 1 is to move and buying patch 16 (16R0@a5) crosses a special space:
# the purchase and the placement of its special patch make one turn.
EARNS_A_SPECIAL = (
    "revised 16,17,9,2,14,29,32,25,0,8,30,20,6,27,18,28,24,23,26,19,10 "
    "24,7,4,6xx1/6x2/6x2/1xxx5/1xxx1x3/1xx1xxx2/xxxxxxx2/3xxxxx1/9 "
    "23,6,2,9/4x2x1/1xxxxxxx1/1x1xx4/3xxxxxx/5x1x1/4xxxxx/2xx5/3xx4 0 26,32,38,44,50 - 0"
)
EARNING_PURCHASE = "16R0@a5"


def moves_of_sample_games(games: int = 20) -> Iterator[tuple[Any, Any]]:
    """``(position, move)`` for every move of ``games`` seeded games: greedy ones (which fill quilts, so
    some earn the bonus) and uniform-random ones by turns."""
    from quiltmaker.ai.players import GreedyPlayer
    from quiltmaker.core.position import Position

    rng = random.Random(5)
    for seed in range(games):
        position = Position.initial(seed)
        greedy = GreedyPlayer(seed)
        while not position.is_over:
            move = greedy.choose_move(position) if seed % 2 else rng.choice(position.legal_moves())
            yield position, move
            position = position.play(move)
