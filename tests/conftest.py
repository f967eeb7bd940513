"""Shared test helpers: where the project's shared data lives, and how to reach it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# The steering data sits beside the repository, as ../shared.
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_json(name: str) -> Any:
    """Load a file of the shared data folder, skipping the test when it is absent."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"shared data file {name} is not present")
    return json.loads(path.read_text(encoding="utf-8"))


def run_cli(cwd: Path, *args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m quiltmaker`` with ``args`` in ``cwd``.

    Args:
        cwd: The working folder (a tmp_path, so nothing leaks into the repository).
        *args: The command-line arguments.
        stdin: Text fed to standard input; empty input when None.
        timeout: Seconds before the run counts as hung.

    Returns:
        The finished process, with stdout and stderr as text.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    # A wide, colourless, UTF-8 console: rich then prints the same plain text on any machine.
    env.update(COLUMNS="200", LINES="50", NO_COLOR="1", PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "quiltmaker", *args],
        cwd=cwd,
        input=stdin or "",
        capture_output=True,
        encoding="utf-8",
        env=env,
        timeout=timeout,
        check=False,
    )
