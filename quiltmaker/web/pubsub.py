"""Carrying the bus's news to the other server processes (:mod:`.bus` says what is published and who hears it).

A message is a topic and its news as plain values: the database holds the
truth, and a game's news says only which game and version, so each process
reads what changed from the database. The one thing not in the database is
who is here: a process publishes the seats that have a socket open to it
in each game (when one comes or goes, and again every PRESENCE_EVERY
seconds), and the others keep what they hear for PRESENCE_FOR seconds, so a
process that dies stops counting within a minute. The default broker
serves a lone server process (there is no one to tell); the Redis broker
lets several processes share a database.

While Redis is away, nothing is heard through it: each process then reads
the database every POLL_SECONDS for the games it has sockets for
(:meth:`Recovery.poll`), so a move still reaches the other process within
about a second, and its player's clock is given that delay back.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

PRESENCE_EVERY = 20.0
PRESENCE_FOR = 60.0
OUTBOX = 100_000  # messages waiting to be published (while Redis is away) before the oldest are dropped
BATCH = 500  # messages a pipelined publish sends at once
POLL_SECONDS = 1.0  # how often a process reads the database for news while Redis is away

CHANNEL = "quiltmaker:bus"
log = logging.getLogger("quiltmaker.web")
Deliver = Callable[[str, dict[str, Any]], None]  # a topic and its news, from another process


class Recovery(Protocol):
    """What a process does when news from the others may have been missed, or cannot be heard."""

    async def catch_up(self) -> None:
        """News may have been missed (a subscription back after a failure): reload the games served here."""

    async def poll(self) -> None:
        """Nothing can be heard (Redis is away): find in the database what changed in the games served here."""


class Broker(Protocol):
    """Carries news to the other processes and theirs back: ``post`` never waits, and never fails the caller."""

    async def start(self, origin: str, deliver: Deliver, recovery: Recovery) -> None: ...

    def post(self, topic: str, news: dict[str, Any]) -> None: ...

    async def close(self) -> None: ...


class LocalBroker:
    """The broker of a lone server process: no other process to tell (the default)."""

    async def start(self, origin: str, deliver: Deliver, recovery: Recovery) -> None:
        pass

    def post(self, topic: str, news: dict[str, Any]) -> None:
        pass

    async def close(self) -> None:
        pass


class RedisBroker:
    """Delivers changes through a Redis channel to every subscribed server process."""

    def __init__(self, url: str) -> None:
        import redis.asyncio as redis  # optional: only servers run with --redis need it

        self._client: Any = redis.from_url(url)
        self._tasks: list[asyncio.Task[None]] = []
        self._deaf = False  # the subscription is down: news comes only by polling the database
        self._origin = ""  # this process's (the bus's): its own messages are skipped, its subscribers heard them
        self._listeners: set[asyncio.Task[None]] = set()
        # Everything this process publishes goes out in order through one sender and one connection:
        # a publish per task each on its own connection ran the client's pool dry (100 connections)
        # under a thousand players, and the news it dropped left games stalled on the other process.
        self._outbox: collections.deque[str] = collections.deque(maxlen=OUTBOX)
        self._waiting = asyncio.Event()

    async def start(self, origin: str, deliver: Deliver, recovery: Recovery) -> None:
        self._origin = origin
        self._tasks = [asyncio.create_task(self._pump(deliver, recovery)), asyncio.create_task(self._send()), asyncio.create_task(self._poll(recovery))]

    def post(self, topic: str, news: dict[str, Any]) -> None:
        if len(self._outbox) == OUTBOX:
            log.warning("the Redis outbox is full (Redis away?): the oldest news is dropped")
        self._outbox.append(json.dumps({"topic": topic, "news": news, "origin": self._origin}))
        self._waiting.set()

    async def _send(self) -> None:
        """Publish what is posted, in order, a pipelined batch at a time; after a failure, the same batch again."""
        while True:
            await self._waiting.wait()
            self._waiting.clear()
            while self._outbox:
                batch = [self._outbox.popleft() for _ in range(min(len(self._outbox), BATCH))]
                while True:
                    try:
                        async with self._client.pipeline(transaction=False) as pipe:
                            for text in batch:
                                pipe.publish(CHANNEL, text)
                            await pipe.execute()
                        break
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("publishing to Redis failed; trying again in a second")
                        await asyncio.sleep(1.0)

    async def _pump(self, deliver: Deliver, recovery: Recovery) -> None:
        """Deliver other processes' news for as long as the server runs, reconnecting after failures.

        While the subscription is down, news goes unheard: the database is
        polled meanwhile (:meth:`_poll`), and once it is back, ``catch_up``
        reloads what this process serves.
        """
        while True:
            try:
                pubsub = self._client.pubsub()
                await pubsub.subscribe(CHANNEL)
                if self._deaf:
                    self._deaf = False
                    log.warning("the Redis subscription is back: catching up with the games served here")
                    self._spawn(recovery.catch_up())
                async for message in pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    try:
                        data = json.loads(message["data"])
                        topic, news, origin = str(data["topic"]), data["news"], str(data["origin"])
                    except (ValueError, KeyError, TypeError):
                        continue  # not one of ours
                    if origin != self._origin and isinstance(news, dict):
                        deliver(topic, news)
            except asyncio.CancelledError:
                raise
            except Exception:
                if not self._deaf:
                    log.exception("the Redis subscription failed: reading the database every %g s until it is back", POLL_SECONDS)
                self._deaf = True
                await asyncio.sleep(1.0)

    async def _poll(self, recovery: Recovery) -> None:
        """While the subscription is down, have the server read the database for news every POLL_SECONDS."""
        while True:
            await asyncio.sleep(POLL_SECONDS)
            if self._deaf:
                try:
                    await recovery.poll()
                except asyncio.CancelledError:
                    raise
                except Exception:  # the database is away too: try again next time
                    log.exception("polling the database for news failed")

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._listeners.add(task)
        task.add_done_callback(self._listeners.discard)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._client.aclose()


def broker_from_url(url: str | None) -> Broker:
    """The in-process broker, or Redis given a ``redis://`` URL."""
    if not url:
        return LocalBroker()
    return RedisBroker(url)
