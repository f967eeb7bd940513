"""Every Python example in docs/examples runs, at a tiny size, and gives what it says."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from quiltmaker import Position, record

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_example_has_a_test() -> None:
    tested = {"analysis", "players_and_limits", "matches", "batched_play", "train_and_play"}  # train_and_play: test_envs.py
    assert {path.stem for path in EXAMPLES.glob("*.py")} == tested


def test_analysis(capsys) -> None:
    results = load("analysis").main(["--iterations", "60", "--seed", "3"])
    position = results["position"]
    assert position.to_move == Position.initial(3).to_move and 0 <= position.win_probability <= 1
    assert len(results["game"]) == 7  # the six moves' positions and the one after them
    assert "wins" in capsys.readouterr().out


def test_players_and_limits(tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    game = load("players_and_limits").main(["--b", "mcts:iterations=40", "--record", str(saved)])["game"]
    assert game.position.is_over
    replayed = record.from_json(json.loads(saved.read_text(encoding="utf-8")))
    assert replayed.players == ["greedy", "mcts:iterations=40"] and replayed.position == game.position


def test_matches(tmp_path: Path) -> None:
    summary = load("matches").main(["--games", "2", "--workers", "1", "--records", str(tmp_path)])
    assert summary["games"] == 2 and summary["players"] == ["greedy", "random"]
    assert len(list(tmp_path.glob("game-*.json"))) == 2


def test_batched_play() -> None:
    results = load("batched_play").main(["--games", "8", "--total", "8", "--seed", "1"])
    assert set(results) == {"uniform", "buy first"}
    for win_rate, margin, speed in results.values():
        assert 0 <= win_rate <= 1 and -200 < margin < 200 and speed > 0
