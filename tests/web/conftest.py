"""Fixtures of the web server's tests: one app per test module, and games in each mode."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_client import (
    AI_GAME_NAME,
    create,
    join,
    make_app,
    play_against_the_beginner,
)



@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[TestClient]:
    """An app of its own, on a database of its own, for a test that counts what is in it (accounts, ratings, the lobby)."""
    with TestClient(make_app(tmp_path / "fresh.sqlite3")) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    # One app for the module: games are independent by id, and startup is not what is tested here.
    with TestClient(make_app(tmp_path_factory.mktemp("web") / "db.sqlite3")) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def finished_ai_game(client: TestClient) -> dict[str, Any]:
    return play_against_the_beginner(client, names=[AI_GAME_NAME])


@pytest.fixture
def local_game(client: TestClient) -> dict[str, Any]:
    return create(client, mode="local", seed=5)


@pytest.fixture
def online_game(client: TestClient) -> dict[str, Any]:
    return create(client, mode="online", seat=0, seed=1)


@pytest.fixture
def started_online_game(client: TestClient, online_game: dict[str, Any]) -> dict[str, Any]:
    joined = join(client, online_game).json()
    return {**online_game, "tokens": {0: online_game["token"], 1: joined["token"]}}
