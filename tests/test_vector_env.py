"""The Gymnasium VectorEnv over the batched environment: Gymnasium's conventions, PatchworkEnv's copies."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from quiltmaker import Position
from quiltmaker.core.moves import Move
from quiltmaker.envs.gymnasium_env import ENV_ID, PatchworkEnv
from quiltmaker.envs.observation import encode
from quiltmaker.envs.vector_env import PatchworkVectorEnv


def _masked_random(envs: PatchworkVectorEnv, observations: dict, rng: np.random.Generator) -> np.ndarray:
    masks = observations["action_mask"].astype(bool)
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)


def test_make_vec_builds_the_batched_environment_with_the_single_spaces() -> None:
    envs = gym.make_vec(ENV_ID, num_envs=6, opponent="greedy")
    assert isinstance(envs, PatchworkVectorEnv) and envs.num_envs == 6
    single = PatchworkEnv(opponent="greedy")
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    observations, infos = envs.reset(seed=3)
    assert observations in envs.observation_space
    assert set(infos["seat"]) <= {0, 1}
    envs.close()


def test_a_copy_starts_as_patchwork_env_does_from_the_same_seed() -> None:
    envs = PatchworkVectorEnv(8, opponent="random", seat=0)
    observations, _ = envs.reset(seed=20)
    for i in range(8):
        start = Position.initial(20 + i)
        if start.to_move == 0:  # the opponent has not moved yet: nothing random happened
            single = PatchworkEnv(opponent="random", seat=0)
            expected, _ = single.reset(seed=20 + i)
            assert np.array_equal(observations["observation"][i], expected["observation"])
            assert np.array_equal(observations["action_mask"][i], expected["action_mask"])


def test_next_step_autoreset_ignores_the_action_after_a_game_ends() -> None:
    envs = PatchworkVectorEnv(8, opponent="greedy")
    rng = np.random.default_rng(0)
    observations, infos = envs.reset(seed=1)
    ended_before = np.zeros(8, bool)
    finished = 0
    for _ in range(400):
        observations, rewards, terminations, truncations, infos = envs.step(_masked_random(envs, observations, rng))
        assert observations in envs.observation_space and not truncations.any()
        for i in np.flatnonzero(ended_before):
            # The step after the end: a fresh game, reward 0, whatever action was sent.
            assert rewards[i] == 0.0 and not terminations[i]
            seat = int(infos["seat"][i])
            position = Position.initial(int(envs.batch.game_seed[i]))
            for action in envs.batch.replies(i):
                position = position.play(Move.from_action(action))
            assert np.array_equal(observations["observation"][i], encode(position, seat))
        for i in np.flatnonzero(terminations):
            finished += 1
            assert rewards[i] in (1.0, -1.0) and infos["_winner"][i]
            assert (rewards[i] == 1.0) == (infos["winner"][i] == infos["seat"][i])
            assert infos["margin"][i] == infos["scores"][i][0] - infos["scores"][i][1]
            assert not observations["action_mask"][i].any()
        ended_before = terminations
    assert finished >= 8


def test_same_step_autoreset_hands_over_the_final_observation() -> None:
    envs = PatchworkVectorEnv(8, opponent="random", autoreset_mode=AutoresetMode.SAME_STEP, copy=False)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    rng = np.random.default_rng(1)
    observations, _ = envs.reset(seed=2)
    finished = 0
    for _ in range(300):
        observations, rewards, terminations, _, infos = envs.step(_masked_random(envs, observations, rng))
        for i in np.flatnonzero(terminations):
            finished += 1
            final = infos["final_obs"][i]
            assert final in envs.single_observation_space and not final["action_mask"].any()
            assert observations["action_mask"][i].any()  # already the next game
            result = infos["final_info"]
            assert (rewards[i] == 1.0) == (result["winner"][i] == result["seat"][i])
    assert finished >= 8


def test_regression_an_illegal_action_is_in_the_infos_only_for_the_copies_that_played_one() -> None:
    # `illegal_action` was -1 with its `_illegal_action` mask set for every copy whose game
    # ended, so a game lost on action -1 read as one that ended by the rules.
    envs = PatchworkVectorEnv(3, opponent="random", seat=0)
    observations, _ = envs.reset(seed=4)
    actions = _masked_random(envs, observations, np.random.default_rng(0))
    actions[:2] = [-1, 7431]
    observations, rewards, terminations, _, infos = envs.step(actions)
    assert terminations[:2].all() and rewards[:2].tolist() == [-1.0, -1.0]
    assert infos["_illegal_action"].tolist() == [True, True, False]
    assert infos["illegal_action"][:2].tolist() == [-1, 7431]
    rng = np.random.default_rng(1)
    for _ in range(400):  # legal moves until games end by the rules: no illegal action for them
        observations, _, terminations, _, infos = envs.step(_masked_random(envs, observations, rng))
        if terminations.any():
            break
    assert terminations.any() and not infos["_illegal_action"].any()
    envs.close()


def test_reset_mask_restarts_only_the_masked_copies() -> None:
    envs = PatchworkVectorEnv(4, opponent="random", seat=1)
    envs.reset(seed=5)
    envs.step(envs.batch.random_actions())
    before = [envs.batch.position(i) for i in range(4)]
    envs.reset(seed=50, options={"reset_mask": np.array([False, True, False, False])})
    assert [envs.batch.position(i) for i in (0, 2, 3)] == [before[i] for i in (0, 2, 3)]
    assert envs.batch.game_seed[1] == 50


def test_reset_without_a_seed_follows_the_first_seed() -> None:
    def run() -> list[np.ndarray]:
        envs = PatchworkVectorEnv(4, opponent="greedy")
        envs.reset(seed=9)
        seen, rng = [], np.random.default_rng(3)
        observations, _ = envs.reset()
        for _ in range(50):
            observations, *_ = envs.step(_masked_random(envs, observations, rng))
            seen.append(observations["observation"])
        return seen

    assert all(np.array_equal(a, b) for a, b in zip(run(), run()))


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="NEXT_STEP or SAME_STEP"):
        PatchworkVectorEnv(2, opponent="random", autoreset_mode=AutoresetMode.DISABLED)
    envs = PatchworkVectorEnv(2, opponent="random")
    envs.reset(seed=1)
    with pytest.raises(ValueError, match="one action for each of the 2"):
        envs.step(np.zeros(3, np.int64))
