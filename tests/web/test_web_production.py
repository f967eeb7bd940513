"""The production shape (docs/web.md, "In production"): nginx in front of two server processes sharing PostgreSQL and Redis.

It runs deploy/nginx.conf itself (its placeholders filled in) with a
self-signed certificate, plays an online game through it with each player
on whichever process nginx picks (paired by the quick-match queue, rated,
with a clock), restarts one process in the middle and plays on, rates the
game, and checks that over HTTPS the session cookie is Secure. And it
checks the timeouts that only nginx sets: uvicorn has none for a request's
headers, so deploy/nginx.conf's ``client_header_timeout`` is what closes a
half-sent request.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from services import BINARIES, NGINX, RedisServer, nginx, postgres, servers
from web_helpers import TEST_LIMITS, first_legal_move, start_server
from websockets.sync.client import ClientConnection, connect

from quiltmaker.web.account.accounts import SESSION_COOKIE

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(NGINX).exists() and not os.environ.get("CI"),
        reason="needs nginx (scripts/system-deps.sh installs it; CI always runs this)",
    ),
]
needs_services = pytest.mark.skipif(
    (not BINARIES or shutil.which("redis-server") is None) and not os.environ.get("CI"),
    reason="needs PostgreSQL and Redis (scripts/system-deps.sh installs them; CI always runs this)",
)


def _state(ws: ClientConnection, version: int, seconds: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if message["type"] == "state" and message["state"]["version"] >= version:
            return message["state"]  # type: ignore[no-any-return]


def _seated(stack: contextlib.ExitStack, port: int, game: str, token: str) -> ClientConnection:
    ws = stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/games/{game}", origin=f"http://127.0.0.1:{port}"))
    ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


def _quick_match(client: httpx.Client, clock: str, rated: bool) -> dict[str, Any]:
    """Join the quick-match queue and poll (as the page does) until paired; the seat."""
    seek = client.post("/api/quickmatch", json={"clock": clock, "rated": rated})
    assert seek.status_code == 200, seek.text
    ticket = seek.json()
    for _ in range(60):
        answer = client.post(f"/api/quickmatch/{ticket['seek']}/poll", json={"secret": ticket["secret"]}).json()
        if answer.get("matched"):
            return answer  # type: ignore[no-any-return]
        time.sleep(0.5)
    raise AssertionError("never paired")


def _pair_up(base: str, clock: str, rated: bool, names: tuple[str, str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two players (accounts when named) who quick-match through nginx at once; each one's seat."""
    clients = [httpx.Client(base_url=base, timeout=30) for _ in range(2)]
    try:
        for client, name in zip(clients, names or (None, None)):
            if name:
                assert client.post("/api/account/signup", json={"name": name, "password": "correct horse"}).status_code == 200
        with ThreadPoolExecutor(2) as pool:
            first, second = pool.map(lambda client: _quick_match(client, clock, rated), clients)
    finally:
        for client in clients:
            client.close()
    assert first["game"] == second["game"] and {first["seat"], second["seat"]} == {0, 1}
    return first, second


@needs_services
def test_a_rated_quick_match_through_nginx_survives_a_restart_of_one_of_its_two_processes(tmp_path: Path) -> None:
    redis = RedisServer()
    redis.start()
    try:
        with postgres() as database, servers(tmp_path, redis.url, database=database) as upstreams:
            front = tmp_path / "nginx"
            front.mkdir()
            with nginx(front, upstreams) as (http_port, https_port), contextlib.ExitStack() as stack:
                base = f"http://127.0.0.1:{http_port}"
                # Two accounts find each other in the quick-match queue, each through whichever process nginx picks.
                first, second = _pair_up(base, "15+10", rated=True, names=("Hana", "Gus"))
                game = first["game"]
                tokens = {first["seat"]: first["token"], second["seat"]: second["token"]}
                sockets = {seat: _seated(stack, http_port, game, tokens[seat]) for seat in (0, 1)}
                acknowledged: list[str] = []
                version = 0
                state = _state(sockets[0], 0)
                assert state["rating"]["family"] == "realtime" and state["clock"]["control"] == "15+10"
                for number in range(16):
                    if number == 8:
                        # One process is lost (SIGKILL, its AI workers with it) and comes back on its address: the
                        # sockets on it drop, both players reconnect through nginx, and the game is as acknowledged.
                        upstreams.restart(0)
                        for seat in (0, 1):
                            with contextlib.suppress(Exception):
                                sockets[seat].close()
                            sockets[seat] = _seated(stack, http_port, game, tokens[seat])
                        state = _state(sockets[0], version)
                        assert [m["move"] for m in state["moves"]] == acknowledged, "no acknowledged move lost"
                        assert state["clock"]["running"] == state["to_move"], "the clock runs for the side to move"
                    mover = state["to_move"]
                    move = first_legal_move(state)
                    sockets[mover].send(json.dumps({"type": "move", "move": move, "version": state["version"], "id": f"m{number}"}))
                    while (reply := json.loads(sockets[mover].recv(timeout=20)))["type"] not in ("ack", "error"):
                        pass
                    assert reply["type"] == "ack", reply
                    acknowledged.append(move)
                    version = reply["version"]
                    seen = [_state(sockets[seat], version) for seat in (0, 1)]
                    assert seen[0]["version"] == seen[1]["version"] == version, "both players see every move"
                    state = seen[0]
                clock = state["clock"]
                assert clock["running"] == state["to_move"] and all(0 < left <= 15 * 60 + 10 * 16 for left in clock["remaining"])
                # The side to move resigns: both ratings move, once, whichever process settles it.
                loser = state["to_move"]
                sockets[loser].send(json.dumps({"type": "resign", "version": version, "id": "resign"}))
                final = _state(sockets[1 - loser], version + 1)
                assert final["result"]["by"] == "resignation" and final["result"]["winner"] == 1 - loser
                deadline = time.monotonic() + 20
                while not (final := httpx.get(f"{base}/api/games/{game}").json())["rating"]["settled"] and time.monotonic() < deadline:
                    time.sleep(0.2)
                (before0, after0), (before1, after1) = final["rating"]["changes"]
                assert before0 == before1 == 1500 and (after0 > 1500) == (loser == 1) and (after1 > 1500) == (loser == 0)
                # The queue works after the restart too.
                _pair_up(base, "5+3", rated=False)
                # Over HTTPS, nginx says so (X-Forwarded-Proto) and the session cookie is Secure.
                with httpx.Client(base_url=f"https://127.0.0.1:{https_port}", verify=False) as tls:
                    signed = tls.post("/api/account/signup", json={"name": "Ada", "password": "correct horse"})
                    assert signed.status_code == 200, signed.text
                    cookie = signed.headers["set-cookie"]
                    assert f"{SESSION_COOKIE}=" in cookie and "Secure" in cookie and "HttpOnly" in cookie
    finally:
        redis.stop()


def test_nginx_closes_a_half_sent_request_and_serves_whole_ones_and_sockets(tmp_path: Path) -> None:
    # uvicorn waits for the rest of a request's headers forever (quiltmaker/web/app.py, uvicorn_config):
    # client_header_timeout is what stops a client holding connections open with half-sent requests.
    process, port = start_server(["--data", str(tmp_path), *TEST_LIMITS], tmp_path / "server.log")
    front = tmp_path / "nginx"
    front.mkdir()
    try:
        with nginx(front, [f"127.0.0.1:{port}"], {"client_header_timeout 10s;": "client_header_timeout 1s;"}) as (http_port, _):
            with socket.create_connection(("127.0.0.1", http_port), timeout=10) as slow:
                slow.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n")  # and never the blank line
                started = time.monotonic()
                try:
                    answer = slow.recv(1024)
                except ConnectionResetError:  # reset_timedout_connection: a reset rather than a close
                    answer = b""
                waited = time.monotonic() - started
            assert answer == b"", "nginx closes the connection without an answer"
            assert 0.5 < waited < 8, waited
            base = f"http://127.0.0.1:{http_port}"
            game = httpx.post(f"{base}/api/games", json={"mode": "local"}, timeout=20).json()
            assert httpx.get(f"{base}/api/games/{game['id']}", timeout=20).status_code == 200
            # A WebSocket is past its headers: it outlives the header timeout.
            with connect(f"ws://127.0.0.1:{http_port}/ws/games/{game['id']}", origin=base) as ws:
                ws.recv(timeout=10)  # the state
                time.sleep(2)
                ws.send(json.dumps({"type": "hello", "token": game["token"]}))
                assert '"welcome"' in ws.recv(timeout=10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # its own process group: its AI workers too
        process.wait()


def test_behind_nginx_each_client_is_counted_by_its_own_address_whatever_it_forwards_and_https_is_pinned(tmp_path: Path) -> None:
    """X-Forwarded-For is believed from the proxy alone (docs/web.md, "In production"): a client that forges one
    to look like many addresses still spends its own quota. Over HTTPS the browser is told to stay on HTTPS."""
    process, port = start_server(["--data", str(tmp_path), *TEST_LIMITS], tmp_path / "server.log")
    front = tmp_path / "nginx"
    front.mkdir()
    try:
        with nginx(front, [f"127.0.0.1:{port}"]) as (http_port, https_port):
            base = f"http://127.0.0.1:{http_port}"

            def client_at(address: str) -> httpx.Client:  # another loopback address: not the proxy's own
                return httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=address), timeout=20)

            def attempt(n: int) -> dict[str, str]:  # each for another account: an account's own limit is not what is tried
                return {"name": f"Nobody{n}", "password": "not the password"}

            with client_at("127.0.0.2") as forger:
                answers = [
                    forger.post("/api/account/signin", json=attempt(n), headers={"X-Forwarded-For": f"203.0.113.{n}", "Origin": base}).status_code
                    for n in range(11)
                ]
            assert 429 not in answers[:10] and answers[10] == 429, answers
            with client_at("127.0.0.3") as other:
                assert other.post("/api/account/signin", json=attempt(0), headers={"Origin": base}).status_code != 429, "another client's quota is its own"
            assert "strict-transport-security" not in httpx.get(f"{base}/").headers
            pinned = httpx.get(f"https://127.0.0.1:{https_port}/", verify=False).headers
            assert pinned["strict-transport-security"] == "max-age=31536000"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
