"""The web server's tests' client: an app in a TestClient, a WebSocket player, and a few requests.

The app runs inside Starlette's TestClient (which runs its lifespan), with a
thread pool in place of the AI's process pool and the ``beginner`` level
(greedy, instant) for every AI game, so that whole games take a second.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session
from web_helpers import first_legal_move

from quiltmaker.web.account.accounts import SESSION_COOKIE
from quiltmaker.web.app import Settings, create_app
from quiltmaker.web.contract import with_changes
from quiltmaker.web.db.schema import AccountAddressRow, AccountRow, GameRow

# No rate limits to speak of: a test plays from one address much faster than any person.
TEST_QUOTAS = {"create_limit": "100000/minute", "intent_limit": "100000/second", "hello_limit": "100000/second", "offer_limit": "100000/second", "puzzle_limit": "100000/second"}
TIMEOUT = 20.0  # seconds to wait for any one message; generous for a loaded machine


def make_app(path: Path) -> Any:
    settings = Settings(database_url=f"sqlite:///{path}", hint_seconds=0.05, analysis_iterations=50, **TEST_QUOTAS)
    return create_app(settings, executor=ThreadPoolExecutor(1))



# A WebSocket client -------------------------------------------------------------


class Player:
    """One WebSocket connection to a game; keeps the newest state the server sent.

    States may arrive at any time (the AI, another player), so requests read
    past them to their reply; a state older than one already seen is ignored,
    as the page ignores it.
    """

    _ids = itertools.count(1)

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.received: list[dict[str, Any]] = []
        first = self.receive()
        assert first["type"] in ("state", "error"), first
        self.first = first

    def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        # TestClient's receive() waits forever; this one fails the test after a deadline instead.
        async def get() -> Any:
            with anyio.fail_after(timeout):
                return await self.ws._send_rx.receive()

        raw = self.ws.portal.call(get)
        if raw["type"] == "websocket.close":
            message = {"type": "closed", "code": raw.get("code")}
        else:
            message = json.loads(raw["text"])
        if message["type"] == "changed":  # what changed since the last state sent: applied as the page applies it
            message = {"type": "state", "state": with_changes(self.state, message), "changed": message}
        self.received.append(message)
        if message["type"] == "state" and message["state"]["version"] >= self.state.get("version", -1):
            self.state = message["state"]
        return message

    def reply(self) -> dict[str, Any]:
        """The next message that is not pushed (a state or chat lines): the reply to the last request."""
        while True:
            message = self.receive()
            if message["type"] not in ("state", "chat"):
                return message

    def send(self, message: Any) -> dict[str, Any]:
        """Send a message and return its reply; after an ack, once the state it led to has come too.

        The server acknowledges as soon as an intent is stored, and sends the new
        state beside it, so the ack may come first: waiting for the state here lets
        a test read ``self.state`` as the game after its intent.
        """
        self.ws.send_text(message if isinstance(message, str) else json.dumps(message))
        reply = self.reply()
        if reply.get("type") == "ack" and isinstance(reply.get("version"), int):
            while self.state.get("version", -1) < reply["version"]:
                self.receive()
        return reply

    def hello(self, token: str | None, changes: bool = True) -> dict[str, Any]:
        """Greet the server as the page does: with the seat's token, asking for what changed after each move."""
        return self.send({"type": "hello", "token": token, "changes": changes})

    def intent(self, kind: str, version: int | None = None, id: str | None = None, **fields: Any) -> dict[str, Any]:
        message = {"type": kind, "version": self.state["version"] if version is None else version, **fields}
        message["id"] = id or f"c{next(self._ids)}"
        return self.send(message)

    def move(self, text: str, **kw: Any) -> dict[str, Any]:
        return self.intent("move", move=text, **kw)

    def play_first_legal(self) -> dict[str, Any]:
        reply = self.move(first_legal_move(self.state))
        assert reply["type"] == "ack", reply
        return reply

    def wait_for(self, check: Any, what: str = "a state") -> dict[str, Any]:
        """Read messages until the newest state passes ``check``."""
        for _ in range(1000):
            if self.state and check(self.state):
                return self.state
            self.receive()
        raise AssertionError(f"no state came for {what}")


@contextlib.contextmanager
def connect(client: TestClient, game_id: str, token: str | None = None) -> Iterator[Player]:
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        player = Player(ws)
        if token is not None:
            welcome = player.hello(token)
            assert welcome["type"] == "welcome", welcome
        yield player


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def get_state(client: TestClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def snapshot(client: TestClient, game_id: str) -> tuple[int, str]:
    state = get_state(client, game_id)
    return state["version"], state["position"]


def game_count(client: TestClient) -> int:
    store = client.app.state.server.store  # type: ignore[attr-defined]
    with Session(store.engine) as session:
        return session.scalar(select(func.count()).select_from(GameRow)) or 0


AI_GAME_NAME = 'Ada "the \\ quilter"; [x]'  # quotes, a backslash, ';' and brackets: the records must escape them (a line break is refused)



def play_against_the_beginner(client: TestClient, **body: Any) -> dict[str, Any]:
    """A whole game against the beginner, played through the socket by always taking the first legal move."""
    game = create(client, mode="ai", level="beginner", seat=0, seed=3, **body)
    seat = game["seat"]
    with connect(client, game["id"], game["token"]) as player:
        for _ in range(400):
            state = player.wait_for(lambda s: s["result"] is not None or s["to_move"] == seat, "the human's turn")
            if state["result"] is not None:
                break
            player.play_first_legal()
        else:
            raise AssertionError("the game did not end")
    return {**game, "state": player.state}


def join(client: TestClient, game: dict[str, Any], code: str | None = None) -> Any:
    return client.post(f"/api/games/{game['id']}/join", json={"invite": code or game["invite"]})


def new_account(client: TestClient, name: str, password: str = "correct horse") -> str:
    """Sign up a new account; the client now holds its session (and no other). Returns the session token."""
    client.cookies.clear()
    response = client.post("/api/account/signup", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    return str(client.cookies[SESSION_COOKIE])


def age_account(client: TestClient, name: str, days: float = 2.0) -> None:
    """Make an account ``days`` old, past the tighter bounds of its first day (one challenge waiting)."""
    store = client.app.state.server.store  # type: ignore[attr-defined]
    with Session(store.engine) as session, session.begin():
        session.execute(
            update(AccountRow).where(AccountRow.name_key == name.lower()).values(created=datetime.now(timezone.utc) - timedelta(days=days))
        )


def apart(client: TestClient) -> None:
    """Forget the addresses accounts were seen from: the test's one client stands for players in different places,
    whose rated games count (tests/web/test_web_ratings.py has the rule for one address)."""
    store = client.app.state.server.store  # type: ignore[attr-defined]
    with Session(store.engine) as session, session.begin():
        session.execute(delete(AccountAddressRow))


def act_as(client: TestClient, token: str | None) -> None:
    """Make ``token`` the client's one session cookie, as the browser holding it would (None: a guest)."""
    client.cookies.clear()
    if token:
        client.cookies.set(SESSION_COOKIE, token)
