"""Seeds: one rule (0..2**64 - 1) at every door, and a meaning that cannot drift.

The setups of a few seeds are pinned here as data: they are what those seeds
have always meant (CPython's Mersenne Twister and ``random.shuffle``, as
:mod:`quiltmaker.core.seeds` describes), so a change of the generator, of the
order the ids are shuffled in or of Python's ``random`` fails this test
instead of quietly giving old seeds new games. The compiled copy in the
batched environment is held to ``Position.initial`` in tests/test_batched.py.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

from helpers import run_cli

from quiltmaker import Game, InvalidSeedError, Position, QuiltmakerError
from quiltmaker.ai.players import GreedyPlayer, RandomPlayer
from quiltmaker.core.seeds import SEED_LIMIT, check_seed, derived_seed
from quiltmaker.engine.server import Engine, serve
from quiltmaker.match import run_match, schedule

PINNED = {
    0: ("4,8,30,21,20,6,1,11,15,27,18,22,28,24,3,23,5,26,7,19,12,31,10,13,16,17,9,2,14,29,32,25,0", 1),
    1: ("27,18,12,11,29,2,6,5,8,17,10,20,31,14,23,1,22,30,7,13,21,24,15,16,4,32,3,25,26,28,19,9,0", 0),
    42: ("27,6,11,16,26,12,23,7,20,13,17,10,29,15,25,21,31,2,14,19,3,18,22,4,30,5,28,32,9,24,1,8,0", 1),
    2**32: ("4,21,13,10,16,9,22,27,2,19,23,32,7,31,6,24,17,30,3,5,28,15,18,11,25,26,20,29,1,14,12,8,0", 0),
    2**64 - 1: ("21,24,17,22,26,25,31,9,13,14,6,1,10,27,5,19,30,3,16,18,28,32,23,12,4,29,15,7,20,11,8,2,0", 0),
}
BAD_SEEDS = [-1, -(2**64), 2**64, 2**70, True, 1.5, "7", b"7", [3]]


@pytest.mark.parametrize("seed", PINNED)
def test_a_seed_means_the_setup_it_always_has(seed: int) -> None:
    circle, first = PINNED[seed]
    start = Position.initial(seed)
    assert (",".join(map(str, start.circle)), start.to_move) == (circle, first)
    assert Position.initial(np.uint64(seed)) == start  # NumPy's integers are seeds too


def test_regression_a_negative_seed_is_refused_not_folded_onto_its_absolute_value() -> None:
    # random.Random(-1) is random.Random(1): Position.initial(-1) was the setup of seed 1.
    with pytest.raises(InvalidSeedError, match=r"from 0 to 2\*\*64 - 1, not -1"):
        Position.initial(-1)


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_every_door_refuses_a_bad_seed_with_the_one_message(seed: object) -> None:
    message = rf"is an integer from 0 to 2\*\*64 - 1, not {re.escape(repr(seed))}$"
    for door in (check_seed, Position.initial, Game.new, RandomPlayer, GreedyPlayer, lambda s: Engine(io.StringIO(), s)):
        with pytest.raises(InvalidSeedError, match=message):
            door(seed)
    assert issubclass(InvalidSeedError, QuiltmakerError) and issubclass(InvalidSeedError, ValueError)


def test_the_edges_of_the_range_are_seeds() -> None:
    assert check_seed(0) == 0 and check_seed(SEED_LIMIT - 1) == 2**64 - 1 and type(check_seed(np.int64(5))) is int


@pytest.mark.parametrize("seed", ["-1", "18446744073709551616"])
def test_regression_the_engine_refuses_a_seed_out_of_range_and_keeps_its_position(seed: str) -> None:
    # 'position start seed -1' was the setup of seed 1, and 2**64 a setup of its own.
    output = io.StringIO()
    serve(io.StringIO(f"position start seed 5\nposition start seed {seed}\nquery position\nquit\n"), output)
    lines = output.getvalue().splitlines()
    assert lines == [f"error a seed is an integer from 0 to 2**64 - 1, not {seed}", f"position {Position.initial(5).text()}"]


def test_derived_seeds_wrap_and_keep_the_meaning_of_every_seed_below_the_top() -> None:
    assert derived_seed(3 * 1_000_003 + 7) == 3 * 1_000_003 + 7
    assert derived_seed(SEED_LIMIT + 5) == 5
    top = list(schedule(("greedy", "random"), 4, seed=2**64 - 1))
    assert all(0 <= spec.setup_seed < SEED_LIMIT and all(0 <= s < SEED_LIMIT for s in spec.seeds) for spec in top)
    assert [spec.setup_seed for spec in schedule(("greedy", "random"), 4, seed=3)] == [3_000_009, 3_000_009, 3_000_010, 3_000_010]


def test_a_match_with_a_bad_seed_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(InvalidSeedError, match="the match's seed"):
        run_match(("greedy", "random"), games=2, seed=-3, workers=1, records=tmp_path / "records")
    assert not (tmp_path / "records").exists()


@pytest.mark.parametrize("command", [["match", "greedy", "random", "--games", "2"], ["simulate", "--games", "1"], ["perft", "1"],
                                     ["selfplay", "greedy", "--games", "1"], ["engine"], ["analyse", "A"]])  # fmt: skip
@pytest.mark.parametrize(("seed", "shown"), [("-1", "-1"), ("18446744073709551616", "18446744073709551616"), ("x", "'x'")])
def test_every_seed_option_of_the_command_line_refuses_the_same_seeds(
    tmp_path: Path, command: list[str], seed: str, shown: str
) -> None:
    result = run_cli(tmp_path, *command, f"--seed={seed}", timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"argument --seed: a seed is an integer from 0 to 2**64 - 1, not {shown}" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []  # refused before anything is written
