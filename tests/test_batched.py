"""The batched environment against the single-game rules and encoding, game by game, move by move."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quiltmaker import IllegalMoveError, Position
from quiltmaker.ai.players import GreedyPlayer, contact
from quiltmaker.compiled import playouts as P
from quiltmaker.compiled import rules as K
from quiltmaker.core.moves import ACTION_COUNT, Move
from quiltmaker.envs import batch_kernel as B
from quiltmaker.envs.batched import PatchworkBatch
from quiltmaker.envs.observation import action_mask, encode

from quiltmaker.bench import sample_positions

SEED_EDGES = [0, 1, 2**31 - 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.sampled_from(SEED_EDGES), st.integers(0, 2**64 - 1)))
def test_a_games_setup_is_position_initial_of_its_seed(seed: int) -> None:
    circle = np.zeros(K.RING_SIZE, np.int64)
    first = B.initial_circle(np.uint64(seed), circle, np.zeros(624, np.uint64))
    start = Position.initial(seed)
    assert (tuple(int(p) for p in circle), int(first)) == (start.circle, start.to_move)


def test_the_compiled_contact_is_the_greedy_players() -> None:
    for position in sample_positions(300, seed=3)[::5]:
        if position.is_over:
            continue
        player = position.to_move
        quilt = position.quilts[player]
        low, high = np.uint64(quilt & (2**64 - 1)), np.uint64(quilt >> 64)
        for move in position.legal_moves()[:40]:
            if move.mask:
                mask_low, mask_high = K.ACTION_MASK[move.action]
                assert P.contact(low, high, mask_low, mask_high) == contact(position.quilts[player], move.mask)


def _check_row(batch: PatchworkBatch, row: int, position: Position, viewer: int) -> None:
    assert batch.position(row) == position
    assert np.array_equal(batch.observation[row], encode(position, viewer)), f"game {row}: observation differs"
    assert np.array_equal(batch.legal_action_mask[row], action_mask(position).astype(bool)), f"game {row}: mask differs"


def _check_end(batch: PatchworkBatch, row: int, position: Position, viewer: int) -> None:
    assert position.is_over
    winner = position.winner
    assert batch.terminated[row]
    assert list(batch.final_scores[row]) == [position.score(0), position.score(1)]
    assert batch.final_winner[row] == winner
    assert batch.rewards[row, winner] == 1.0 and batch.rewards[row, 1 - winner] == -1.0
    assert np.array_equal(batch.final_observation[row], encode(position, viewer))
    assert not batch.final_illegal[row]


def test_two_players_move_by_move_as_the_rules_and_the_encoding_say() -> None:
    games = 6
    batch = PatchworkBatch(games, seed=11)
    positions = [Position.initial(11 + i) for i in range(games)]
    lengths = [0] * games
    ended = 0
    for row, position in enumerate(positions):
        _check_row(batch, row, position, position.to_move)
    for _ in range(400):
        actions = batch.random_actions()
        movers = [p.to_move for p in positions]
        batch.step(actions)
        for row in range(games):
            position = positions[row].play(Move.from_action(int(actions[row])))
            lengths[row] += 1
            if position.is_over:
                _check_end(batch, row, position, movers[row])
                assert batch.final_moves[row] == lengths[row]
                ended += 1
                lengths[row] = 0
                position = Position.initial(int(batch.game_seed[row]))
            else:
                assert not batch.terminated[row] and not batch.rewards[row].any()
            assert batch.current_player[row] == position.to_move
            _check_row(batch, row, position, position.to_move)
            positions[row] = position
    assert ended >= games * 4


def _play_replies(position: Position, replies: list[int], seat: int, greedy: bool) -> Position:
    for action in replies:
        assert position.to_move == 1 - seat, "the opponent moved out of turn"
        move = Move.from_action(action)
        if greedy:
            player = GreedyPlayer()
            values = {m.action: player.move_value(position, m, 1 - seat) for m in position.legal_moves()}
            assert values[action] == max(values.values()), "not one of the greedy player's best moves"
        position = position.play(move)
    return position


@pytest.mark.parametrize("opponent", ["random", "greedy", "mcts:iterations=30"])
def test_one_agent_sees_its_own_side_and_the_opponent_plays_in_turn(opponent: str) -> None:
    games = 4
    batch = PatchworkBatch(games, opponent=opponent, seed=5, autoreset=False)
    greedy = opponent == "greedy"
    positions = []
    for row in range(games):
        seat = int(batch.seat[row])
        position = _play_replies(Position.initial(5 + row), batch.replies(row), seat, greedy)
        _check_row(batch, row, position, seat)
        positions.append(position)
    rng = random.Random(1)
    while not batch.terminated.all():
        actions = np.array([rng.choice(p.legal_moves()).action if not p.is_over else 0 for p in positions], np.int64)
        batch.step(actions)
        for row in range(games):
            seat = int(batch.seat[row])
            if positions[row].is_over:
                assert batch.terminated[row] and not batch.rewards[row].any()  # a finished game ignores its action
                continue
            position = _play_replies(positions[row].play(Move.from_action(int(actions[row]))), batch.replies(row), seat, greedy)
            if position.is_over:
                _check_end(batch, row, position, seat)
                assert batch.agent_rewards[row] == (1.0 if position.winner == seat else -1.0)
                assert not batch.legal_action_mask[row].any() and batch.current_player[row] == -1
            else:
                assert batch.current_player[row] == seat
                _check_row(batch, row, position, seat)
            positions[row] = position
    batch.reset(seed=40, rows=[2])
    assert batch.position(2) == _play_replies(Position.initial(40), batch.replies(2), int(batch.seat[2]), greedy)
    assert not batch.terminated[2] and batch.terminated[[0, 1, 3]].all()
    batch.close()


def test_seats_are_drawn_or_fixed() -> None:
    drawn = PatchworkBatch(64, opponent="random", seed=2)
    assert set(drawn.seat) == {0, 1}
    fixed = PatchworkBatch(8, opponent="greedy", seat=1, seed=2)
    assert set(fixed.seat) == {1} and (fixed.current_player == 1).all()


def test_autoreset_starts_the_next_game_in_the_same_step() -> None:
    batch = PatchworkBatch(16, opponent="greedy", seed=9)
    seeds = set(batch.game_seed.tolist())
    ends = 0
    for _ in range(200):
        batch.step(batch.random_actions())
        for row in np.flatnonzero(batch.terminated):
            ends += 1
            assert batch.agent_rewards[row] in (1.0, -1.0) and batch.final_moves[row] > 20
            assert batch.legal_action_mask[row].any() and batch.current_player[row] == batch.seat[row]
            start = Position.initial(int(batch.game_seed[row]))
            assert batch.position(row) == _play_replies(start, batch.replies(row), int(batch.seat[row]), True)
        seeds.update(batch.game_seed.tolist())
    assert ends >= 16 and len(seeds) >= 16 + ends


def test_the_same_seed_gives_the_same_games_and_another_does_not() -> None:
    def run(seed: int) -> list[np.ndarray]:
        batch = PatchworkBatch(8, opponent="random", seed=seed)
        seen = []
        for _ in range(120):
            batch.step(batch.random_actions())
            seen.append(batch.observation.copy())
        return seen

    first, again, other = run(3), run(3), run(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_an_illegal_action_loses_that_game_only() -> None:
    batch = PatchworkBatch(3, seed=1)
    actions = batch.random_actions()
    mover = int(batch.current_player[1])
    illegal = int(np.flatnonzero(~batch.legal_action_mask[1])[0])
    actions[1] = illegal
    batch.step(actions)
    assert batch.terminated.tolist() == [False, True, False]
    assert batch.illegal[1] == illegal and batch.rewards[1, mover] == -1.0 and batch.rewards[1, 1 - mover] == 1.0
    assert batch.position(1) == Position.initial(int(batch.game_seed[1]))  # and the next game began


@pytest.mark.parametrize("autoreset", [True, False])
def test_regression_an_illegal_action_of_minus_one_is_told_from_a_normal_end(autoreset: bool) -> None:
    # -1 was also `illegal`'s "no illegal action" value: game 0, lost on action -1, looked like a
    # game that had ended by the rules after no move at all.
    batch = PatchworkBatch(4, seed=2, autoreset=autoreset)
    movers = batch.current_player.copy()
    actions = batch.random_actions()
    actions[:3] = [-1, -7, ACTION_COUNT]
    batch.step(actions)
    assert batch.terminated.tolist() == [True, True, True, False]
    assert batch.final_illegal[:3].all() and batch.illegal[:3].tolist() == [-1, -7, ACTION_COUNT]
    for row in range(3):
        mover = int(movers[row])
        assert batch.rewards[row, mover] == -1.0 and batch.rewards[row, 1 - mover] == 1.0
        assert batch.final_winner[row] == 1 - mover and batch.final_moves[row] == 0


def test_raise_refuses_an_illegal_action_and_changes_nothing() -> None:
    batch = PatchworkBatch(3, seed=1, illegal_action="raise")
    before = [batch.position(row) for row in range(3)], batch.observation.copy(), batch.legal_action_mask.copy()
    actions = batch.random_actions()
    actions[2] = ACTION_COUNT + 5
    with pytest.raises(IllegalMoveError, match="game 2: action 7436"):
        batch.step(actions)
    assert [batch.position(row) for row in range(3)] == before[0]
    assert np.array_equal(batch.observation, before[1]) and np.array_equal(batch.legal_action_mask, before[2])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"num_games": 0}, "num_games"),
        ({"num_games": 2, "seat": 2}, "seat"),
        ({"num_games": 2, "illegal_action": "ignore"}, "illegal_action"),
        ({"num_games": 2, "variant": "third"}, "variant"),
        ({"num_games": 2, "opponent": "nobody"}, "nobody"),
        ({"num_games": 2, "seed": -1}, r"a seed is an integer from 0 to 2\*\*64 - 1, not -1"),
        ({"num_games": 2, "seed": -5}, r"not -5"),  # the one rule for seeds, as Position.initial's
        ({"num_games": 2, "seed": 2**64 - 1}, r"game 1's seed \(seed \+ 1\) is an integer from 0 to 2\*\*64 - 1"),
        ({"num_games": 2, "seed": [1]}, "one for each"),
        ({"num_games": 2, "seed": [1, 2.5]}, r"game 1's seed is an integer from 0 to 2\*\*64 - 1, not 2.5"),
        ({"num_games": 2, "seed": "x"}, "seed"),
    ],
)
def test_bad_settings_are_refused_clearly(arguments: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PatchworkBatch(**arguments)


def test_malformed_actions_are_refused_before_anything_changes() -> None:
    batch = PatchworkBatch(2, seed=1)
    before = batch.observation.copy()
    for actions in ([0], [[0, 0]], [0.0, 1.0], [True, False], "ab"):
        with pytest.raises(ValueError, match="actions must be 2 integer"):
            batch.step(actions)
    assert np.array_equal(batch.observation, before)

