"""The production shape (docs/web.md, "In production"): nginx in front of two server processes sharing PostgreSQL and Redis.

It runs deploy/nginx.conf itself (its placeholders filled in) with a
self-signed certificate, plays an online game through it with each player
on whichever process nginx picks, kills one process in the middle and plays
on, and checks that over HTTPS the session cookie is Secure.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from services import BINARIES, RedisServer, postgres, servers
from web_helpers import first_legal_move, free_port, poll
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from quiltmaker.web.accounts import SESSION_COOKIE

REPOSITORY = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        (not Path(NGINX).exists() or not BINARIES or shutil.which("redis-server") is None) and not os.environ.get("CI"),
        reason="needs nginx, PostgreSQL and Redis (scripts/system-deps.sh installs them; CI always runs this)",
    ),
]


@contextlib.contextmanager
def nginx(folder: Path, upstreams: list[str]) -> Iterator[tuple[int, int]]:
    """deploy/nginx.conf in front of ``upstreams``; its HTTP and HTTPS ports."""
    http_port, https_port = free_port(), free_port()
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
        check=True, capture_output=True,
    )
    config = (REPOSITORY / "deploy" / "nginx.conf").read_text()
    for name, value in {
        "__PREFIX__": str(folder),
        "__UPSTREAMS__": " ".join(f"server {u} max_fails=1 fail_timeout=30s;" for u in upstreams),
        "__HTTP_PORT__": str(http_port),
        "__HTTPS_PORT__": str(https_port),
        "__CERT__": str(folder / "cert.pem"),
        "__KEY__": str(folder / "key.pem"),
    }.items():
        config = config.replace(name, value)
    lines = [line for line in config.splitlines() if not line.lstrip().startswith("#")]
    assert not [line for line in lines if "__" in line], "every placeholder is filled"
    (folder / "nginx.conf").write_text(config)
    # As root, nginx's workers run as "nobody"; the folder must be theirs to write temporary files in.
    os.chmod(folder, 0o777)
    process = subprocess.Popen([NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"], stderr=subprocess.PIPE)
    try:
        poll(lambda: _answers(f"http://127.0.0.1:{http_port}") or (process.poll() is not None and _fail(process)), 30, what="nginx")
        yield http_port, https_port
    finally:
        process.terminate()
        process.wait(timeout=10)


def _fail(process: subprocess.Popen[bytes]) -> bool:
    raise AssertionError(f"nginx exited: {process.stderr.read().decode() if process.stderr else ''}")


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/catalogue", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


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


def test_an_online_game_through_nginx_survives_losing_one_of_its_two_processes(tmp_path: Path) -> None:
    redis = RedisServer()
    redis.start()
    try:
        with postgres() as database, servers(tmp_path, redis.url, database=database) as upstreams:
            front = tmp_path / "nginx"
            front.mkdir()
            with nginx(front, upstreams) as (http_port, https_port):
                base = f"http://127.0.0.1:{http_port}"
                game = httpx.post(f"{base}/api/games", json={"mode": "online", "seat": 0, "clock": "15+10"}).json()
                guest = httpx.post(f"{base}/api/games/{game['id']}/join", json={"invite": game["invite"]}).json()
                tokens = {0: game["token"], 1: guest["token"]}
                stack = contextlib.ExitStack()
                sockets = {seat: _seated(stack, http_port, game["id"], tokens[seat]) for seat in (0, 1)}
                acknowledged: list[str] = []
                version = 0
                killed = False
                state = _state(sockets[0], 0)
                for number in range(16):
                    if number == 8:
                        # One process dies (and its AI workers with it): its sockets drop; nginx sends the reconnections
                        # to the other, which has every acknowledged move (PostgreSQL) and the news (Redis).
                        process_group = _pid_listening(upstreams[0])
                        os.killpg(process_group, signal.SIGKILL)
                        killed = True
                        for seat in (0, 1):
                            with contextlib.suppress(Exception):
                                sockets[seat].close()
                            sockets[seat] = _seated(stack, http_port, game["id"], tokens[seat])
                        state = _state(sockets[0], version)
                        assert [m["move"] for m in state["moves"]] == acknowledged, "no acknowledged move lost"
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
                assert killed
                final = httpx.get(f"{base}/api/games/{game['id']}").json()
                assert [m["move"] for m in final["moves"]] == acknowledged and final["clock"]["running"] is not None
                with contextlib.suppress(ConnectionClosed):
                    stack.close()
                # Over HTTPS, nginx says so (X-Forwarded-Proto) and the session cookie is Secure.
                with httpx.Client(base_url=f"https://127.0.0.1:{https_port}", verify=False) as tls:
                    signed = tls.post("/api/account/signup", json={"name": "Ada", "password": "correct horse"})
                    assert signed.status_code == 200, signed.text
                    cookie = signed.headers["set-cookie"]
                    assert f"{SESSION_COOKIE}=" in cookie and "Secure" in cookie and "HttpOnly" in cookie
    finally:
        redis.stop()


def _pid_listening(address: str) -> int:
    """The process group of the server listening on ``address`` (host:port)."""
    port = int(address.rsplit(":", 1)[1])
    listing = subprocess.run(["ss", "-Hltnp", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    pid = int(listing.split("pid=")[1].split(",")[0])
    return os.getpgid(pid)
