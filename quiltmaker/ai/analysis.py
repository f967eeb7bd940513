"""Analysis of positions and games: best move, win probability, expected final margin.

The figures come from a Monte Carlo tree search with the strongest playouts,
calibrated on the outcomes of games between strong levels
(:mod:`.calibration`): a win probability of 70% is won about 70 times in
100 when both sides play on as well as the search. Positions the endgame
solver decided are exact.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..core.game import Game
from ..core.moves import Move
from .players import Limit
from ..core.position import Position
from .calibration import calibrated
from .mcts import MCTSPlayer, MoveStats, SearchConfig

DEFAULT_LIMIT = Limit(time=1.0)
"""A second of search a position."""


@dataclass(frozen=True)
class Analysis:
    """What the search makes of one position.

    Attributes:
        position: The position's one-line text.
        to_move: The player to move, or ``None`` when the game is over.
        best_move: The best move found (text), or ``None`` when the game is over.
        win_probability: Chance that the player to move wins (calibrated).
        expected_margin: Expected final score of the player to move minus the opponent's (calibrated).
        win_probability_player0: The same chance seen by player 0, for evaluation graphs.
        expected_margin_player0: Expected final margin of player 0.
        iterations: Playouts behind the figures (positions solved, where the endgame solver answered exactly).
        moves: The searched moves, most visited first, as ``(text, visits, win probability, margin)``,
            calibrated (each at the playouts behind it; the best move's at the whole search's).
        exact: The endgame solver decided the position: the figures are certain, under perfect play.
        search_win_rate: The search's own, uncalibrated win rate for the best move.
        search_margin: The search's own, uncalibrated margin for the best move.
    """

    position: str
    to_move: int | None
    best_move: str | None
    win_probability: float
    expected_margin: float
    win_probability_player0: float
    expected_margin_player0: float
    iterations: int
    moves: list[tuple[str, int, float, float]]
    exact: bool = False
    search_win_rate: float = 0.0
    search_margin: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The analysis as a JSON-ready dict."""
        return asdict(self)


def analyse_position(position: Position, limit: Limit = DEFAULT_LIMIT, seed: int = 0, player: MCTSPlayer | None = None) -> Analysis:
    """Analyse one position. Pass ``player`` to reuse its tree across consecutive positions."""
    if position.is_over:
        s0, s1 = position.scores
        won = 1.0 if position.winner == 0 else 0.0
        return Analysis(position.text(), None, None, won, float(s0 - s1), won, float(s0 - s1), 0, [], True, won, float(s0 - s1))
    searcher = player or MCTSPlayer(limit, SearchConfig(), seed=seed, name="analysis")
    stats: list[MoveStats] = searcher.analyse(position)
    exact = searcher.last_report is not None and searcher.last_report.solved
    iterations = sum(s.visits for s in stats)
    # The best move's figures are the search's answer, calibrated at the whole search's playouts (as
    # the model was fitted); another move's rest on its own playouts, which makes them less sharp.
    moves = [
        (Move.from_action(s.action).text(), s.visits, *calibrated(position, s.win_rate, s.margin, iterations if k == 0 else s.visits, exact))
        for k, s in enumerate(stats)
    ]
    best = stats[0]
    _, _, win, margin = moves[0]
    mover = position.to_move
    assert mover is not None
    sign = 1 if mover == 0 else -1
    return Analysis(
        position=position.text(),
        to_move=mover,
        best_move=moves[0][0],
        win_probability=win,
        expected_margin=margin,
        win_probability_player0=win if mover == 0 else 1.0 - win,
        expected_margin_player0=sign * margin,
        iterations=iterations,
        moves=moves,
        exact=exact,
        search_win_rate=best.win_rate,
        search_margin=best.margin,
    )


def analyse_game(game: Game, limit: Limit = DEFAULT_LIMIT, seed: int = 0) -> list[Analysis]:
    """Analyse every position of a game, from the start to the last one (one search reused throughout)."""
    searcher = MCTSPlayer(limit, SearchConfig(), seed=seed, name="analysis")
    return [analyse_position(position, limit, seed, searcher) for position in game.positions]
