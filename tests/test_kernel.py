"""The compiled kernel is a second copy of the rules: it must agree with the engine move by move."""

from __future__ import annotations

import collections
import random

import numpy as np
import pytest

from quiltmaker import bench_kernels
from quiltmaker.compiled import playouts as P
from quiltmaker.compiled import rules as K
from quiltmaker.core.components import LAST_SPACE, PATCHES, TIME_TRACKS
from quiltmaker.core.moves import ACTIONS
from quiltmaker.ai.players import contact, patch_value
from quiltmaker.core.position import Position

GAMES = 10_000


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions from all stages of seeded random games."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        position = Position.initial(rng.randrange(1 << 30))
        for _ in range(rng.randrange(70)):
            if position.is_over:
                break
            position = position.play_unchecked(rng.choice(position.legal_moves()))
        positions.append(position)
    return positions


@pytest.mark.slow
def test_kernel_agrees_with_engine_on_10000_random_games() -> None:
    """Same legal actions, same state, same player to move, same result, after every move."""
    rng = random.Random(2024)
    out = np.empty(K.MAX_MOVES, dtype=np.int64)
    for game in range(GAMES):
        variant = "original" if game % 4 == 3 else "revised"
        position = Position.initial(rng.randrange(1 << 30), variant=variant)
        state, ring = K.from_position(position)
        while True:
            assert K.to_position(state, ring, variant) == position, (game, position.text())
            legal = sorted(m.action for m in position.legal_moves())
            count = K.legal_actions(state, ring, out)
            assert sorted(out[:count].tolist()) == legal, (game, position.text())
            mover = K.player_to_move(state)
            assert (None if mover < 0 else mover) == position.to_move
            if not legal:
                break
            # Favour purchases so that quilts fill and bonus and discards happen.
            buys = [a for a in legal if a >= K.FIRST_BUY_ACTION]
            action = rng.choice(buys) if buys and rng.random() < 0.6 else rng.choice(legal)
            state = K.apply_action(state, ring, action)
            position = position.play_unchecked(ACTIONS[action])
        assert K.final_result(state) == (*position.scores, position.winner)


def test_state_round_trips_through_the_kernel() -> None:
    for position in random_positions(300, seed=5):
        state, ring = K.from_position(position)
        assert K.to_position(state, ring, position.variant) == position


@pytest.mark.parametrize("seed", range(12))
def test_random_action_is_uniform_over_legal_moves(seed: int) -> None:
    """Every legal action is drawn, each about equally often (rejection sampling keeps it exact)."""
    position = next(p for p in random_positions(20, seed=100 + seed) if not p.is_over)
    state, ring = K.from_position(position)
    legal = {m.action for m in position.legal_moves()}
    draws = 300 * len(legal)
    counts: collections.Counter[int] = collections.Counter()
    generator = np.uint64(seed + 1)
    for _ in range(draws):
        action, generator = P.sample_random_action(state, ring, np.uint64(generator))
        counts[action] += 1
    assert set(counts) == legal
    # 300 expected per action: a binomial spread of about 17, so 200..400 is over five deviations.
    assert 200 < min(counts.values()) and max(counts.values()) < 400


def _isolated(quilt: int) -> int:
    count = 0
    for r in range(9):
        for c in range(9):
            if quilt >> (9 * r + c) & 1:
                continue
            neighbours = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
            if all(not (0 <= a < 9 and 0 <= b < 9) or quilt >> (9 * a + b) & 1 for a, b in neighbours):
                count += 1
    return count


def test_placement_score_matches_a_plain_count() -> None:
    for position in random_positions(80, seed=9):
        if position.is_over:
            continue
        state, _ = K.from_position(position)
        player = position.to_move
        assert player is not None
        quilt = position.quilts[player]
        for move in position.legal_moves()[1:40]:
            expected = contact(quilt, move.mask) - 3 * _isolated(quilt | move.mask)
            assert P.score_placement(state, player, move.action) == expected


def test_random_games_from_compiled_setups_end() -> None:
    special_mask = sum(1 << s for s in TIME_TRACKS["revised"].special_spaces)
    moves = bench_kernels.play_random_games(200, 7, special_mask)
    assert 200 * 20 < moves < 200 * 150


@pytest.mark.parametrize("variant", ["revised", "original"])
def test_the_compiled_start_is_position_initial(variant: str) -> None:
    """initial_state, where every compiled game starts (benchmarks, batched environment), is from_position of Position.initial."""
    for seed in range(20):
        start = Position.initial(seed, variant=variant)
        state, ring = K.initial_state(np.array(start.circle, np.int64), start.to_move, TIME_TRACKS[variant].special_mask)
        assert (tuple(int(v) for v in state), tuple(int(w) for w in ring)) == K.from_position(start)


def test_a_ring_packs_and_unpacks() -> None:
    """pack_ring fills the slots a circle leaves empty; unpack_ring reads back every slot."""
    for circle in [(), (5,), tuple(range(1, 20)), tuple(range(K.RING_SIZE))]:
        ring = K.pack_ring(np.array(circle, np.int64))
        assert K.unpack_ring(ring) == [*circle, *[K.EMPTY_SLOT] * (K.RING_SIZE - len(circle))]


def test_the_benchmarks_compiled_setups_are_starting_positions() -> None:
    """The setups the speed benchmark plays from are the rules' own starting positions."""
    special_mask = TIME_TRACKS["revised"].special_mask
    rng = np.uint64(3)
    firsts = set()
    for _ in range(20):
        state, ring, rng = bench_kernels.new_game(rng, special_mask)
        position = K.to_position(tuple(int(v) for v in state), tuple(int(w) for w in ring), "revised")
        assert position == Position.initial(circle=position.circle, first_player=position.to_move, variant="revised")
        firsts.add(position.to_move)
    assert firsts == {0, 1}


def test_the_compiled_patch_value_is_the_greedy_players() -> None:
    """playouts.patch_value (playouts, solver ordering) and players.patch_value (the greedy player) are twins."""
    for patch in PATCHES:
        for space in range(LAST_SPACE + 1):
            assert P.patch_value(patch.id, space) == patch_value(patch.id, space), (patch.id, space)
