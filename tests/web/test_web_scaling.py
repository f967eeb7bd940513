"""Several server processes sharing one database, with broadcasts through a real Redis server."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from services import RedisServer, servers
from sqlalchemy import select
from sqlalchemy.orm import Session
from web_helpers import new_game, migrated_store, play_in_the_past
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from quiltmaker.core.position import Position
from quiltmaker.web.round.clocks import TimeControl
from quiltmaker.web.db.database import database_url_for
from quiltmaker.web.protocol import SESSION_ENDED
from quiltmaker.web.lobby.quickmatch import POLL_WAIT
from quiltmaker.web.db.schema import EventRow
from quiltmaker.web.round.store import GameStore

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    shutil.which("redis-server") is None and not os.environ.get("CI"),
    reason="needs redis-server (scripts/system-deps.sh installs it; CI always runs this)",
)]


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis: RedisServer) -> str:
    return redis.url


@pytest.fixture
def two_servers(tmp_path: Path, redis_url: str) -> Iterator[list[str]]:
    """Two `quiltmaker serve` processes on one SQLite database and one Redis."""
    with servers(tmp_path, redis_url) as urls:
        yield urls


def _receive(ws, kind: str, seconds: float = 20.0) -> dict:  # type: ignore[no-untyped-def]
    """The next message of a kind, skipping others."""
    deadline = time.monotonic() + seconds
    while True:
        message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if message["type"] == kind:
            return message


def _state_from(ws, version: int, seconds: float = 20.0) -> dict:  # type: ignore[no-untyped-def]
    """The next state at ``version`` or later (a state may come again at the same version: a player arrived)."""
    deadline = time.monotonic() + seconds
    while (state := _receive(ws, "state", max(0.1, deadline - time.monotonic()))["state"])["version"] < version:
        pass
    return state  # type: ignore[no-any-return]


def _take_seat(ws, token: str) -> dict:  # type: ignore[no-untyped-def]
    """Read the first state, say hello with a seat's token; the welcome."""
    _receive(ws, "state")
    ws.send(json.dumps({"type": "hello", "token": token}))
    return _receive(ws, "welcome")


def test_a_move_on_one_server_reaches_a_spectator_on_the_other(two_servers: list[str]) -> None:
    a, b = two_servers
    created = httpx.post(f"http://{a}/api/games", json={"mode": "local", "seed": 5}).json()
    with connect(f"ws://{a}/ws/games/{created['id']}") as player, connect(f"ws://{b}/ws/games/{created['id']}") as spectator:
        assert _receive(spectator, "state")["state"]["version"] == 0
        assert _take_seat(player, created["token"])["seat"] == "both"
        player.send(json.dumps({"type": "move", "move": "A", "version": 0, "id": "first"}))
        assert _receive(player, "ack")["version"] == 1
        seen = _state_from(spectator, 1)
        assert seen["version"] == 1 and seen["moves"][0]["move"] == "A"


def test_two_servers_racing_for_the_same_version_store_one_move(two_servers: list[str]) -> None:
    a, b = two_servers
    created = httpx.post(f"http://{a}/api/games", json={"mode": "local", "seed": 6}).json()
    game = created["id"]
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(connect(f"ws://{url}/ws/games/{game}")) for url in (a, b)]
        for ws in sockets:
            _receive(ws, "state")
            ws.send(json.dumps({"type": "hello", "token": created["token"]}))
            _receive(ws, "welcome")
        # Both claim event 0; the database's unique (game, number) lets only one in.
        for index, ws in enumerate(sockets):
            ws.send(json.dumps({"type": "move", "move": "A", "version": 0, "id": f"racer-{index}"}))
        replies = []
        for ws in sockets:
            deadline = time.monotonic() + 20
            while True:
                message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
                if message["type"] in ("ack", "error"):
                    replies.append(message)
                    break
        assert sorted(r["type"] for r in replies) == ["ack", "error"]
        assert [r["code"] for r in replies if r["type"] == "error"] == ["stale"]
    state = httpx.get(f"http://{b}/api/games/{game}").json()
    assert state["version"] == 1 and [m["move"] for m in state["moves"]] == ["A"]


def test_a_dead_broker_delays_no_ack_and_the_other_server_catches_up_when_it_returns(
    two_servers: list[str], redis: RedisServer
) -> None:
    a, b = two_servers
    created = httpx.post(f"http://{a}/api/games", json={"mode": "local", "seed": 7}).json()
    with connect(f"ws://{a}/ws/games/{created['id']}") as player, connect(f"ws://{b}/ws/games/{created['id']}") as spectator:
        assert _receive(spectator, "state")["state"]["version"] == 0
        _take_seat(player, created["token"])
        redis.stop()
        time.sleep(1.5)  # both servers notice: their subscriptions fail and retry
        started = time.monotonic()
        player.send(json.dumps({"type": "move", "move": "A", "version": 0, "id": "while-down"}))
        assert _receive(player, "ack")["version"] == 1
        assert time.monotonic() - started < 2.0, "the ack waited for the dead broker"
        redis.start()
        # No further change happens: server b must find the move itself once its subscription is back.
        seen = _state_from(spectator, 1, seconds=30)
        assert seen["version"] == 1 and seen["moves"][0]["move"] == "A"


def test_a_chat_line_reaches_the_player_on_the_other_server(two_servers: list[str]) -> None:
    a, b = two_servers
    created = httpx.post(f"http://{a}/api/games", json={"mode": "online", "seat": 0}).json()
    guest = httpx.post(f"http://{b}/api/games/{created['id']}/join", json={"invite": created["invite"]}).json()
    with connect(f"ws://{a}/ws/games/{created['id']}") as host, connect(f"ws://{b}/ws/games/{created['id']}") as other:
        for ws, token in ((host, created["token"]), (other, guest["token"])):
            _take_seat(ws, token)
        host.send(json.dumps({"type": "chat", "text": "hello from a"}))
        assert _receive(other, "chat")["lines"][0]["text"] == "hello from a"


def test_a_poll_waiting_on_one_server_hears_at_once_of_the_pairing_the_other_made(two_servers: list[str]) -> None:
    a, b = two_servers
    first = httpx.post(f"http://{a}/api/quickmatch", json={"clock": "5+3"}).json()
    with ThreadPoolExecutor(1) as pool:  # its poll goes to the other process (nginx may send any request anywhere)
        waiting = pool.submit(httpx.post, f"http://{b}/api/quickmatch/{first['seek']}/poll", json={"secret": first["secret"]}, timeout=30)
        time.sleep(0.5)
        paired_at = time.monotonic()
        second = httpx.post(f"http://{a}/api/quickmatch", json={"clock": "5+3"}).json()  # paired at once, on a
        answer = waiting.result(timeout=30).json()
    assert answer["matched"] and time.monotonic() - paired_at < POLL_WAIT / 2, "answered through the broker, not after its wait"
    other = httpx.post(f"http://{a}/api/quickmatch/{second['seek']}/poll", json={"secret": second["secret"]}).json()
    assert other["game"] == answer["game"] and {other["seat"], answer["seat"]} == {0, 1}


def test_a_player_on_the_other_server_shows_as_here_and_leaving_shows_as_away(two_servers: list[str]) -> None:
    a, b = two_servers
    created = httpx.post(f"http://{a}/api/games", json={"mode": "online", "seat": 0}).json()
    guest = httpx.post(f"http://{b}/api/games/{created['id']}/join", json={"invite": created["invite"]}).json()
    with connect(f"ws://{a}/ws/games/{created['id']}") as host:
        _take_seat(host, created["token"])
        while _receive(host, "state")["state"]["presence"] != [True, False]:
            pass
        with connect(f"ws://{b}/ws/games/{created['id']}") as other:
            _take_seat(other, guest["token"])
            while _receive(host, "state")["state"]["presence"] != [True, True]:
                pass  # heard through Redis: the guest's socket is on the other server
            while _receive(other, "state")["state"]["presence"] != [True, True]:
                pass
        while _receive(host, "state")["state"]["presence"] != [True, False]:
            pass  # the guest closed the game on the other server


def _events(url: str, game_id: str) -> list[str]:
    store = GameStore(url)
    try:
        with Session(store.engine) as session:
            return list(session.scalars(select(EventRow.kind).where(EventRow.game_id == game_id).order_by(EventRow.number)))
    finally:
        store.close()


@contextlib.contextmanager
def _both_moved(a: str, b: str, clock: str) -> Iterator[tuple[dict[str, Any], Any, Any]]:
    """An online game on ``clock`` made through server ``a``, its host seated there and its guest on ``b``, each
    having made one move (the clocks run); the game as created, and the host's and the guest's sockets."""
    created = httpx.post(f"http://{a}/api/games", json={"mode": "online", "seat": 0, "clock": clock}).json()
    guest = httpx.post(f"http://{b}/api/games/{created['id']}/join", json={"invite": created["invite"]}).json()
    with connect(f"ws://{a}/ws/games/{created['id']}") as host, connect(f"ws://{b}/ws/games/{created['id']}") as other:
        _take_seat(host, created["token"])
        _take_seat(other, guest["token"])
        host.send(json.dumps({"type": "move", "move": "A", "version": 0, "id": "h1"}))
        assert _receive(host, "ack")["version"] == 1
        other.send(json.dumps({"type": "move", "move": "A", "version": 1, "id": "g1"}))
        assert _receive(other, "ack")["version"] == 2
        yield created, host, other


def test_exactly_one_server_ends_a_game_on_time_also_one_whose_time_ran_out_while_no_server_ran(tmp_path: Path, redis_url: str) -> None:
    url = database_url_for(tmp_path)
    # Games whose clocks (15 s each) started 20 s ago while no server was running: deadlines from the database.
    store = migrated_store(url)
    waited = []
    for seed in range(8):
        game_id = new_game(store, "online", Position.initial(seed, first_player=0), ["A", "B"], control=TimeControl.parse("0.25+0")).id
        play_in_the_past(store, game_id, [("A", 21), ("A", 20)])
        waited.append(game_id)
    store.close()
    with servers(tmp_path, redis_url) as (a, b):
        # And one played now, its players on different servers: its clock runs out while both servers watch it.
        with _both_moved(a, b, "0.25+0") as (created, host, other):
            for ws in (host, other):
                while (state := _receive(ws, "state", seconds=40)["state"])["result"] is None:
                    pass
                assert state["result"]["by"] == "time" and state["result"]["winner"] == 1
        for game_id in waited:
            assert httpx.get(f"http://{b}/api/games/{game_id}").json()["result"]["by"] == "time"
    for game_id in [*waited, created["id"]]:
        assert _events(url, game_id) == ["move", "move", "timeout"]
    for index in range(2):
        log = (tmp_path / f"server-{index}.log").read_text()
        assert "Traceback" not in log and "failed" not in log, log[-3000:]


def test_with_the_broker_dead_a_move_still_reaches_the_other_server_within_seconds_and_its_delay_is_given_back(
    two_servers: list[str], redis: RedisServer, tmp_path: Path
) -> None:
    a, b = two_servers
    with _both_moved(a, b, "1+0") as (created, host, other):
        _state_from(host, 2)
        redis.stop()
        time.sleep(1.5)  # both servers notice: their subscriptions fail, and they read the database instead
        for turn, (mover, waiter) in enumerate([(host, other), (other, host)]):
            version = 2 + 2 * turn
            left = _state_from(waiter, version)["clock"]["remaining"]
            started = time.monotonic()
            mover.send(json.dumps({"type": "move", "move": "A", "version": version, "id": f"down-{turn}"}))
            assert _receive(mover, "ack")["version"] == version + 1
            seen = _state_from(waiter, version + 1, seconds=10)
            assert time.monotonic() - started < 3.0, "the move waited for the broker to come back"
            # The news was late (the poll's second at most): the waiting player's clock got the delay back.
            if seen["version"] == version + 1:
                seen = _state_from(waiter, version + 2, seconds=10)
            waiting_seat = 1 - turn
            assert seen["clock"]["running"] == waiting_seat
            assert seen["clock"]["remaining"][waiting_seat] >= left[waiting_seat] - 0.2
    kinds = _events(database_url_for(tmp_path), created["id"])
    assert kinds == ["move", "move", "move", "credit", "move", "credit"], kinds


def test_a_session_ended_through_one_server_takes_its_seat_on_the_other(two_servers: list[str]) -> None:
    a, b = two_servers
    with httpx.Client(base_url=f"http://{a}") as first, httpx.Client(base_url=f"http://{b}") as second:
        assert first.post("/api/account/signup", json={"name": "Ada", "password": "correct horse"}).status_code == 200
        game = first.post("/api/games", json={"mode": "online", "seat": 0}).json()
        assert second.post("/api/account/signin", json={"name": "Ada", "password": "correct horse"}).status_code == 200
        cookie = "; ".join(f"{name}={value}" for name, value in second.cookies.items())
        with connect(f"ws://{b}/ws/games/{game['id']}", additional_headers={"Cookie": cookie}) as other:
            _receive(other, "state")
            other.send(json.dumps({"type": "hello", "token": None}))
            assert _receive(other, "welcome")["seat"] == 0  # seated on server b by its session
            changed = first.post("/api/account/password", json={"current": "correct horse", "new": "battery staple"})
            assert changed.status_code == 200
            deadline = time.monotonic() + 10
            with pytest.raises(ConnectionClosed) as ended:
                while time.monotonic() < deadline:
                    other.recv(timeout=max(0.1, deadline - time.monotonic()))
            assert ended.value.rcvd is not None and ended.value.rcvd.code == SESSION_ENDED
