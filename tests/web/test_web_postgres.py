"""The web server on PostgreSQL: the same store and app as on SQLite, on a real, throwaway PostgreSQL server."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any

import pytest
from fastapi.testclient import TestClient
from services import BINARIES, PostgresServer, postgres
from web_client import TEST_QUOTAS
from web_helpers import new_game, appended_together, migrated_store, play_in_the_past

from quiltmaker.core.game import Ending
from quiltmaker.core.position import Position
from quiltmaker.web.app import Settings, create_app
from quiltmaker.web.round.clocks import TimeControl
from quiltmaker.web.setup import GameMaker
from quiltmaker.web.round.store import StoreError

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not BINARIES and not os.environ.get("CI"),
    reason="needs PostgreSQL's server binaries (scripts/system-deps.sh installs them; CI always runs this)",
)]


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with postgres() as url:
        yield url


def test_the_store_appends_once_per_number_and_replays(postgres_url: str) -> None:
    store = migrated_store(postgres_url)
    game_id = new_game(store, "local", Position.initial(3), ["Ann", "Bob"]).id
    assert store.append(game_id, 0, "move", "A", 0, "one") == 1
    with pytest.raises(StoreError) as raised:
        store.append(game_id, 0, "move", "A", 0, "two")
    assert raised.value.code == "stale"
    store.append(game_id, 1, "undo", "1", 1, None)
    loaded = store.load(game_id)
    assert loaded.version == 2 and loaded.game.moves == [] and loaded.client_ids == {"one"}
    store.close()


def test_moves_sent_at_once_share_a_commit_and_a_stale_one_fails_alone(postgres_url: str) -> None:
    store = migrated_store(postgres_url)
    first = new_game(store, "local", Position.initial(3), ["Ann", "Bob"]).id
    results, commits = appended_together(store, [(first, 0, "A", 0), (first, 1, "A", 1)])
    assert results == [1, 2] and commits == 1
    # On PostgreSQL the taken number aborts the whole transaction: each write is tried again alone.
    results, commits = appended_together(store, [(first, 2, "A", 0), (first, 2, "A", 0), (first, 3, "A", 1)])
    assert results[0] == 3 and results[2] == 4 and isinstance(results[1], StoreError) and results[1].code == "stale"
    assert store.load(first).version == 4
    store.close()


def test_a_clock_deadline_is_stored_and_found_due_and_its_timeout_replays(postgres_url: str) -> None:
    store = migrated_store(postgres_url)
    game_id = new_game(store, "online", Position.initial(5, first_player=0), ["Ann", "Bob"], control=TimeControl.parse("0.25+0")).id
    play_in_the_past(store, game_id, [("A", 21), ("A", 20)])  # the clocks started 20 s ago: 15 s each
    assert game_id in store.due(datetime.now(timezone.utc))
    stored = store.load(game_id)
    clock = stored.clock_at(datetime.now(timezone.utc))
    assert clock is not None and clock.flagged == 0
    store.append(game_id, 2, "timeout", "0", None, None, clock=stored.clock_after("timeout", "0", datetime.now(timezone.utc)))
    assert game_id not in store.due(datetime.now(timezone.utc)) and store.load(game_id).ended == Ending("time", 0)
    store.close()


def test_an_invitation_is_spent_once(postgres_url: str) -> None:
    store = migrated_store(postgres_url)
    made = new_game(store, "online", Position.initial(4), ["Ann", "Bob"], seat=1)
    game_id, token, invite = made.id, made.token, made.invite
    assert invite is not None
    second, seat = GameMaker(store.database).take_free_seat(game_id, invite, None)
    assert seat == 0 and second != token
    with pytest.raises(StoreError):
        GameMaker(store.database).take_free_seat(game_id, invite, None)
    loaded = store.load(game_id)
    assert loaded.seat_of(second) == 0 and loaded.seat_of(token) == 1 and loaded.status == "playing"
    store.close()


@contextlib.contextmanager
def _seated(client: TestClient, seed: int) -> Iterator[tuple[dict, Any, dict]]:  # type: ignore[type-arg]
    """A new pass-and-play game, its socket greeted with the game's token: the game, the socket and its first state."""
    created = client.post("/api/games", json={"mode": "local", "seed": seed}).json()
    with client.websocket_connect(f"/ws/games/{created['id']}") as ws:
        state = ws.receive_json()["state"]
        ws.send_json({"type": "hello", "token": created["token"]})
        assert ws.receive_json()["seat"] == "both"
        yield created, ws, state


def _play(ws, state: dict, moves: int, tag: str) -> dict:  # type: ignore[type-arg]
    """Advance ``moves`` times through the socket, each move's ack and new state awaited (in either order: a state
    re-sent as the player arrived may come first); no reply may be an error. The last state."""
    for number in range(moves):
        ws.send_json({"type": "move", "move": "A", "version": state["version"], "id": f"{tag}{number}"})
        acked, wanted = False, state["version"] + 1
        while not (acked and state["version"] == wanted):
            reply = ws.receive_json()
            assert reply["type"] != "error", reply
            acked = acked or reply["type"] == "ack"
            state = reply["state"] if reply["type"] == "state" else state
    return state


def test_a_game_over_websockets_on_postgres(postgres_url: str) -> None:
    app = create_app(Settings(database_url=postgres_url, **TEST_QUOTAS), executor=ThreadPoolExecutor(1))
    with TestClient(app) as client:
        with _seated(client, seed=8) as (created, ws, state):
            _play(ws, state, 6, "m")
        assert client.get(f"/api/games/{created['id']}").json()["version"] == 6
    # A new server process (here: a new app) on the same database sees the same game.
    with TestClient(create_app(Settings(database_url=postgres_url, **TEST_QUOTAS), executor=ThreadPoolExecutor(1))) as client:
        again = client.get(f"/api/games/{created['id']}").json()
        assert again["version"] == 6 and [m["move"] for m in again["moves"]] == ["A"] * 6


def test_a_game_goes_on_after_postgres_restarts() -> None:
    # PostgreSQL ends every session as it stops; the server's pooled connections are then dead, and the
    # first move after the restart, made at once, must still land (the pool finds them out before use).
    server = PostgresServer()
    try:
        server.start()
        app = create_app(Settings(database_url=server.url, **TEST_QUOTAS), executor=ThreadPoolExecutor(1))
        with TestClient(app) as client:
            with _seated(client, seed=9) as (created, ws, state):
                state = _play(ws, state, 3, "before")
                server.stop()
                server.start()
                state = _play(ws, state, 3, "after")
            assert client.get(f"/api/games/{created['id']}").json()["version"] == 6
    finally:
        server.remove()
