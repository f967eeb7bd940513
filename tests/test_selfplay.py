"""Self-play data: every row replays from the game's seed and the moves, whatever the workers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from helpers import run_cli
from test_cli import assert_clean_failure

from quiltmaker import Position, QuiltmakerError
from quiltmaker.ai.calibration import calibrated
from quiltmaker.ai.mcts import SOLVER_FROM_SPACE
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
    for key in ("search_win_rate", "win_probability"):
        assert np.isfinite(arrays[key]).all() and ((0 <= arrays[key]) & (arrays[key] <= 1)).all()


def test_regression_the_figures_to_learn_are_calibrated_and_the_raw_ones_are_kept(arrays: dict[str, np.ndarray]) -> None:
    # Only the raw search figures were recorded, as `search_win_rate`, which the documentation
    # called the figure a value model would learn; the raw figure overstates the favourite.
    offsets, searched = arrays["policy_offsets"], 0
    for game, seed in enumerate(arrays["game_seeds"]):
        position = Position.initial(int(seed))
        for row in np.flatnonzero(arrays["game"] == game):
            if min(position.times) < SOLVER_FROM_SPACE:  # a search, not the endgame solver
                iterations = int(arrays["policy_visits"][offsets[row] : offsets[row + 1]].sum())
                expected = calibrated(position, float(arrays["search_win_rate"][row]), float(arrays["search_margin"][row]), iterations)
                assert arrays["win_probability"][row] == pytest.approx(expected[0], abs=1e-6)
                assert arrays["expected_margin"][row] == pytest.approx(expected[1], abs=1e-4)
                searched += 1
            position = position.play(Move.from_action(int(arrays["actions"][row])))
    assert searched > 50
    assert not np.allclose(arrays["win_probability"], arrays["search_win_rate"], atol=0.01)


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
    assert meta == {"format": 2, "player": PLAYER, "seed": 4, "variant": "revised", "games": 3}
    assert all(np.array_equal(loaded[key], arrays[key]) for key in arrays)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(QuiltmakerError, match="not quiltmaker self-play data"):
        load(path)


@pytest.mark.parametrize("content", [b'{"games": []}', np.lib.format.MAGIC_PREFIX + b"not an archive"], ids=["JSON", "a bare .npy"])
def test_a_file_that_is_no_archive_is_refused_as_such_not_as_a_pickle(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "data.json"
    path.write_bytes(content)
    with pytest.raises(QuiltmakerError, match="not an .npz archive") as refused:
        load(path)
    assert "pickle" not in str(refused.value)


def test_a_file_of_format_1_loads_with_the_calibrated_figures_it_lacked(tmp_path: Path, arrays: dict[str, np.ndarray]) -> None:
    # Format 1 (before the calibrated figures) kept the raw ones only: they are calibrated on loading.
    path = tmp_path / "old.npz"
    old = {key: value for key, value in arrays.items() if key not in ("win_probability", "expected_margin")}
    meta = {"format": 1, "player": PLAYER, "seed": 4, "variant": "revised", "games": 3}
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **old)
    loaded, loaded_meta = load(path)
    assert loaded_meta == meta and set(loaded) == set(arrays)
    assert all(np.array_equal(loaded[key], arrays[key]) for key in old)
    assert np.allclose(loaded["win_probability"], arrays["win_probability"], atol=1e-6)
    assert np.allclose(loaded["expected_margin"], arrays["expected_margin"], atol=1e-4)
    np.savez_compressed(path, meta=np.array(json.dumps({**meta, "format": 3})), **arrays)
    with pytest.raises(QuiltmakerError, match="format 3"):
        load(path)


def test_the_command_writes_the_file_and_refuses_bad_input(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "selfplay", "greedy", "--games", "2", "--workers", "1", "--out", "games.npz")
    assert result.returncode == 0, result.stderr
    assert "2 games" in result.stdout and load(tmp_path / "games.npz")[1]["games"] == 2
    assert_clean_failure(run_cli(tmp_path, "selfplay", "nobody", "--games", "1"), "quiltmaker selfplay: ", "nobody")
    assert_clean_failure(run_cli(tmp_path, "selfplay", "greedy", "--games", "0"), "at least 1")
    assert_clean_failure(run_cli(tmp_path, "selfplay", "greedy", "--out", "games.txt"), ".npz")
