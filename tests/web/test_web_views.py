"""The views' account of the last move, which the page animates: income by space, a special patch's source; the moves
a state offers."""

from __future__ import annotations

import random

from web_helpers import legal_moves

from quiltmaker.ai.players import GreedyPlayer
from quiltmaker.core.components import TIME_TRACKS
from quiltmaker.core.game import Game
from quiltmaker.core.moves import SPECIAL
from quiltmaker.core.position import Position
from quiltmaker.web.views import last_move_view, legal_view


def greedy_games(count: int = 6) -> list[Game]:
    games = []
    for seed in range(count):
        game = Game.new(seed)
        players = [GreedyPlayer(seed), GreedyPlayer(seed + 100)]
        while (mover := game.position.to_move) is not None:
            game.play(players[mover].choose_move(game.position))
        games.append(game)
    return games


def test_the_income_paid_adds_up_to_the_moves_income_one_entry_per_button_space_crossed() -> None:
    seen = 0
    for game in greedy_games():
        for ply in range(1, len(game.moves) + 1):
            before = game.positions[ply - 1]
            effect = before.effect(game.moves[ply - 1])
            view = last_move_view(game, ply)
            paid = view["income_paid"]
            assert sum(buttons for _, buttons in paid) == effect.income
            assert all(space in TIME_TRACKS[before.variant].income_spaces for space, _ in paid)
            assert all(before.times[effect.player] < space <= effect.after.times[effect.player] for space, _ in paid)
            seen += bool(paid)
    assert seen
    # Advancing far crosses several button spaces, each paying the quilt's income.
    start = Position.initial(3, first_player=0)._replace(times=(0, 20), income=(3, 0))
    game = Game(start)
    game.play("A")
    assert last_move_view(game, 1)["income_paid"] == [[5, 3], [11, 3], [17, 3]]


def test_a_special_patch_comes_from_the_space_the_move_before_took_it_from() -> None:
    placements = 0
    for game in greedy_games():
        for ply in range(1, len(game.moves) + 1):
            view = last_move_view(game, ply)
            if game.moves[ply - 1].kind != SPECIAL:
                assert view["from_space"] is None
                continue
            placements += 1
            space = view["from_space"]
            assert space in TIME_TRACKS[game.start.variant].special_spaces
            crossing = max(i for i in range(ply - 1) if game.moves[i].kind != SPECIAL)
            assert game.positions[crossing].specials >> space & 1 and not game.positions[crossing + 1].specials >> space & 1
    assert placements >= 5


def test_the_moves_a_state_offers_are_the_rules_legal_moves_in_random_games() -> None:
    rng = random.Random(11)
    positions = 0
    for seed in range(25):
        position = Position.initial(seed, first_player=0)
        while not position.is_over:
            offered = legal_moves({"legal": legal_view(position, ["A", "B"])})
            assert sorted(offered) == sorted(move.text() for move in position.legal_moves()), position.text()
            positions += 1
            position = position.play(rng.choice(position.legal_moves()))
    assert positions > 500
