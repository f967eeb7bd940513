"""The engine and a deliberately plain second implementation agree move by move.

tests/plain_rules.py was written from RULES.md alone, with lists of lists and
no bitboards; any disagreement in legal moves or state is a bug in one of them.
"""

from __future__ import annotations

import random

import pytest
from plain_adapter import plain_move, plain_snapshot
from plain_rules import PlainGame

from quiltmaker.core.components import DATA, TIME_TRACKS
from quiltmaker.core.moves import BUY
from quiltmaker.core.position import Position

GAMES = 1000


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["revised", "original"])
def test_engine_agrees_with_plain_rules(variant: str) -> None:
    """Legal moves, full state, scores and winner agree after every move of seeded random games."""
    rng = random.Random(variant)
    for game_index in range(GAMES // 2):
        position = Position.initial(rng.randrange(1 << 30), variant=variant)
        plain = PlainGame(list(position.circle), position.on_top, list(TIME_TRACKS[variant].special_spaces), DATA["patches"])
        while True:
            assert plain_snapshot(position) == plain.snapshot(), (game_index, position.text())
            moves = position.legal_moves()
            assert {plain_move(m) for m in moves} == plain.legal_moves(), (game_index, position.text())
            assert len(moves) == len(set(moves))
            if not moves:
                break
            # Mostly uniform moves, but favour purchases so quilts fill and the bonus and discards happen.
            buys = [m for m in moves if m.kind == BUY]
            move = rng.choice(buys) if buys and rng.random() < 0.7 else rng.choice(moves)
            position = position.play_unchecked(move)
            plain.play(plain_move(move))
        assert position.is_over and plain.is_over()
        assert list(position.scores) == plain.scores()
        assert position.winner == plain.winner()
