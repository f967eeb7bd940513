"""Chat between the two players of an online game: bounded lines, rate-limited, stored apart from the log, never to spectators."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..i18n import N_, _
from . import contract
from .live import LiveGames
from .protocol import Connection, ProtocolError

MAX_CHAT = 300  # characters of a chat line
log = logging.getLogger("quiltmaker.web")


class Chat:
    """The chat of the games of one server process."""

    def __init__(self, server: LiveGames) -> None:
        self.server = server

    async def say(self, game_id: str, connection: Connection, text: Any) -> dict[str, Any]:
        """A line from a player to the other: checked, stored, and sent to the players only."""
        if not isinstance(connection.seat, int):
            raise ProtocolError("forbidden", _("only the two players of an online game chat"))
        stored = await self.server.load(game_id)
        if stored.mode != "online":
            raise ProtocolError("not_allowed", _("chat is for online games"))
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_CHAT:
            raise ProtocolError("malformed", f"'text' must be a line of 1 to {MAX_CHAT} characters")
        line = " ".join(text.split())  # one line: no line breaks, tabs or runs of spaces
        if any(not c.isprintable() for c in line):
            raise ProtocolError("malformed", _("a chat line holds printable characters only"))
        self.server.count(connection, "chat", N_("too many chat lines from your address: wait {seconds} s"))
        await asyncio.to_thread(self.server.store.add_chat, game_id, connection.seat, line)
        self.server.in_background(self._announce(game_id))
        return {"type": "sent"}

    async def _announce(self, game_id: str) -> None:
        await self.deliver(game_id)
        try:
            await self.server.broker.publish_chat(game_id)
        except Exception:
            log.exception("telling the other processes about chat in game %s failed", game_id)

    async def deliver(self, game_id: str, only: Connection | None = None) -> None:
        """Send each seated socket of the game here the chat lines it has not had (spectators get none)."""
        connections = self.server.connections.get(game_id, ())
        targets = [only] if only is not None else [c for c in connections if isinstance(c.seat, int)]
        if not targets:
            return
        since = min(c.chat_seen for c in targets)
        lines = await asyncio.to_thread(self.server.store.chat, game_id, since)
        for connection in targets:
            fresh = [line for line in lines if line["id"] > connection.chat_seen]
            if fresh:
                connection.chat_seen = fresh[-1]["id"]
                await self.server.send(connection, contract.wire({"type": "chat", "lines": fresh}))
