"""A small match spread over a real local Ray instance."""

from __future__ import annotations

from pathlib import Path

import pytest

from quiltmaker.core import record
from quiltmaker.match import run_match

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow  # starts a Ray instance


def test_match_on_a_local_ray_instance(tmp_path: Path) -> None:
    result = run_match(("greedy", "random"), games=4, records=tmp_path, ray_address="local")
    assert result.games == 4 and result.games_by_seat == [2, 2]
    files = sorted(tmp_path.glob("game-*.json"))
    assert len(files) == 4
    wins = 0
    for path in files:
        game = record.load(path.read_text(encoding="utf-8"))  # every record replays
        a_seat = 0 if game.players[0] == "greedy" else 1
        wins += game.position.winner == a_seat
    assert wins == result.a_wins
    assert not ray.is_initialized()  # the instance it started is shut down again


def test_self_play_data_on_a_local_ray_instance() -> None:
    import numpy as np

    from quiltmaker.envs.selfplay import generate

    on_ray = generate("greedy", games=3, seed=2, ray_address="local")
    here = generate("greedy", games=3, seed=2, workers=1)
    assert all(np.array_equal(on_ray[key], here[key], equal_nan=True) for key in here)  # greedy has no search estimates: NaN
    assert not ray.is_initialized()
