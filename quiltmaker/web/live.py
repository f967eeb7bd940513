"""What the server's parts need of the live games (:class:`.games.GameServer`), as a protocol.

The parts (:mod:`.presence`, :mod:`.chat`, :mod:`.timeouts`,
:mod:`.ai_service`) are built by the server and hand their work back to it;
naming what they use here keeps the imports pointing one way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Coroutine, MutableMapping
from datetime import datetime
from typing import Any, Protocol

from .protocol import Connection
from .bus import Bus
from .round.game import StoredGame
from .round.kinds import EventKind
from .round.store import GameStore


class LiveGames(Protocol):
    """The games in memory and their sockets: to load, hold, record and announce them."""

    store: GameStore
    bus: Bus
    connections: dict[str, set[Connection]]
    cache: MutableMapping[str, StoredGame]
    players: MutableMapping[str, str]  # game id -> the address of its player seated last

    async def load(self, game_id: str, trust_cache: bool = False) -> StoredGame: ...

    def holding(self, game_id: str, trust_cache: bool = False) -> contextlib.AbstractAsyncContextManager[StoredGame]: ...

    async def record(
        self, stored: StoredGame, version: int, kind: EventKind, value: str, seat: int | None, client_id: str | None, at: datetime | None = None
    ) -> int: ...

    async def changed(self, stored: StoredGame) -> None: ...

    async def broadcast(self, stored: StoredGame) -> None: ...

    async def send(self, connection: Connection, text: str) -> None: ...

    def announce(self, stored: StoredGame) -> None: ...

    def in_background(self, work: Coroutine[Any, Any, Any]) -> None: ...

    def count(self, connection: Connection, kind: str, what: str) -> None: ...
