"""The research environments, each checked by its own library's checker, and the worked example."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from quiltmaker import ACTION_COUNT, PATCHES, Move, Position
from quiltmaker.core import record
from quiltmaker.envs import observation as obs
from quiltmaker.core.errors import IllegalMoveError, QuiltmakerError
from quiltmaker.ai.players import RandomPlayer

gym = pytest.importorskip("gymnasium")
pettingzoo = pytest.importorskip("pettingzoo")
pyspiel = pytest.importorskip("pyspiel")

from quiltmaker.envs import gymnasium_env, openspiel_game, pettingzoo_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENVS = ROOT / "quiltmaker" / "envs"


def random_positions(seed: int, games: int = 3) -> list[Position]:
    """Every position of a few random games, the ends included."""
    player = RandomPlayer(seed)
    positions = []
    for number in range(games):
        position = Position.initial(seed + number)
        positions.append(position)
        while not position.is_over:
            position = position.play(player.choose_move(position))
            positions.append(position)
    return positions


# The shared observation -----------------------------------------------------


def test_layout_partitions_the_vector() -> None:
    blocks = sorted((s.start, s.stop) for name, s in obs.LAYOUT.items() if name not in ("planes", "features"))
    assert blocks[0][0] == 0 and blocks[-1][1] == obs.OBSERVATION_SIZE
    assert all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    assert obs.LAYOUT["planes"].stop == obs.LAYOUT["features"].start == obs.PLANE_COUNT * 81


def test_encoding_is_bounded_and_seen_from_each_side() -> None:
    for position in random_positions(1):
        for player in (0, 1):
            vector = obs.encode(position, player)
            assert vector.dtype == np.float32 and vector.shape == (obs.OBSERVATION_SIZE,)
            assert (vector >= 0).all() and (vector <= obs.OBSERVATION_HIGH).all()
            other = obs.encode(position, 1 - player)
            pairs = [("own_quilt", "opponent_quilt"), ("own_track", "opponent_track")]
            for own, opponent in pairs:
                assert np.array_equal(vector[obs.LAYOUT[own]], other[obs.LAYOUT[opponent]])
            for name in ("time", "buttons", "income", "income_left", "empty_squares"):
                assert np.array_equal(vector[obs.LAYOUT[name]], other[obs.LAYOUT[name]][::-1])
            assert np.array_equal(vector[obs.LAYOUT["offer_shape_0"]], other[obs.LAYOUT["offer_shape_0"]])
            assert vector[obs.LAYOUT["to_move"]][0] == (position.to_move == player)
            planes, features = obs.split(vector)
            assert planes.shape == (5, 9, 9) and features.shape == (obs.FEATURE_COUNT,)
            assert planes[0].sum() == 81 - position.empty_squares(player)
            assert round(float(vector[obs.LAYOUT["buttons"]][0]) * obs.BUTTONS_SCALE) == position.buttons[player]
        assert np.array_equal(obs.action_mask(position), np.array(position.legal_action_mask(), np.int8))


def test_encoding_reads_the_offer_and_track() -> None:
    start = Position.initial(circle=[*range(1, 33), 0], first_player=0)
    vector = obs.encode(start, 0)
    offer_ids = vector[obs.LAYOUT["offer_ids"]].reshape(3, 33)
    assert [int(np.argmax(row)) for row in offer_ids] == [1, 2, 3]
    circle = vector[obs.LAYOUT["circle"]].reshape(33, 5)
    assert circle[:, 0].sum() == 33 and circle[-1, 1] * obs.COST_SCALE == pytest.approx(2)  # the 1x2 patch last
    specials = np.flatnonzero(vector[obs.LAYOUT["special_track"]])
    assert specials.tolist() == [26, 32, 38, 44, 50]
    assert vector[obs.LAYOUT["own_track"]][0] == 1 and vector[obs.LAYOUT["income_left"]][0] == 1


def test_documented_layout_matches_the_encoder() -> None:
    """Every row of the table in docs/environments.md names a block with its exact indices."""
    text = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+)(?:\.\.(\d+))? \| `(\w+)` \|", text, flags=re.MULTILINE)
    documented = {name: (int(start), int(stop or start)) for start, stop, name in rows}
    actual = {name: (s.start, s.stop - 1) for name, s in obs.LAYOUT.items() if name not in ("planes", "features")}
    assert documented == actual
    assert f"**{obs.OBSERVATION_SIZE}**" in text and f"{obs.FEATURE_COUNT} features" in text
    # The docs say the circle block identifies each patch by these four numbers.
    assert len({(p.cost, p.time, p.income, p.size) for p in PATCHES}) == len(PATCHES)


def test_lazy_names_of_the_envs_package() -> None:
    import quiltmaker.envs

    assert quiltmaker.envs.PatchworkEnv is gymnasium_env.PatchworkEnv
    assert quiltmaker.envs.OBSERVATION_SIZE == obs.OBSERVATION_SIZE
    with pytest.raises(AttributeError):
        quiltmaker.envs.Nothing  # noqa: B018


def test_envs_import_nothing_but_quiltmaker_numpy_and_their_libraries() -> None:
    allowed = sys.stdlib_module_names | {"__future__", "numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel"}
    for path in ENVS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert not (node.module or "").startswith(("web", "cli", "terminal")), f"{path.name} imports .{node.module}"
            elif isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] in allowed for a in node.names), path.name
            elif isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] in allowed, f"{path.name} imports {node.module}"


def test_importing_envs_loads_no_environment_library() -> None:
    code = (
        "import sys, quiltmaker, quiltmaker.envs, quiltmaker.envs.observation; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'gymnasium', 'pettingzoo', 'pyspiel', 'open_spiel'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# Gymnasium --------------------------------------------------------------------


def test_gymnasium_checker_passes_without_warnings() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make(gymnasium_env.ENV_ID, opponent="beginner", render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    assert env.action_space == gym.spaces.Discrete(ACTION_COUNT)
    env.close()
    # The "module:id" form imports the module, and so registers the id, on its own.
    gym.make("quiltmaker.envs.gymnasium_env:quiltmaker/Patchwork-v0").close()


def test_gymnasium_plays_whole_games_against_a_level() -> None:
    env = gymnasium_env.PatchworkEnv(opponent="beginner", render_mode="ansi")
    rng = np.random.default_rng(0)
    seats = set()
    for seed in range(4):
        observation, info = env.reset(seed=seed)
        assert env.game is not None and env.game.start == Position.initial(seed)
        seats.add(info["seat"])
        done = False
        while not done:
            position = Position.from_text(info["position"])
            assert position.to_move == info["seat"], "the agent is asked only on its own turns"
            assert np.array_equal(observation["action_mask"], obs.action_mask(position))
            assert np.array_equal(env.action_masks(), observation["action_mask"].astype(bool))
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, reward, done, truncated, info = env.step(action)
            assert not truncated and (reward == 0) != done
        final = Position.from_text(info["position"])
        assert final.is_over and reward == (1.0 if final.winner == info["seat"] else -1.0)
        assert info["margin"] == final.score(info["seat"]) - final.score(1 - info["seat"])
        assert "player" in (env.render() or "")
        assert env.game.position == final and record.to_json(env.game)["result"] is not None
        with pytest.raises(RuntimeError):
            env.step(0)
    assert seats == {0, 1}, "the seat is drawn at each reset"


def test_gymnasium_seat_opponent_and_illegal_actions() -> None:
    env = gymnasium_env.PatchworkEnv(opponent=RandomPlayer(3), seat=1)
    observation, info = env.reset(seed=5, options={"seat": 0})
    assert info["seat"] == 0
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    observation, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal_action"]) == (-1.0, True, illegal)
    strict = gymnasium_env.PatchworkEnv(seat=1, illegal_action="raise")
    strict.reset(seed=5)
    with pytest.raises(IllegalMoveError):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))
    with pytest.raises(ValueError):
        gymnasium_env.PatchworkEnv(seat=2)
    with pytest.raises(QuiltmakerError, match="unknown player"):
        gymnasium_env.PatchworkEnv(opponent="grandmaster")


# PettingZoo ------------------------------------------------------------------


def test_pettingzoo_api_and_seed_tests() -> None:
    from pettingzoo.test import api_test, seed_test
    from pettingzoo.test.state_test import test_state, test_state_space

    # PettingZoo warns about any dict observation outside its own games; masks need one.
    expected = {"Observation is not a NumPy array", "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(pettingzoo_env.env(), num_cycles=1000)
        api_test(pettingzoo_env.raw_env(render_mode="ansi"), num_cycles=1000)
        seed_test(pettingzoo_env.env, num_cycles=1000)
        # state_test() also wants a parallel API, which a game of sequential turns lacks: its AEC half.
        state_env = pettingzoo_env.env()
        test_state_space(state_env)
        test_state(state_env, num_cycles=1000)
    assert {str(w.message) for w in caught} <= expected


def test_pettingzoo_turns_follow_the_time_track() -> None:
    env = pettingzoo_env.env()
    env.reset(seed=11)
    unwrapped = env.unwrapped
    rng = np.random.default_rng(1)
    previous, repeats, rewards = None, 0, {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            rewards[agent] = reward
            env.step(None)
            continue
        assert agent == f"player_{unwrapped.position.to_move}"
        assert np.array_equal(observation["action_mask"], obs.action_mask(unwrapped.position))
        other = env.observe(pettingzoo_env.AGENTS[1 - int(agent[-1])])
        assert not other["action_mask"].any(), "only the agent to act has legal actions"
        repeats += agent == previous
        previous = agent
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    final = unwrapped.position
    assert final.is_over and repeats > 0, "some agent moved twice in a row"
    assert rewards == {f"player_{final.winner}": 1.0, f"player_{1 - final.winner}": -1.0}


def test_pettingzoo_illegal_action_loses() -> None:
    env = pettingzoo_env.env()
    env.reset(seed=2)
    mover = env.agent_selection
    observation, *_ = env.last()
    env.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[mover] == -1.0 and sum(env.rewards.values()) == 0.0
    strict = pettingzoo_env.env(illegal_action="raise")
    strict.reset(seed=2)
    with pytest.raises(IllegalMoveError):
        strict.step(int(np.flatnonzero(strict.observe(strict.agent_selection)["action_mask"] == 0)[0]))


# OpenSpiel -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["python_patchwork", "python_patchwork(seed=42)", "python_patchwork(variant=original)"])
def test_openspiel_random_simulation_test(name: str) -> None:
    game = pyspiel.load_game(name)
    assert game.num_distinct_actions() == ACTION_COUNT and game.num_players() == 2
    assert game.observation_tensor_shape() == [obs.OBSERVATION_SIZE]
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def test_regression_the_environments_refuse_a_bad_seed_and_change_nothing() -> None:
    # Position.initial(-1) was the setup of seed 1, so reset(seed=-1) played it; 2**64 was a setup of its own.
    from quiltmaker import InvalidSeedError

    for seed in (-1, 2**64):
        env = gymnasium_env.PatchworkEnv()
        env.reset(seed=3)
        before, generator = env.position, env.np_random.bit_generator.state
        with pytest.raises(InvalidSeedError, match="from 0 to 2"):
            env.reset(seed=seed)
        assert env.position == before and env.np_random.bit_generator.state == generator
        game = pettingzoo_env.env()
        game.reset(seed=3)
        with pytest.raises(InvalidSeedError, match="from 0 to 2"):
            game.reset(seed=seed)
        assert game.unwrapped.position == Position.initial(3)
    # OpenSpiel's -1 deals by chance; -5 did too, where it is no seed.
    with pytest.raises(InvalidSeedError, match="not -5"):
        pyspiel.load_game("python_patchwork(seed=-5)")


def test_openspiel_seed_and_chance_setups() -> None:
    seeded = pyspiel.load_game("python_patchwork(seed=42)").new_initial_state()
    assert seeded.position == Position.initial(42) and seeded.current_player() == Position.initial(42).to_move
    state = pyspiel.load_game("python_patchwork").new_initial_state()
    deals = 0
    while state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes())
        assert sum(probabilities) == pytest.approx(1.0)
        state.apply_action(outcomes[-1])
        deals += 1
    assert deals == 32 and sorted(state.position.circle) == list(range(33)) and state.position.circle[-1] == 0
    legal = state.legal_actions()
    assert legal == sorted(m.action for m in state.position.legal_moves())
    assert state.action_to_string(legal[0]) == Move.from_action(legal[0]).text()
    assert np.array_equal(np.array(state.observation_tensor(state.current_player())), obs.encode(state.position, state.current_player()))


def test_openspiel_mcts_bot_plays_a_game() -> None:
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = pyspiel.load_game(openspiel_game.GAME_NAME)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=10, evaluator=evaluator, random_state=np.random.RandomState(1))
    returns = evaluate_bots(game.new_initial_state(), [bot, pyspiel.make_uniform_random_bot(1, 2)], np.random.RandomState(3))
    assert sorted(returns) == [-1.0, 1.0]


# The worked example ------------------------------------------------------------


def load_example() -> ModuleType:
    path = ROOT / "docs" / "examples" / "train_and_play.py"
    spec = importlib.util.spec_from_file_location("train_and_play", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_worked_example_runs_at_a_tiny_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example()
    saved = tmp_path / "game.json"
    result = example.main(["--episodes", "6", "--games", "2", "--record", str(saved)])
    assert 0 <= result["trained"] <= 1 and len(result["weights"]) == len(example.FEATURES)
    out = capsys.readouterr().out
    assert "trained policy against beginner" in out
    game = record.from_json(json.loads(saved.read_text(encoding="utf-8")))
    assert game.position.is_over and "linear-policy" in game.players
