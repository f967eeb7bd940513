"""Shared test helpers: where the project's shared data lives, and how to reach it."""

from __future__ import annotations

import json
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
