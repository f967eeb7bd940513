"""The bus (quiltmaker.web.bus): news heard here and, through a real Redis, in another process's bus."""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from services import RedisServer
from web_client import connect, create

from quiltmaker.web.bus import Bus, GameEnded, here_only, topic
from quiltmaker.web.pubsub import RedisBroker


# A topic the bus has never heard of, declared here: a new kind of news is a dataclass, and nothing in the bus changes.
@topic("test.visit")
class Visit:
    who: str
    seats: list[int]
    note: Any = here_only()  # this process's alone: never sent


class Quiet:
    """A recovery that has nothing to recover (these buses serve no games)."""

    async def catch_up(self) -> None:
        pass

    async def poll(self) -> None:
        pass


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (make test installs it)")
    server = RedisServer()
    server.start()
    yield server
    server.stop()


def test_news_is_heard_here_in_the_order_subscribed_and_a_failing_subscriber_fails_nobody(caplog: pytest.LogCaptureFixture) -> None:
    heard: list[str] = []

    async def first(news: Visit) -> None:
        heard.append(f"first {news.who}")

    async def broken(news: Visit) -> None:
        raise RuntimeError("a subscriber's own bug")

    async def elsewhere_only(news: Visit) -> None:
        heard.append("elsewhere")

    async def last(news: Visit) -> None:
        await asyncio.sleep(0.01)
        heard.append(f"last {news.note}")

    async def run() -> None:
        bus = Bus()
        bus.subscribe(Visit, first)
        bus.subscribe(Visit, broken)
        bus.subscribe(Visit, elsewhere_only, here=False)
        bus.subscribe(Visit, last)
        await bus.publish(Visit("ada", [0], note="the game itself"))
        assert heard == ["first ada", "last the game itself"], "every subscriber here, in order, awaited by the publisher"
        await bus.close()

    with caplog.at_level(logging.ERROR, logger="quiltmaker.web"):
        asyncio.run(run())
    assert "a subscriber to test.visit failed" in caplog.text


def test_news_crosses_to_another_process_through_redis_without_what_is_this_process_s_alone(redis: RedisServer) -> None:
    async def run() -> tuple[list[Visit], list[Visit]]:
        here, there = Bus(RedisBroker(redis.url)), Bus(RedisBroker(redis.url))
        heard_here: list[Visit] = []
        heard_there: list[Visit] = []
        arrived = asyncio.Event()

        async def on_here(news: Visit) -> None:
            heard_here.append(news)

        async def on_there(news: Visit) -> None:
            heard_there.append(news)
            arrived.set()

        here.subscribe(Visit, on_here, here=False)  # the other processes' news only: not its own, sent back by Redis
        there.subscribe(Visit, on_there, here=False)
        await here.start(Quiet())
        await there.start(Quiet())
        await asyncio.sleep(0.3)  # both subscribed before anything is published
        await here.publish(Visit("bob", [1], note=object()))
        await asyncio.wait_for(arrived.wait(), 5)
        await asyncio.sleep(0.2)  # long enough for an echo of its own message to have reached the publisher
        await here.close()
        await there.close()
        return heard_here, heard_there

    heard_here, heard_there = asyncio.run(run())
    assert heard_there == [Visit("bob", [1])] and heard_there[0].note is None
    assert heard_here == []


def test_news_a_version_does_not_know_is_dropped_not_a_failure() -> None:
    async def run() -> None:
        bus = Bus()
        heard: list[Visit] = []

        async def on_visit(news: Visit) -> None:
            heard.append(news)

        bus.subscribe(Visit, on_visit, here=False)
        bus._deliver("test.unknown", {"who": "x"})  # another version's topic
        bus._deliver("test.visit", {"who": "x"})  # a field missing
        bus._deliver("test.visit", {"who": "x", "seats": [0], "extra": 1})  # a field this version lacks
        bus._deliver("test.visit", {"who": "x", "seats": [1]})
        await asyncio.sleep(0.05)
        assert heard == [Visit("x", [1])]
        await bus.close()

    asyncio.run(run())


def test_a_game_s_end_is_published_once_with_how_it_ended_and_what_it_sets_off_has_happened(client: TestClient) -> None:
    ended: list[GameEnded] = []
    server = client.app.state.server  # type: ignore[attr-defined]

    async def on_end(news: GameEnded) -> None:
        assert news.stored is not None and news.stored.is_finished
        ended.append(news)

    server.bus.subscribe(GameEnded, on_end, elsewhere=False)
    game = create(client, mode="ai", seat=0)
    with connect(client, game["id"], game["token"]) as player:
        player.play_first_legal()
        resigned = player.intent("resign")  # (resigning needs no version: whenever the computer has answered)
        assert resigned["type"] == "ack"
        assert player.intent("resign")["type"] == "error"  # over: no second end
    assert [(news.game, news.version, news.ending) for news in ended] == [(game["id"], resigned["version"], "resignation")]
    assert client.get(f"/api/games?ids={game['id']}").json()["games"][0]["id"] == game["id"], "its line kept, as the end set off"
