"""What the other server processes tell this one, as the bus brings it (:mod:`.bus`), sent on to this process's sockets.

A change another process made reaches this one as a game's id and version;
the database holds the truth, and the game is reloaded from it. While Redis
is away nothing is heard, and :meth:`News.poll` reads the database instead.
"""

from __future__ import annotations

import asyncio
import contextlib

from .bus import Bus, GameChanged, Paired, SeatsHere
from .chat import Chat
from .live import LiveGames, Sockets
from .presence import Presence
from .protocol import ProtocolError
from .lobby.quickmatch import QuickMatch
from .round.timeouts import Timeouts


class News:
    """The other processes' news for the games of this one (and the :class:`.pubsub.Recovery` when it was missed)."""

    def __init__(
        self, games: LiveGames, sockets: Sockets, bus: Bus, chat: Chat, presence: Presence, quickmatch: QuickMatch, timeouts: Timeouts
    ) -> None:
        self.games = games
        self.sockets = sockets
        self.chat = chat
        self.presence = presence
        self.quickmatch = quickmatch
        self.timeouts = timeouts
        bus.subscribe(GameChanged, self.on_change, here=False)
        bus.subscribe(SeatsHere, self.on_presence, here=False)
        bus.subscribe(Paired, self.on_paired, here=False)

    async def on_change(self, news: GameChanged) -> None:
        """Another server process changed a game: send its state to our sockets."""
        self.games.current.discard(news.game)  # the next intent reads what the other process wrote
        if self.sockets.connections.get(news.game):
            with contextlib.suppress(ProtocolError):
                await self.sockets.broadcast(await self.games.load(news.game))

    async def on_presence(self, news: SeatsHere) -> None:
        await self.presence.on_presence(news.game, news.process, news.seats)

    async def on_paired(self, news: Paired) -> None:
        """Another process paired these seeks: the polls waiting for them here read their seats."""
        self.quickmatch.paired_elsewhere(news.seeks)

    async def catch_up(self) -> None:
        """News from other processes may have been missed: reload every game with sockets here, and send what changed."""
        self.games.current.clear()
        for game_id in list(self.sockets.connections):
            await self.on_change(GameChanged(game_id, 0))  # sockets that have the version already are skipped
            await self.chat.deliver(game_id)

    async def poll(self) -> None:
        """The broker hears nothing (Redis is away): read the database for what changed in the games with sockets
        here (two queries for all of them), send it, and give a player the time the news of their turn took."""
        games, sockets = self.games, self.sockets
        game_ids = list(sockets.connections)
        heads = await asyncio.to_thread(games.store.heads, game_ids) if game_ids else {}
        for game_id, (version, last_chat) in heads.items():
            connections = sockets.connections.get(game_id, set())
            known = games.cache.get(game_id)
            # A waiting game may have been joined elsewhere, which changes its seats, not its version.
            if known is not None and version > known.version:
                games.current.discard(game_id)
            if connections and (known is None or version > known.version or known.status == "waiting"):
                with contextlib.suppress(ProtocolError):
                    # (A credit written here is news the other processes find by their own polling.)
                    moves_known = len(known.game.moves) if known else None
                    await sockets.broadcast(await self.timeouts.give_back_late_news(game_id, moves_known))
            if any(isinstance(c.seat, int) and c.chat_seen < last_chat for c in connections):
                await self.chat.deliver(game_id)
