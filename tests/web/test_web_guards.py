"""What every connection meets before the app: security headers, bounded request bodies, bounded headers.

Some limits live in uvicorn (its public settings, quiltmaker/web/app.py's
``uvicorn_config``), so those tests run a real uvicorn server with that very
configuration (in a thread of this process) on a loopback port. The timeout
for a request's headers is nginx's (deploy/nginx.conf): uvicorn has none,
and tests/web/test_web_production.py checks nginx's.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from web_client import TEST_QUOTAS
from web_helpers import poll

from quiltmaker.web.app import Settings, create_app, uvicorn_config
from quiltmaker.web.guards import MAX_BODY_BYTES, SECURITY_HEADERS


@pytest.mark.parametrize("path", ["/", "/game/abc", "/api/catalogue", "/static/style.css", "/api/games/nosuchgame"])
def test_every_response_carries_the_security_headers(client: TestClient, path: str) -> None:
    response = client.get(path)
    for name, value in SECURITY_HEADERS:
        assert response.headers[name.decode()] == value.decode(), (path, name)
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_a_declared_body_over_the_limit_is_refused_before_it_is_read(client: TestClient) -> None:
    body = b'{"mode": "ai", "names": ["' + b"x" * MAX_BODY_BYTES + b'"]}'
    response = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 413 and "at most" in response.json()["detail"]
    assert "x" * 100 not in response.text, "the refusal does not echo the input"


@contextlib.contextmanager
def real_server(tmp_path: Path) -> Iterator[str]:
    """The app under uvicorn with the production configuration, in a thread; yields its base URL."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'guards.sqlite3'}", hint_seconds=0.05, **TEST_QUOTAS)
    listening = socket.create_server(("127.0.0.1", 0))  # taken here, so no other process can take it in between
    port = listening.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(create_app(settings, executor=ThreadPoolExecutor(1))))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    poll(lambda: server.started or None, 30, what="uvicorn to start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def test_headers_over_the_limit_are_refused_and_a_whole_request_is_served(tmp_path: Path) -> None:
    with real_server(tmp_path) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as big:
            big.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n" + b"X-Filler: " + b"x" * (20 * 1024))  # past 16 KiB, unfinished
            assert big.recv(1024).startswith(b"HTTP/1.1 400"), "refused before the headers end"
        assert httpx.get(f"{url}/api/catalogue", headers={"x-filler": "x" * 8000}, timeout=10).status_code == 200


def test_one_long_header_sent_at_once_is_refused_too(tmp_path: Path) -> None:
    """A single 60,000-byte header sent whole was answered 200, though the limit is 16 KiB."""
    with real_server(tmp_path) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as big:
            big.sendall(b"GET /api/catalogue HTTP/1.1\r\nHost: localhost\r\nX-Filler: " + b"x" * 60_000 + b"\r\n\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += big.recv(4096)
            assert answer.startswith((b"HTTP/1.1 431", b"HTTP/1.1 400")), answer[:80]
        many = {f"x-filler-{n}": "x" * 1000 for n in range(20)}  # 20 KiB in headers of a kilobyte each
        assert httpx.get(f"{url}/api/catalogue", headers=many, timeout=10).status_code == 431


def test_a_chunked_body_over_the_limit_is_cut_off(tmp_path: Path) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"mode": "ai", "names": ["'
        for _ in range(MAX_BODY_BYTES // 1024 + 2):
            yield b"x" * 1024
        yield b'"]}'

    with real_server(tmp_path) as url:
        response = httpx.post(f"{url}/api/games", content=chunks(), headers={"content-type": "application/json"}, timeout=20)
        assert response.status_code == 413
        game = httpx.post(f"{url}/api/games", json={"mode": "local"}, timeout=20).json()
        assert httpx.get(f"{url}/api/games/{game['id']}", timeout=20).status_code == 200


@pytest.mark.slow  # waits out the body's time limit
def test_a_body_that_never_finishes_is_answered_408_in_time(tmp_path: Path) -> None:
    from quiltmaker.web.guards import BODY_SECONDS

    with real_server(tmp_path) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=BODY_SECONDS + 10) as slow:
            slow.sendall(
                b'POST /api/games HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mo'
            )
            started = time.monotonic()
            answer = slow.recv(4096)
            assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
            assert time.monotonic() - started < BODY_SECONDS + 5


def test_a_client_that_closes_before_its_reply_leaves_no_error_in_the_log(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A page closed at once (a burst of quick-match players who leave as soon as they are seated) is not a server error."""
    with real_server(tmp_path) as url:
        game = httpx.post(f"{url}/api/games", json={"mode": "local"}, timeout=10).json()
        for _ in range(20):  # (the close wins the race with the reply about half the time)
            with connect(f"ws://{url.removeprefix('http://')}/ws/games/{game['id']}") as ws:
                ws.send(json.dumps({"type": "hello", "token": game["token"]}))
        with connect(f"ws://{url.removeprefix('http://')}/ws/games/{game['id']}") as ws:  # the server carries on
            ws.send(json.dumps({"type": "hello", "token": game["token"]}))
            assert json.loads(ws.recv(timeout=10))["type"] in ("state", "welcome")
    log = capfd.readouterr().err  # uvicorn's own loggers do not propagate: its handler writes to stderr
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]
