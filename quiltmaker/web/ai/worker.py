"""Work that runs in the AI worker processes, away from the server's event loop.

Each function takes and returns plain data (position text, a level name),
so it pickles across the process boundary and never touches the database.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from typing import Any

from ...ai import mcts
from ...ai.analysis import analyse_position
from ...ai.levels import LEVELS, ai_player_from_spec
from ...ai.mcts import MCTSPlayer, SearchConfig
from ...ai.players import Limit
from ...core.position import Position


def warm_up(server: int | None = None) -> None:
    """Watch the server (process id ``server``), then load the compiled search once, so the first real move is not slowed by it."""
    _exit_with_parent(server if server is not None else os.getppid())
    mcts.warm_up()


def ready() -> bool:
    """A job that does nothing: submitting it starts a worker (and its warm-up) ahead of need."""
    return True


def _exit_with_parent(parent: int) -> None:
    """End this worker when the server process ``parent`` dies, even by SIGKILL (which skips the pool's own shutdown).

    The server's id is passed in, not read here: a server killed while this
    worker was still starting would otherwise leave it watching its new parent.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-server", daemon=True).start()


def choose_move(position_text: str, level: str, seed: int, time_cap: float | None = None) -> tuple[str, float]:
    """The AI's move, as text, for a position at a named level (thinking at most ``time_cap`` seconds, on a clock),
    and the seconds it thought: what its clock is charged, however long the move waited for this worker."""
    started = time.monotonic()
    player = ai_player_from_spec(LEVELS[level].spec, seed=seed)
    limit = getattr(player, "limit", None)
    if time_cap is not None and isinstance(limit, Limit) and (limit.time is None or limit.time > time_cap):
        # Iteration-limited levels too: the cap only binds when the clock is short.
        player.limit = replace(limit, time=time_cap)  # type: ignore[attr-defined]
    try:
        move = player.choose_move(Position.from_text(position_text)).text()
        return move, time.monotonic() - started
    finally:
        player.close()


def hint(position_text: str, seconds: float, seed: int) -> dict[str, Any]:
    """The best move, win probability and expected margin for the player to move."""
    analysis = analyse_position(Position.from_text(position_text), Limit(time=seconds), seed=seed)
    return {
        "best_move": analysis.best_move,
        "win_probability": analysis.win_probability,
        "expected_margin": analysis.expected_margin,
        "to_move": analysis.to_move,
    }


def analyse_positions(position_texts: list[str], iterations: int, seed: int) -> list[dict[str, Any]]:
    """An evaluation of each of a game's consecutive positions, player 0's view, for the replay graph
    (one search, its tree carried from each position to the next)."""
    searcher = MCTSPlayer(Limit(iterations=iterations), SearchConfig(), seed=seed, name="analysis")
    evaluations = []
    for text in position_texts:
        a = analyse_position(Position.from_text(text), Limit(iterations=iterations), seed, searcher)
        evaluations.append(
            {"best_move": a.best_move, "win_probability_player0": a.win_probability_player0, "expected_margin_player0": a.expected_margin_player0}
        )
    return evaluations
