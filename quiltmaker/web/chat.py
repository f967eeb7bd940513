"""Chat between the two players of an online game: bounded lines, rate-limited, stored apart from the log, never to spectators."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select

from ..i18n import N_, _
from . import contract
from .bus import Bus, ChatSaid
from .db.commits import Rows
from .db.database import Database, as_utc, utc_now
from .live import LiveGames, Sockets
from .protocol import Connection, ProtocolError
from .round.kinds import Mode
from .db.schema import ChatRow

MAX_CHAT = 300  # characters of a chat line
# A line is written and read with plain statements made once, on a bare connection: through an ORM session, the
# commit and the objects cost a chat line several times its statements (a line every few moves of every game, and a
# read at each line and each socket's greeting).
_ADD = insert(ChatRow).returning(ChatRow.id)
_SINCE = (
    select(ChatRow.id, ChatRow.seat, ChatRow.text, ChatRow.created)
    .where(ChatRow.game_id == bindparam("game"), ChatRow.id > bindparam("after")).order_by(ChatRow.id.desc()).limit(bindparam("limit"))
)
log = logging.getLogger("quiltmaker.web")


class ChatLines:
    """The chat lines in the database (thread-safe; blocking calls)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def add(self, game_id: str, seat: int, text: str, rows: Rows | None = None) -> dict[str, Any]:
        """Store a chat line; return it as sent to the players. In a caller's ``rows``, in its transaction (a shared
        commit's: :mod:`.db.commits`)."""
        created = utc_now()
        with contextlib.nullcontext(rows) if rows is not None else self.database.writing_rows() as connection:
            line_id = connection.execute(_ADD, {"game_id": game_id, "seat": seat, "text": text, "created": created}).scalar_one()
        return _line_view(line_id, seat, text, created)

    def since(self, game_id: str, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        """The game's chat lines with an id above ``after``, the last ``limit`` of them, oldest first."""
        with self.database.reading_rows() as connection:
            return [_line_view(*row) for row in reversed(connection.execute(_SINCE, {"game": game_id, "after": after, "limit": limit}).all())]


def _line_view(line_id: int, seat: int, text: str, created: datetime) -> dict[str, Any]:
    return {"id": line_id, "seat": seat, "text": text, "at": as_utc(created).isoformat()}


class Chat:
    """The chat of the games of one server process."""

    def __init__(self, games: LiveGames, sockets: Sockets, bus: Bus) -> None:
        self.games = games
        self.sockets = sockets
        self.bus = bus
        self.lines = ChatLines(games.store.database)
        bus.subscribe(ChatSaid, self._said)  # here and in the other processes alike

    async def say(self, game_id: str, connection: Connection, text: Any) -> dict[str, Any]:
        """A line from a player to the other: checked, stored, and sent to the players only."""
        if not isinstance(connection.seat, int):
            raise ProtocolError("forbidden", _("only the two players of an online game chat"))
        stored = await self.games.load(game_id, trust_cache=True)  # (its mode, which never changes)
        if stored.mode != Mode.ONLINE:
            raise ProtocolError("not_allowed", _("chat is for online games"))
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_CHAT:
            raise ProtocolError("malformed", f"'text' must be a line of 1 to {MAX_CHAT} characters")
        line = " ".join(text.split())  # one line: no line breaks, tabs or runs of spaces
        if any(not c.isprintable() for c in line):
            raise ProtocolError("malformed", _("a chat line holds printable characters only"))
        self.sockets.count(connection, "chat", N_("too many chat lines from your address: wait {seconds} s"))
        seat = connection.seat
        await self.lines.database.commits.write(game_id, lambda rows: self.lines.add(game_id, seat, line, rows))
        self.sockets.in_background(self.bus.publish(ChatSaid(game_id)))
        return {"type": "sent"}

    async def _said(self, news: ChatSaid) -> None:
        await self.deliver(news.game)

    async def deliver(self, game_id: str, only: Connection | None = None) -> None:
        """Send each seated socket of the game here the chat lines it has not had (spectators get none)."""
        connections = self.sockets.connections.get(game_id, ())
        targets = [only] if only is not None else [c for c in connections if isinstance(c.seat, int)]
        if not targets:
            return
        since = min(c.chat_seen for c in targets)
        lines = await asyncio.to_thread(self.lines.since, game_id, since)
        for connection in targets:
            fresh = [line for line in lines if line["id"] > connection.chat_seen]
            if fresh:
                connection.chat_seen = fresh[-1]["id"]
                await self.sockets.send(connection, contract.wire({"type": "chat", "lines": fresh}))
