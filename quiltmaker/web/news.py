"""What the other server processes tell this one, as the bus brings it (:mod:`.bus`), sent on to this process's sockets.

A change another process made reaches this one as a game's id and version;
the database holds the truth, and the game is reloaded from it. While Redis
is away nothing is heard, and :meth:`News.poll` reads the database instead.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from .bus import Bus, GameChanged, Paired, SeatsHere
from .chat import Chat
from .live import LiveGames
from .presence import Presence
from .protocol import ProtocolError
from .lobby.quickmatch import QuickMatch
from .round.timeouts import Timeouts


class Served(LiveGames, Protocol):
    """What news needs of the live games (:class:`.games.GameServer`)."""

    chat: Chat
    presence: Presence
    quickmatch: QuickMatch
    timeouts: Timeouts
    current: set[str]


class News:
    """The other processes' news for the games of this one (and the :class:`.pubsub.Recovery` when it was missed)."""

    def __init__(self, server: Served, bus: Bus) -> None:
        self.server = server
        bus.subscribe(GameChanged, self.on_change, here=False)
        bus.subscribe(SeatsHere, self.on_presence, here=False)
        bus.subscribe(Paired, self.on_paired, here=False)

    async def on_change(self, news: GameChanged) -> None:
        """Another server process changed a game: send its state to our sockets."""
        server = self.server
        server.current.discard(news.game)  # the next intent reads what the other process wrote
        if server.connections.get(news.game):
            with contextlib.suppress(ProtocolError):
                await server.broadcast(await server.load(news.game))

    async def on_presence(self, news: SeatsHere) -> None:
        await self.server.presence.on_presence(news.game, news.process, news.seats)

    async def on_paired(self, news: Paired) -> None:
        """Another process paired these seeks: the polls waiting for them here read their seats."""
        self.server.quickmatch.paired_elsewhere(news.seeks)

    async def catch_up(self) -> None:
        """News from other processes may have been missed: reload every game with sockets here, and send what changed."""
        self.server.current.clear()
        for game_id in list(self.server.connections):
            await self.on_change(GameChanged(game_id, 0))  # sockets that have the version already are skipped
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
