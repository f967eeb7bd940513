"""What each move of an analysed game cost its player, in winning chance and in points, from an analysis's figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quiltmaker.ai.judgement import (
    BLUNDER_DROP,
    BLUNDER_POINTS,
    CHANCE_STEPS,
    INACCURACY_DROP,
    INACCURACY_POINTS,
    MISTAKE_DROP,
    MISTAKE_POINTS,
    POINTS_STEPS,
    classify,
    judge_every_move,
    judge_moves,
    move_accuracy,
    review,
)
from quiltmaker.core.game import Game
from quiltmaker.core.position import Position

LOST_GAME = Path(__file__).parent / "data" / "lost_game.json"  # tests/data/make_lost_game.py


def four_moves() -> Game:
    game = Game.new(circle=[*range(1, 33), 0], first_player=0)
    for move in ("A", "A", "A", "A"):
        game.play(move)
    return game


FLAT = [0.0] * 5  # margins that never move: the chance alone decides


def test_a_drop_for_the_mover_is_marked_by_its_size_and_the_better_move_kept() -> None:
    game = four_moves()
    assert game.movers == [0, 1, 0, 1]
    # Player 0's chance: 0.5, then player 1's move 2 raises it by a blunder's worth, move 3 (player 0's) drops it by a mistake's.
    high = 0.5 + BLUNDER_DROP + 0.01
    p0 = [0.5, 0.5, high, high - (MISTAKE_DROP + 0.01), high - (MISTAKE_DROP + 0.01) - BLUNDER_DROP]
    best = ["A", "A", "1R0@a1", "2R0@a1", None]
    judged = judge_moves(game, p0, FLAT, best)
    # Move 2 lost player 1 a blunder's worth but was the best move found (A): never marked.
    # Move 4 (player 1's) lowered player 0's chance by a blunder's worth: a gain for its mover.
    assert [(j.ply, j.player, j.label, j.by, j.played, j.better) for j in judged] == [(3, 0, "mistake", "chance", "A", "1R0@a1")]
    assert abs(judged[0].drop - (MISTAKE_DROP + 0.01)) < 1e-3 and judged[0].points == 0


def test_a_blunder_by_the_second_player_is_a_rise_of_the_first_players_chance() -> None:
    game = four_moves()
    p0 = [0.5, 0.5, 0.5 + BLUNDER_DROP, 0.5 + BLUNDER_DROP, 0.5 + BLUNDER_DROP]
    judged = judge_moves(game, p0, FLAT, ["A", "3R0@a1", "A", "A", None])
    assert [(j.ply, j.player, j.label, j.better) for j in judged] == [(2, 1, "blunder", "3R0@a1")]


def test_noise_below_both_thresholds_marks_nothing() -> None:
    game = four_moves()
    p0 = [0.5, 0.5 - INACCURACY_DROP * 0.9, 0.5, 0.5 - INACCURACY_DROP * 0.9, 0.5]
    margins = [0.0, -INACCURACY_POINTS * 0.9, 0.0, -INACCURACY_POINTS * 0.9, 0.0]
    assert judge_moves(game, p0, margins, ["1R0@a1"] * 4 + [None]) == []


def test_a_lost_game_still_shows_where_the_points_went() -> None:
    """Regression (issue 22): with the chance to win near 0 all game, a move that loses points is marked all the same."""
    game = four_moves()
    p0 = [0.02, 0.02, 0.03, 0.01, 0.01]  # player 0 is lost throughout: no move moves the chance by much
    margins = [-20.0, -20.0, -21.0, -21.0 - (MISTAKE_POINTS + 0.5), -21.0 - (MISTAKE_POINTS + 0.5)]
    judged = judge_moves(game, p0, margins, ["1R0@a1"] * 4 + [None])
    assert [(j.ply, j.player, j.label, j.by) for j in judged] == [(3, 0, "mistake", "points")]
    assert judged[0].points == pytest.approx(MISTAKE_POINTS + 0.5) and judged[0].drop == pytest.approx(0.02)


def test_a_move_is_classed_by_the_worse_of_its_two_losses() -> None:
    for chance_class, chance in enumerate((0.0, *CHANCE_STEPS)):
        for points_class, points in enumerate((0.0, *POINTS_STEPS)):
            label, by = classify(chance, points)
            worse = max(chance_class, points_class)
            assert label == (None, "inaccuracy", "mistake", "blunder")[worse]
            assert by == (None if worse == 0 else "chance" if chance_class >= points_class else "points")
    assert classify(INACCURACY_DROP - 1e-9, INACCURACY_POINTS - 1e-9) == (None, None)
    assert classify(0.0, BLUNDER_POINTS) == ("blunder", "points")


def test_the_best_move_loses_nothing_whatever_the_figures_say() -> None:
    game = four_moves()
    p0 = [0.5, 0.1, 0.9, 0.1, 0.9]  # wild swings: the analysis' noise
    margins = [0.0, -30.0, 30.0, -30.0, 30.0]
    judged = judge_every_move(game, p0, margins, ["A"] * 4 + [None])
    assert [(j.drop, j.points, j.label, j.accuracy) for j in judged] == [(0.0, 0.0, None, 100.0)] * 4
    assert [(r.accuracy, r.points_lost, r.moves) for r in review(judged)] == [(100.0, 0.0, 2), (100.0, 0.0, 2)]


def test_accuracy_is_lichess_formula_on_the_worse_loss_and_points_lost_the_mean() -> None:
    # Lichess: 103.1668 * exp(-0.04354 * d) - 3.1669, for a drop of d percentage points of winning chance.
    assert move_accuracy(0.0, 0.0) == 100.0 and move_accuracy(1.0, 0.0) == 0.0
    assert move_accuracy(0.2, 0.0) == pytest.approx(103.1668 * 2.718281828 ** (-0.04354 * 20) - 3.1669)
    # Each points step counts as its chance step, so either loss at a threshold gives one accuracy.
    for chance, points in zip(CHANCE_STEPS, POINTS_STEPS):
        assert move_accuracy(chance, 0.0) == pytest.approx(move_accuracy(0.0, points))
    assert move_accuracy(0.3, 1.0) == move_accuracy(0.3, 0.0)  # the worse of the two
    game = four_moves()
    p0 = [0.5, 0.5, 0.5, 0.5 - MISTAKE_DROP, 0.5 - MISTAKE_DROP]
    margins = [0.0, 0.0, 0.0, 0.0, BLUNDER_POINTS]  # player 1's move 4 loses a blunder's worth of points
    judged = judge_every_move(game, p0, margins, ["1R0@a1"] * 4 + [None])
    zero, one = review(judged)
    assert (zero.mistakes, zero.blunders, one.blunders, one.mistakes) == (1, 0, 1, 0)
    assert zero.points_lost == 0.0 and one.points_lost == pytest.approx(BLUNDER_POINTS / 2)
    assert zero.accuracy == pytest.approx((100 + move_accuracy(MISTAKE_DROP, 0)) / 2, abs=0.05)
    assert one.accuracy == pytest.approx((100 + move_accuracy(0, BLUNDER_POINTS)) / 2, abs=0.05)


def lost_game() -> tuple[dict[str, object], Game, list[float], list[float], list[str | None]]:
    data = json.loads(LOST_GAME.read_text(encoding="utf-8"))
    game = Game(Position.from_text(data["start"]))
    for move in data["moves"]:
        game.play(move)
    positions = data["positions"]
    return (
        data,
        game,
        [p["win_probability_player0"] for p in positions],
        [p["expected_margin_player0"] for p in positions],
        [p["best_move"] for p in positions],
    )


def test_a_game_lost_to_max_marks_the_moves_that_lost_the_most_points() -> None:
    """Regression (issue 22): the replay of a game the beginner lost to `max` marked no move, by the chance to win alone."""
    data, game, p0, margins, best = lost_game()
    assert data["levels"] == ["beginner", "max"] and game.position.winner == 1
    judged = judge_every_move(game, p0, margins, best)
    loser = [j for j in judged if j.player == 0]
    # By the winning chance alone (the old judge, whose least mark was a mistake's 0.20) nothing is marked ...
    assert not [j for j in loser if j.drop >= MISTAKE_DROP]
    # ... yet the points went somewhere: every move of the loser's that lost an inaccuracy's worth is marked,
    # and the moves that lost the most points are among them.
    marked = [j for j in loser if j.label]
    assert len(marked) >= 2
    assert {j.ply for j in marked} == {j.ply for j in loser if j.points >= INACCURACY_POINTS or j.drop >= INACCURACY_DROP}
    worst = sorted(loser, key=lambda j: -j.points)[:2]
    assert all(j.label for j in worst) and {j.by for j in worst} == {"points"}
    zero, one = review(judged)
    assert zero.points_lost > one.points_lost and zero.accuracy < one.accuracy  # the loser lost more, and played worse
