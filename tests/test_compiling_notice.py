"""The first command after installing says it is compiling, instead of a silent half-minute wait."""

from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quiltmaker.ai.mcts import warm_up
from quiltmaker.compiled import announce_compiling, is_cached

FUNCTION = "from numba import njit\n\n\n@njit(cache=True)\ndef add_one(x):\n    return x + 1\n"


def test_the_notice_comes_before_compiling_and_never_after(tmp_path: Path) -> None:
    path = tmp_path / "fresh_kernel.py"
    path.write_text(FUNCTION, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("fresh_kernel", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert not is_cached(module.add_one)
    first, again = io.StringIO(), io.StringIO()
    announce_compiling("a test kernel", (module.add_one,), "no time", stream=first)
    assert first.getvalue() == "quiltmaker: compiling a test kernel, once after installing: about no time…\n"
    assert module.add_one(1) == 2
    assert is_cached(module.add_one)
    announce_compiling("another test kernel", (module.add_one,), "no time", stream=again)
    assert again.getvalue() == ""


NEW_PLAYER = "from quiltmaker.ai.mcts import MCTSPlayer; from quiltmaker.ai.players import Limit; MCTSPlayer(Limit(iterations=1))"


def test_the_first_search_player_says_so_when_nothing_is_compiled_yet(tmp_path: Path) -> None:
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty-cache")}
    fresh = subprocess.run([sys.executable, "-c", NEW_PLAYER], capture_output=True, text=True, env=environment, timeout=120)
    assert fresh.returncode == 0, fresh.stderr
    assert fresh.stderr == "quiltmaker: compiling the search core, once after installing: about 10 seconds (or run 'quiltmaker compile' once)…\n"
    # A command that fails on its input says only why, compiled or not.
    failed = subprocess.run(
        [sys.executable, "-m", "quiltmaker", "match", "nobody", "greedy"], capture_output=True, text=True, env=environment, timeout=120
    )
    assert failed.returncode == 2 and "compiling" not in failed.stderr
    warm_up()  # compiles here, into the usual cache, if no test did before
    cached = subprocess.run([sys.executable, "-c", NEW_PLAYER], capture_output=True, text=True, timeout=120)
    assert cached.returncode == 0 and cached.stderr == ""


EARLY_POSITION = "from quiltmaker import Position; print(Position.initial(3).text())"


@pytest.mark.slow  # compiles the whole search core, the solver and the batched environment into an empty cache
def test_each_notice_comes_once_and_quiltmaker_compile_leaves_none_to_say(tmp_path: Path) -> None:
    """A search that never reaches the endgame solver is announced once, not at every run (the notice once waited
    for the solver's cache); the solver says so itself when first used; `quiltmaker compile` leaves nothing to say."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty-cache")}
    position = subprocess.run([sys.executable, "-c", EARLY_POSITION], capture_output=True, text=True, check=True).stdout.strip()
    analyse = [sys.executable, "-m", "quiltmaker", "analyse", position, "--iterations", "100"]
    first = subprocess.run(analyse, capture_output=True, text=True, env=environment, timeout=300)
    assert first.returncode == 0 and "compiling the search core" in first.stderr and "endgame solver" not in first.stderr
    again = subprocess.run(analyse, capture_output=True, text=True, env=environment, timeout=300)
    assert again.returncode == 0 and again.stderr == "", again.stderr
    compiled = subprocess.run([sys.executable, "-m", "quiltmaker", "compile"], capture_output=True, text=True, env=environment, timeout=600)
    assert compiled.returncode == 0 and compiled.stdout.count("ready (") == 2 and compiled.stderr == "", compiled.stderr
    batch = "from quiltmaker.envs.batched import PatchworkBatch; b = PatchworkBatch(2, seed=0); b.step(b.random_actions())"
    for code in (NEW_PLAYER, batch):
        after = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=120)
        assert after.returncode == 0 and after.stderr == "", after.stderr
