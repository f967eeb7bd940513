"""News from the other server processes, as the broker brings it (:mod:`.pubsub`), sent on to this process's sockets.

A change another process made reaches this one as ``(game id, version)``;
the database holds the truth, and the game is reloaded from it. While Redis
is away nothing is heard, and :meth:`News.poll` reads the database instead.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from .chat import Chat
from .live import LiveGames
from .presence import Presence
from .protocol import ProtocolError
from .pubsub import CHAT
from .quickmatch import QuickMatch
from .timeouts import Timeouts


class Served(LiveGames, Protocol):
    """What news needs of the live games (:class:`.games.GameServer`)."""

    chat: Chat
    presence: Presence
    quickmatch: QuickMatch
    timeouts: Timeouts
    current: set[str]


class News:
    """What the broker tells (a :class:`.pubsub.Subscriber`), for the games of one server process."""

    def __init__(self, server: Served) -> None:
        self.server = server

    async def on_change(self, game_id: str, version: int) -> None:
        """Another server process changed a game (or its chat): send its state (or the new lines) to our sockets."""
        server = self.server
        if version != CHAT:
            server.current.discard(game_id)  # the next intent reads what the other process wrote
        if not server.connections.get(game_id):
            return
        if version == CHAT:
            await server.chat.deliver(game_id)
            return
        with contextlib.suppress(ProtocolError):
            await server.broadcast(await server.load(game_id))

    async def on_presence(self, game_id: str, origin: str, seats: list[int]) -> None:
        await self.server.presence.on_presence(game_id, origin, seats)

    async def on_paired(self, seek_ids: list[str]) -> None:
        """Another process paired these seeks: the polls waiting for them here read their seats."""
        self.server.quickmatch.paired_elsewhere(seek_ids)

    async def catch_up(self) -> None:
        """News from other processes may have been missed: reload every game with sockets here, and send what changed."""
        self.server.current.clear()
        for game_id in list(self.server.connections):
            await self.on_change(game_id, 0)  # sockets that have the version already are skipped
            await self.server.chat.deliver(game_id)

    async def poll(self) -> None:
        """The broker hears nothing (Redis is away): read the database for what changed in the games with sockets
        here (two queries for all of them), send it, and give a player the time the news of their turn took."""
        server = self.server
        game_ids = list(server.connections)
        heads = await asyncio.to_thread(server.store.heads, game_ids) if game_ids else {}
        for game_id, (version, last_chat) in heads.items():
            connections = server.connections.get(game_id, set())
            known = server.cache.get(game_id)
            # A waiting game may have been joined elsewhere, which changes its seats, not its version.
            if known is not None and version > known.version:
                server.current.discard(game_id)
            if connections and (known is None or version > known.version or known.status == "waiting"):
                with contextlib.suppress(ProtocolError):
                    # (A credit written here is news the other processes find by their own polling.)
                    moves_known = len(known.game.moves) if known else None
                    await server.broadcast(await server.timeouts.give_back_late_news(game_id, moves_known))
            if any(isinstance(c.seat, int) and c.chat_seen < last_chat for c in connections):
                await server.chat.deliver(game_id)
