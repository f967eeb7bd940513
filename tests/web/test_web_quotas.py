"""Rate limits per address, the cap on a game's log, and the expiry of games nobody started."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from web_client import connect, create, get_state
from web_helpers import first_legal_move, migrated_store

from quiltmaker.web.app import Settings, create_app
from quiltmaker.web.quotas import Quotas
from quiltmaker.web.db.schema import GameRow


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", create_limit="3/minute", intent_limit="5/minute", max_events=4
    )
    with TestClient(create_app(settings, executor=ThreadPoolExecutor(1))) as client:
        yield client


def test_creating_games_past_the_limit_is_refused_with_the_wait(strict: TestClient) -> None:
    for _ in range(3):
        assert strict.post("/api/games", json={"mode": "local"}).status_code == 200
    refused = strict.post("/api/games", json={"mode": "local"})
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert "too many new games" in refused.json()["detail"]


def test_intents_past_the_limit_are_refused_and_change_nothing(strict: TestClient) -> None:
    game = create(strict, mode="local", seed=5)
    with connect(strict, game["id"], game["token"]) as player:
        replies: list[dict[str, Any]] = []
        for _ in range(7):
            replies.append(player.move(first_legal_move(player.state)))
    kinds = [r.get("code", r["type"]) for r in replies]
    assert kinds[:4] == ["ack"] * 4, kinds  # four moves fill the log (max_events=4) ...
    assert kinds[4] == "not_allowed"  # ... the fifth intent finds it full ...
    assert kinds[5:] == ["rate_limited"] * 2  # ... and then the address has spent its five a minute
    assert "wait" in replies[5]["message"]
    assert get_state(strict, game["id"])["version"] == 4


def test_chat_past_its_limit_is_refused(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'chat.sqlite3'}", chat_limit="2/minute", create_limit="10/minute")
    with TestClient(create_app(settings, executor=ThreadPoolExecutor(1))) as client:
        game = create(client, mode="online", seat=0)
        guest = client.post(f"/api/games/{game['id']}/join", json={"invite": game["invite"]}).json()
        with connect(client, game["id"], guest["token"]) as player:
            replies = [player.send({"type": "chat", "text": f"line {n}"}) for n in range(3)]
        assert [r.get("code", r["type"]) for r in replies] == ["sent", "sent", "rate_limited"]
        assert len(client.app.state.server.chat.lines.since(game["id"])) == 2  # type: ignore[attr-defined]


def test_games_nobody_started_are_deleted_after_their_days_and_the_others_kept(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'expiry.sqlite3'}"
    with TestClient(create_app(Settings(database_url=url, create_limit="100/minute"), executor=ThreadPoolExecutor(1))) as client:
        old_unstarted = create(client, mode="online", seat=0)
        old_lesson = create(client, mode="lesson", lesson=1)  # the first lesson starts with no event
        old_started = create(client, mode="local", seed=1)
        with connect(client, old_started["id"], old_started["token"]) as player:
            player.move(first_legal_move(player.state))
        young = create(client, mode="local", seed=2)
        # A signed-in player's rated game with a clock: rows in the tables beside the game's.
        assert client.post("/api/account/signup", json={"name": "Ada", "password": "correct horse"}).status_code == 200
        old_rated = create(client, mode="online", seat=0, clock="10+5", rated=True)
    store = migrated_store(url)
    ten_days_ago = datetime.now(timezone.utc) - timedelta(days=10)
    with store.engine.begin() as connection:
        old = [old_unstarted["id"], old_lesson["id"], old_started["id"], old_rated["id"]]
        connection.execute(update(GameRow).where(GameRow.id.in_(old)).values(created=ten_days_ago))
    assert store.delete_unstarted(datetime.now(timezone.utc) - timedelta(days=7)) == 3
    assert not store.exists(old_unstarted["id"]) and not store.exists(old_lesson["id"]) and not store.exists(old_rated["id"])
    assert store.exists(old_started["id"]) and store.exists(young["id"])
    store.close()


def test_counting_a_request_starts_no_thread_and_old_counts_are_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    quotas = Quotas(Settings(database_url="sqlite://", intent_limit="10/second"))
    started: list[str] = []
    with monkeypatch.context() as patched:  # the library's storage started a timer thread on the event loop, under load
        patched.setattr(threading.Thread, "start", lambda thread: started.append(thread.name))
        for n in range(100):
            quotas.wait("intent", f"10.0.0.{n}")
            if n % 20 == 0:
                time.sleep(0.05)  # (the library's timer ran 10 ms, and the next count started another)
    assert started == [], "counting a request never waits for a thread to start"
    storage = quotas.limiter.storage
    assert len(storage.events) == 100  # type: ignore[attr-defined]
    deadline = time.monotonic() + 10
    while any(storage.events.values()) and time.monotonic() < deadline:  # type: ignore[attr-defined]
        time.sleep(0.2)
    assert not any(storage.events.values()), "a second's counts are dropped once their second is over"  # type: ignore[attr-defined]
