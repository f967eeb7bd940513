"""Self-play data: every row replays from the game's seed and the moves, whatever the workers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import run_cli
from test_cli import assert_clean_failure

from quiltmaker import Position, QuiltmakerError
from quiltmaker.envs.selfplay import generate, load, save
from quiltmaker.core.moves import ACTION_COUNT, Move
from quiltmaker.envs.observation import action_mask, encode

PLAYER = "mcts:iterations=40"


@pytest.fixture(scope="module")
def arrays() -> dict[str, np.ndarray]:
    return generate(PLAYER, games=3, seed=4, workers=1)


def test_every_row_is_its_position_before_the_move_played(arrays: dict[str, np.ndarray]) -> None:
    masks = np.unpackbits(arrays["masks"], axis=1, count=ACTION_COUNT, bitorder="little").astype(bool)
    offsets = arrays["policy_offsets"]
    assert offsets[0] == 0 and offsets[-1] == len(arrays["policy_actions"]) and len(offsets) == len(arrays["actions"]) + 1
    for game, seed in enumerate(arrays["game_seeds"]):
        rows = np.flatnonzero(arrays["game"] == game)
        position = Position.initial(int(seed))
        for ply, row in enumerate(rows):
            mover = position.to_move
            assert arrays["ply"][row] == ply and arrays["to_move"][row] == mover
            assert np.array_equal(arrays["observations"][row], encode(position, mover))
            assert np.array_equal(masks[row], action_mask(position).astype(bool))
            moves = arrays["policy_actions"][offsets[row] : offsets[row + 1]]
            probs = arrays["policy_probs"][offsets[row] : offsets[row + 1]]
            assert masks[row][moves].all() and abs(probs.sum() - 1) < 1e-5
            assert arrays["actions"][row] == moves[0]  # the most visited move is the one played
            position = position.play(Move.from_action(int(arrays["actions"][row])))
        assert position.is_over
        for row in rows:
            mover = arrays["to_move"][row]
            assert arrays["margin"][row] == position.score(mover) - position.score(1 - mover)
            assert arrays["outcome"][row] == (1 if position.winner == mover else -1)
    assert np.isfinite(arrays["search_win_rate"]).all() and ((0 <= arrays["search_win_rate"]) & (arrays["search_win_rate"] <= 1)).all()


def test_the_arrays_do_not_depend_on_the_workers(arrays: dict[str, np.ndarray]) -> None:
    parallel = generate(PLAYER, games=3, seed=4, workers=2)
    assert set(parallel) == set(arrays)
    for key in arrays:
        assert np.array_equal(parallel[key], arrays[key]), key


def test_a_player_without_a_search_plays_with_certainty() -> None:
    data = generate("greedy", games=1, seed=1, workers=1)
    assert np.array_equal(data["policy_offsets"], np.arange(len(data["actions"]) + 1))
    assert np.array_equal(data["policy_actions"], data["actions"]) and (data["policy_probs"] == 1).all()


def test_saved_data_loads_and_a_damaged_file_is_refused(tmp_path: Path, arrays: dict[str, np.ndarray]) -> None:
    path = tmp_path / "data.npz"
    save(path, arrays, PLAYER, 4, "revised")
    loaded, meta = load(path)
    assert meta == {"format": 1, "player": PLAYER, "seed": 4, "variant": "revised", "games": 3}
    assert all(np.array_equal(loaded[key], arrays[key]) for key in arrays)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(QuiltmakerError, match="not quiltmaker self-play data"):
        load(path)


def test_the_command_writes_the_file_and_refuses_bad_input(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "selfplay", "greedy", "--games", "2", "--workers", "1", "--out", "games.npz")
    assert result.returncode == 0, result.stderr
    assert "2 games" in result.stdout and load(tmp_path / "games.npz")[1]["games"] == 2
    assert_clean_failure(run_cli(tmp_path, "selfplay", "nobody", "--games", "1"), "quiltmaker selfplay: ", "nobody")
    assert_clean_failure(run_cli(tmp_path, "selfplay", "greedy", "--games", "0"), "at least 1")
    assert_clean_failure(run_cli(tmp_path, "selfplay", "greedy", "--out", "games.txt"), ".npz")
