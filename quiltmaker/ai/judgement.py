"""Judging the moves of an analysed game: which ones cost their player the game.

Kept apart from :mod:`.analysis` (which runs the search) so that the web
server can judge a stored analysis without loading the compiled search.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.game import Game

# A move that costs its player this much of their chance to win, by the analysis, is marked
# (the thresholds of Lichess's mistakes and blunders). Between the start and one greedy move
# later, the replay's 20,000-playout analysis moved by 0.076 on average and 0.163 at most
# over 8 starts, calibrated (docs/web.md), noise and the move's own worth together: a mistake is more.
MISTAKE_DROP = 0.20
BLUNDER_DROP = 0.30


@dataclass(frozen=True)
class Judgement:
    """A move the analysis marks: it cost its player a large part of their chance to win.

    Attributes:
        ply: The move's number in the game (1 for the first move).
        player: Who made it.
        played: The move made (text).
        better: The analysis' best move at that point (text).
        drop: The mover's win probability before the move minus after it.
        label: ``"blunder"`` (a drop of at least :data:`BLUNDER_DROP`) or ``"mistake"``.
    """

    ply: int
    player: int
    played: str
    better: str
    drop: float
    label: str


def judge_moves(game: Game, win_probabilities_player0: list[float], best_moves: list[str | None]) -> list[Judgement]:
    """The moves of ``game`` that lost their player at least :data:`MISTAKE_DROP` of their chance to win.

    ``win_probabilities_player0[k]`` and ``best_moves[k]`` describe position ``k``
    (the start is 0), as :func:`.analysis.analyse_game` gives them. A move that was the
    best move found is never marked, whatever the figures say.
    """
    judged = []
    for ply, (mover, move) in enumerate(zip(game.movers, game.moves), start=1):
        before, after = win_probabilities_player0[ply - 1], win_probabilities_player0[ply]
        drop = before - after if mover == 0 else after - before
        better = best_moves[ply - 1]
        if drop >= MISTAKE_DROP and better is not None and better != move.text():
            label = "blunder" if drop >= BLUNDER_DROP else "mistake"
            judged.append(Judgement(ply, mover, move.text(), better, round(drop, 3), label))
    return judged
