"""The views' account of the last move, which the page animates: income by space, a special patch's source; the moves
a state offers."""

from __future__ import annotations

import random
from datetime import datetime, timezone

from web_helpers import legal_moves

from quiltmaker.ai.players import GreedyPlayer
from quiltmaker.core.components import TIME_TRACKS
from quiltmaker.core.game import Game
from quiltmaker.core.moves import SPECIAL
from quiltmaker.core.position import Position
from quiltmaker.web.round.game import StoredGame
from quiltmaker.web.round.kinds import Mode
from quiltmaker.web.round.views import last_move_view, legal_view, quilt_grids, state_view


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


def drawn_afresh(game: Game, ply: int) -> list[list[list[int | str | None]]]:
    """Both quilts after ``ply`` moves, drawn from the whole move list (what the kept squares must equal)."""
    squares: list[list[int | str | None]] = [[None] * 81, [None] * 81]
    for move, before in zip(game.moves[:ply], game.positions):
        for row, col in move.cells:
            squares[before.to_move][row * 9 + col] = "S" if move.kind == SPECIAL else move.patch  # type: ignore[index]
    return [[quilt[row : row + 9] for row in range(0, 81, 9)] for quilt in squares]


def test_the_kept_quilts_are_the_quilts_drawn_afresh_through_moves_undos_and_replays() -> None:
    rng = random.Random(7)
    for seed in range(4):
        game = Game.new(seed)
        while game.position.to_move is not None:
            if game.moves and rng.random() < 0.15:
                taken = rng.randint(1, min(3, len(game.moves)))
                for _ in range(taken):
                    game.undo()
                for _ in range(taken):  # other moves, as many: the same length, and the squares must be drawn again
                    if game.position.to_move is not None:
                        game.play(rng.choice(game.legal_moves()))
            else:
                game.play(rng.choice(game.legal_moves()))
            assert quilt_grids(game) == drawn_afresh(game, len(game.moves))
            ply = rng.randint(0, len(game.moves))  # a replay's step: back, then on again
            assert quilt_grids(game, ply) == drawn_afresh(game, ply)
        first = quilt_grids(game, 1)
        quilt_grids(game)
        assert first == drawn_afresh(game, 1), "a quilt sent before is not changed by later moves"


def test_the_kept_move_list_is_the_list_worded_afresh_through_undos_and_other_moves() -> None:
    def stored(game: Game) -> StoredGame:
        return StoredGame("g" * 12, datetime.now(timezone.utc), Mode.LOCAL, ["Ann", "Bob"], None, None, [None, None], False, game)

    rng = random.Random(3)
    live = stored(Game.new(5))
    game = live.game
    while game.position.to_move is not None:
        if len(game.moves) > 3 and rng.random() < 0.2:
            for _ in range(2):
                game.undo()
            for _ in range(2):  # other moves in their place: the list's length as before, its last entries not
                if game.position.to_move is not None:
                    game.play(rng.choice(game.legal_moves()))
        else:
            game.play(rng.choice(game.legal_moves()))
        afresh = Game(game.positions[0])
        for move in game.moves:
            afresh.play(move)
        assert state_view(live)["moves"] == state_view(stored(afresh))["moves"]
