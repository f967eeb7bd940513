"""The server's bus: what happened, published once, heard by whoever subscribed, here and in the other processes.

As Lichess's ``Bus``: ``publish(news)`` and ``subscribe(Topic, handler)``.
A topic is a frozen dataclass of plain values declared with :func:`topic`;
the bus carries any of them without knowing it, so a new kind of news is a
new dataclass and its subscribers, and nothing else changes. A subscriber
says whether it hears the news of this process (``here``), of the others
(``elsewhere``, through the broker: :mod:`.pubsub`), or both.

This process's subscribers are called in the order they subscribed, and
the publisher waits for them (a game's end is rated before the move that
ended it is acknowledged); one that fails is logged, never the publisher's
failure (what it reports on is already committed). News from another
process is handled in a task per message, so one slow game never holds up
the others. A field marked :data:`HERE_ONLY` (a game as this process holds
it) is handed to this process's subscribers and never sent: the others read
the database, which holds the truth.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import uuid
from collections import defaultdict
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar, dataclass_transform

from .pubsub import Broker, LocalBroker, Recovery
from .round.game import StoredGame

log = logging.getLogger("quiltmaker.web")
HERE_ONLY = {"here_only": True}  # a field's metadata: handed to this process's subscribers, never sent to the others
N = TypeVar("N")
_TOPICS: dict[str, type[Any]] = {}


@dataclass_transform(frozen_default=True)
def topic(name: str) -> Callable[[type[N]], type[N]]:
    """Declare a class of plain fields as the news of topic ``name`` (its name on the wire): a frozen dataclass."""

    def declare(cls: type[N]) -> type[N]:
        if name in _TOPICS:
            raise ValueError(f"topic {name!r} is declared twice")
        news = dataclasses.dataclass(frozen=True)(cls)
        _TOPICS[name] = news
        news.topic = name  # type: ignore[attr-defined]
        return news

    return declare


def topic_of(news_type: type[Any]) -> str:
    name: str = news_type.topic
    return name


class Bus:
    """Publish news; deliver it to this process's subscribers and, through the broker, to the other processes'."""

    def __init__(self, broker: Broker | None = None) -> None:
        self.broker: Broker = broker or LocalBroker()
        self.origin = uuid.uuid4().hex  # this process, as the others hear of it
        self._here: dict[str, list[Callable[[Any], Coroutine[Any, Any, None]]]] = defaultdict(list)
        self._elsewhere: dict[str, list[Callable[[Any], Coroutine[Any, Any, None]]]] = defaultdict(list)
        self._tasks: set[asyncio.Task[None]] = set()

    def subscribe(self, news_type: type[N], handler: Callable[[N], Coroutine[Any, Any, None]], *, here: bool = True, elsewhere: bool = True) -> None:
        """Have ``handler`` hear every news of ``news_type`` published here, by the other processes, or both."""
        name = topic_of(news_type)
        if here:
            self._here[name].append(handler)
        if elsewhere:
            self._elsewhere[name].append(handler)

    async def publish(self, news: Any, *, elsewhere: bool = True) -> None:
        """Tell this process's subscribers (waiting for each) and, unless ``elsewhere`` is False, the other processes."""
        name = topic_of(type(news))
        for handler in self._here.get(name, ()):
            try:
                await handler(news)
            except Exception:
                log.exception("a subscriber to %s failed on %r", name, news)
        if elsewhere:
            self.broker.post(name, _wire(news))

    async def start(self, recovery: Recovery) -> None:
        """Hear the other processes (``recovery``: what to do when their news may have been missed, or cannot be heard)."""
        await self.broker.start(self.origin, self._deliver, recovery)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await self.broker.close()

    def _deliver(self, name: str, data: dict[str, Any]) -> None:
        """News another process published: each subscriber hears it in a task of its own."""
        news_type = _TOPICS.get(name)
        handlers = self._elsewhere.get(name, ())
        if news_type is None or not handlers:
            return
        try:
            news = news_type(**data)
        except (TypeError, ValueError):
            return  # not news this version knows
        for handler in handlers:
            self._spawn(handler(news))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _wire(news: Any) -> dict[str, Any]:
    return {f.name: getattr(news, f.name) for f in dataclasses.fields(news) if not f.metadata.get("here_only")}


def here_only(default: Any = None) -> Any:
    """A field handed to this process's subscribers and never sent (see the module's docstring)."""
    return dataclasses.field(default=default, compare=False, repr=False, metadata=HERE_ONLY)


# The topics ---------------------------------------------------------------------------------------------------------


@topic("game.started")
class GameStarted:
    """A new game was made (:mod:`.setup`): ``mode`` is its :class:`.round.kinds.Mode`'s value."""

    game: str
    mode: str


@topic("game.changed")
class GameChanged:
    """A game's log grew to ``version`` (a move, or any other event), or its seats changed (a seat taken)."""

    game: str
    version: int
    stored: StoredGame | None = here_only()


@topic("game.ended")
class GameEnded:
    """A game ended at ``version``: ``ending`` is how (``played`` out, or its :class:`~quiltmaker.core.game.Ending`'s ``by``)."""

    game: str
    version: int
    ending: str
    stored: StoredGame | None = here_only()


@topic("sessions.ended")
class SessionsEnded:
    """Sessions of an account ended: signed out (``only``: that session's hash), everywhere, or by a new password
    (``keep``: the hash of the one session that goes on). The sockets they seated lose their seats, in every process."""

    account: int
    only: str | None = None
    keep: str | None = None

    def ends(self, account: int, session_hash: str) -> bool:
        """Whether the session ``session_hash`` of ``account`` is one of those that ended."""
        return account == self.account and self.only in (None, session_hash) and session_hash != self.keep


@topic("chat")
class ChatSaid:
    """A game's chat has a new line."""

    game: str


@topic("presence")
class SeatsHere:
    """Process ``process`` has sockets open for these seats of a game (none: it has none now)."""

    game: str
    process: str
    seats: list[int]

    def __post_init__(self) -> None:
        if not all(seat in (0, 1) for seat in self.seats):
            raise ValueError(f"not seats: {self.seats!r}")


@topic("paired")
class Paired:
    """These quick-match seeks were paired (their players' polls may wait on another process)."""

    seeks: list[str]
