"""Judging the moves of an analysed game: what each move cost its player, in winning chance and in points.

Kept apart from :mod:`.analysis` (which runs the search) so that the web
server can judge a stored analysis without loading the compiled search.

Every move is measured twice, as the mover sees it: the drop in their chance
to win (the analysis' calibrated probability before the move, for its best
move, minus after it) and the drop in their expected final margin, in points.
A move is classed by the worse of the two (:func:`classify`), so that a game
already lost, where no move changes the chance much, still shows where the
points went. The thresholds and why they are what they are: docs/web.md,
"The replay teaches".

Examples:
    >>> classify(0.02, 7.5)
    ('mistake', 'points')
    >>> classify(0.31, 1.0)
    ('blunder', 'chance')
    >>> classify(0.05, 2.0)
    (None, None)
    >>> round(move_accuracy(0.0, 0.0), 1), round(move_accuracy(0.10, 0.0), 1), round(move_accuracy(0.0, 3.0), 1)
    (100.0, 63.6, 63.6)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

from ..core.game import Game

INACCURACY_DROP = 0.10
"""Winning chance: Lichess's three steps (0.1, 0.2 and 0.3), taken on the probability itself rather than on Lichess's chance scale (-1 to 1, twice as fine), since a Monte Carlo analysis is noisier than Stockfish's: where the best move was played, the replay's 20,000-playout figure moved by up to 0.09 by itself in 12 games between the levels (benchmarks/judgement_noise.py, docs/web.md), so a smaller drop is not yet a fault."""
MISTAKE_DROP = 0.20
"""A mistake loses at least this much chance to win."""
BLUNDER_DROP = 0.30
"""A blunder loses at least this much."""
INACCURACY_POINTS = 3.0
"""Points: an empty square costs 2 and the 7x7 bonus is worth 7. An inaccuracy loses more than an empty square and a button (3), a mistake three empty squares (6), a blunder more than the bonus (9). The analysis' own noise, where the best move was played, stays under 3 points in 19 moves of 20. (Where a game is open, a point of margin is worth about 0.045 of the chance to win: 3 points, 0.13.)"""
MISTAKE_POINTS = 6.0
"""A mistake loses at least this many points of expected margin."""
BLUNDER_POINTS = 9.0
"""A blunder loses at least this many."""

LABELS = ("inaccuracy", "mistake", "blunder")
"""The classes of a move that lost something, mildest first."""
CHANCE_STEPS = (INACCURACY_DROP, MISTAKE_DROP, BLUNDER_DROP)
"""The chance steps, mildest label first."""
POINTS_STEPS = (INACCURACY_POINTS, MISTAKE_POINTS, BLUNDER_POINTS)
"""The points steps, mildest label first."""
CHANCE_PER_POINT = INACCURACY_DROP / INACCURACY_POINTS
"""Each points step is worth its chance step: one point of margin counts as this much winning chance in a move's accuracy, which is thereby Lichess's formula applied to the worse of the two losses."""


def classify(chance: float, points: float) -> tuple[str | None, str | None]:
    """The class of a move that lost ``chance`` of its player's chance to win and ``points`` of their margin.

    Returns the label (``None``: below every threshold) and which loss gave
    it (``"chance"`` or ``"points"``; the chance where both reach the same class).
    """
    by_chance = sum(chance >= step for step in CHANCE_STEPS)
    by_points = sum(points >= step for step in POINTS_STEPS)
    worse = max(by_chance, by_points)
    if worse == 0:
        return None, None
    return LABELS[worse - 1], "chance" if by_chance >= by_points else "points"


def move_accuracy(chance: float, points: float) -> float:
    """A move's accuracy, 0 to 100: Lichess's formula on the worse of the two losses.

    Lichess maps a drop of ``d`` percentage points of winning chance to
    ``103.1668 * exp(-0.04354 * d) - 3.1669``; a points loss counts here as
    :data:`CHANCE_PER_POINT` of winning chance a point.
    """
    drop = 100 * max(chance, points * CHANCE_PER_POINT, 0.0)
    if drop == 0:
        return 100.0  # the formula's own answer is 99.9999
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))


@dataclass(frozen=True)
class MoveJudgement:
    """What one move of an analysed game cost its player.

    Attributes:
        ply: The move's number in the game (1 for the first move).
        player: Who made it.
        played: The move made (text).
        better: The analysis' best move at that point (text); the move made, when it was that.
        drop: The mover's win probability before the move (for the best move) minus after it, at least 0.
        points: The mover's expected final margin before the move minus after it, in points, at least 0.
        label: ``"inaccuracy"``, ``"mistake"``, ``"blunder"`` (:func:`classify`) or ``None``.
        by: Which loss gave the label, ``"chance"`` or ``"points"`` (``None`` with no label).
    """

    ply: int
    player: int
    played: str
    better: str
    drop: float
    points: float
    label: str | None
    by: str | None

    @property
    def accuracy(self) -> float:
        """The move's accuracy, 0 to 100 (move_accuracy of its two losses)."""
        return move_accuracy(self.drop, self.points)


@dataclass(frozen=True)
class PlayerReview:
    """One player's moves over a game, summed up.

    Attributes:
        player: The seat.
        moves: How many moves they made.
        accuracy: The mean of their moves' accuracies (:func:`move_accuracy`), 0 to 100.
        points_lost: The points of expected margin they lost, on average a move.
        inaccuracies: How many of their moves are labelled inaccuracies.
        mistakes: How many are mistakes.
        blunders: How many are blunders.
    """

    player: int
    moves: int
    accuracy: float
    points_lost: float
    inaccuracies: int
    mistakes: int
    blunders: int


def judge_every_move(
    game: Game,
    win_probabilities_player0: Sequence[float],
    expected_margins_player0: Sequence[float],
    best_moves: Sequence[str | None],
) -> list[MoveJudgement]:
    """What every move of ``game`` cost its player, by the analysis' figures.

    ``win_probabilities_player0[k]``, ``expected_margins_player0[k]`` and
    ``best_moves[k]`` describe position ``k`` (the start is 0), as
    :func:`.analysis.analyse_game` gives them. A move that was the best move
    found lost nothing, whatever the figures say (what they say then is the
    analysis' own noise); a move that did better than the figures expected
    lost nothing either.
    """
    judged = []
    for ply, (mover, move) in enumerate(zip(game.movers, game.moves), start=1):
        sign = 1 if mover == 0 else -1
        played, better = move.text(), best_moves[ply - 1] or move.text()
        chance = points = 0.0
        if better != played:
            chance = max(0.0, sign * (win_probabilities_player0[ply - 1] - win_probabilities_player0[ply]))
            points = max(0.0, sign * (expected_margins_player0[ply - 1] - expected_margins_player0[ply]))
        # Classed by the figures as shown (rounded), so that a label never disagrees with the numbers beside it.
        chance, points = round(chance, 3), round(points, 1)
        label, by = classify(chance, points)
        judged.append(MoveJudgement(ply, mover, played, better, chance, points, label, by))
    return judged


def judge_moves(
    game: Game,
    win_probabilities_player0: Sequence[float],
    expected_margins_player0: Sequence[float],
    best_moves: Sequence[str | None],
) -> list[MoveJudgement]:
    """The moves of ``game`` that lost their player at least an inaccuracy's worth, of chance or of points."""
    return [j for j in judge_every_move(game, win_probabilities_player0, expected_margins_player0, best_moves) if j.label]


def review(judged: Sequence[MoveJudgement]) -> list[PlayerReview]:
    """Each player's accuracy, average points lost and count of each label, from :func:`judge_every_move`."""
    reviews = []
    for player in (0, 1):
        mine = [j for j in judged if j.player == player]
        labels = [j.label for j in mine]
        reviews.append(
            PlayerReview(
                player=player,
                moves=len(mine),
                accuracy=round(fmean(j.accuracy for j in mine), 1) if mine else 100.0,
                points_lost=round(fmean(j.points for j in mine), 1) if mine else 0.0,
                inaccuracies=labels.count("inaccuracy"),
                mistakes=labels.count("mistake"),
                blunders=labels.count("blunder"),
            )
        )
    return reviews
