"""Thousands of seeded random games, with the game's invariants checked after every move."""

from __future__ import annotations

import random

import pytest

from quiltmaker.core.components import BONUS_AREAS, LAST_SPACE, PATCH_COUNT, PATCHES, SQUARES
from quiltmaker.core.moves import ACTION_COUNT, BUY, SPECIAL, Move
from quiltmaker.core.position import NO_BONUS, Position

GAMES = 2000


def check_invariants(position: Position, bought: list[list[int]], specials_placed: list[int]) -> None:
    """Everything that must hold in any reachable position."""
    assert all(0 <= t <= LAST_SPACE for t in position.times)
    assert all(b >= 0 for b in position.buttons)
    assert sorted(position.circle + tuple(p for mine in bought for p in mine)) == list(range(PATCH_COUNT))
    for player in (0, 1):
        assert position.income[player] == sum(PATCHES[p].income for p in bought[player])
        covered = sum(PATCHES[p].size for p in bought[player]) + specials_placed[player]
        assert position.quilts[player].bit_count() == covered
        has_area = any(position.quilts[player] & a == a for a in BONUS_AREAS)
        if position.bonus == NO_BONUS:
            assert not has_area
    if position.bonus != NO_BONUS:
        assert any(position.quilts[position.bonus] & a == a for a in BONUS_AREAS)
    assert all(s > max(position.times) for s in range(LAST_SPACE + 1) if position.specials >> s & 1)
    mover = position.to_move
    if position.pending:
        assert mover == position.on_top
        assert position.pending <= SQUARES - position.quilts[mover].bit_count()
    elif mover is not None:
        assert position.times[mover] <= position.times[1 - mover]
        if position.times[0] == position.times[1]:
            assert mover == position.on_top
    else:
        assert position.is_over and position.times == (LAST_SPACE, LAST_SPACE)
    score = [position.buttons[p] + 7 * (position.bonus == p) - 2 * (SQUARES - position.quilts[p].bit_count()) for p in (0, 1)]
    assert list(position.scores) == score
    # Notation round trips.
    assert Position.from_text(position.text()) == position
    assert hash(Position.from_text(position.text())) == hash(position)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["revised", "original"])
def test_invariants_hold_in_random_games(variant: str) -> None:
    rng = random.Random(f"invariants-{variant}")
    lengths = []
    for _ in range(GAMES // 2):
        position = Position.initial(rng.randrange(1 << 30), variant=variant)
        bought: list[list[int]] = [[], []]
        specials_placed = [0, 0]
        moves_played = 0
        while not position.is_over:
            check_invariants(position, bought, specials_placed)
            moves = position.legal_moves()
            assert moves, "a position that is not over always has a move"
            legal_actions = {m.action for m in moves}
            mask = position.legal_action_mask()
            assert len(mask) == ACTION_COUNT and {i for i, ok in enumerate(mask) if ok} == legal_actions
            move = rng.choice(moves)
            assert Move.from_action(move.action) == move and Move.from_text(move.text()) == move
            assert position.why_illegal(move) is None
            mover = position.to_move
            assert mover is not None
            before = position
            position = position.play(move)
            assert position.times[mover] >= before.times[mover]
            if move.kind == BUY:
                assert move.patch is not None
                bought[mover].append(move.patch)
            elif move.kind == SPECIAL:
                specials_placed[mover] += 1
            moves_played += 1
            assert moves_played < 300
        check_invariants(position, bought, specials_placed)
        assert position.legal_moves() == [] and position.winner in (0, 1)
        lengths.append(moves_played)
    assert min(lengths) > 10
