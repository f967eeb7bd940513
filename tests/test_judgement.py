"""Marking the moves that cost their player the game, from an analysis's figures."""

from __future__ import annotations

from quiltmaker.ai.judgement import BLUNDER_DROP, MISTAKE_DROP, judge_moves
from quiltmaker.core.game import Game


def four_moves() -> Game:
    game = Game.new(circle=[*range(1, 33), 0], first_player=0)
    for move in ("A", "A", "A", "A"):
        game.play(move)
    return game


def test_a_drop_for_the_mover_is_marked_by_its_size_and_the_better_move_kept() -> None:
    game = four_moves()
    assert game.movers == [0, 1, 0, 1]
    # Player 0's chance: 0.5, then player 1's move 2 raises it by a blunder's worth, move 3 (player 0's) drops it by a mistake's.
    high = 0.5 + BLUNDER_DROP + 0.01
    p0 = [0.5, 0.5, high, high - (MISTAKE_DROP + 0.01), high - (MISTAKE_DROP + 0.01) - BLUNDER_DROP]
    best = ["A", "A", "1R0@a1", "2R0@a1", None]
    judged = judge_moves(game, p0, best)
    # Move 2 lost player 1 a blunder's worth but was the best move found (A): never marked.
    # Move 4 (player 1's) lowered player 0's chance by a blunder's worth: a gain for its mover.
    assert [(j.ply, j.player, j.label, j.played, j.better) for j in judged] == [(3, 0, "mistake", "A", "1R0@a1")]
    assert abs(judged[0].drop - (MISTAKE_DROP + 0.01)) < 1e-3


def test_a_blunder_by_the_second_player_is_a_rise_of_the_first_players_chance() -> None:
    game = four_moves()
    p0 = [0.5, 0.5, 0.5 + BLUNDER_DROP, 0.5 + BLUNDER_DROP, 0.5 + BLUNDER_DROP]
    judged = judge_moves(game, p0, ["A", "3R0@a1", "A", "A", None])
    assert [(j.ply, j.player, j.label, j.better) for j in judged] == [(2, 1, "blunder", "3R0@a1")]


def test_noise_below_the_threshold_marks_nothing() -> None:
    game = four_moves()
    p0 = [0.5, 0.5 - MISTAKE_DROP * 0.9, 0.5, 0.5 - MISTAKE_DROP * 0.9, 0.5]
    assert judge_moves(game, p0, ["1R0@a1"] * 4 + [None]) == []
