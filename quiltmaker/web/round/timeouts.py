"""Games lost on time: the server ends real-time games whose clock ran out, and writes a correspondence win a player claims.

Every server process watches; the event log's unique numbers let exactly one
of them write each game's timeout (the others find their view stale), and the
deadlines are in the database, so a restart loses none. Whether a side has
run out is the round's rule (:func:`.rules.flagged`, :func:`.rules.may_claim`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from typing import Any

from ...i18n import _
from ..db.database import utc_now
from ..live import LiveGames, Sockets
from ..protocol import Connection, ProtocolError
from . import rules
from .game import BOTH_SEATS, StoredGame, credit_value
from .kinds import EventKind
from .rules import Refusal
from .store import StoreError

CLOCK_WATCH = 0.25  # seconds between looks at the real-time deadlines: how late past its time a game may end
BEAT_SECONDS = 1.0  # how often each process says it is alive
DOWNTIME = 3.0  # seconds with no process alive that count as the service's downtime (beats come every second)
log = logging.getLogger("quiltmaker.web")


class Timeouts:
    """The clock watcher and the claims of one server process."""

    def __init__(self, games: LiveGames, sockets: Sockets) -> None:
        self.games = games
        self.sockets = sockets
        self.process = secrets.token_hex(8)  # this process's name in the heartbeats

    async def recover(self) -> None:
        """At start-up, before the server answers anyone: give back the time no server process ran
        (:meth:`give_back_downtime`), so that no move is refused, and no game ended, on time that was the server's."""
        try:
            await self.give_back_downtime()
        except Exception:  # the database is away: the clocks stand as they are
            log.exception("giving the clocks back the downtime failed")

    async def run(self) -> None:
        """End real-time games on time: every CLOCK_WATCH seconds, look at the games whose deadline has come, and say
        each second that this process is alive."""
        beaten = 0.0
        while True:
            try:
                now = utc_now()
                if time.monotonic() - beaten >= BEAT_SECONDS:
                    await asyncio.to_thread(self.games.store.beat, self.process, now)
                    beaten = time.monotonic()
                for game_id in await asyncio.to_thread(self.games.store.due, now):
                    await self.end_on_time(game_id)
            except Exception:  # the database is away: look again soon
                log.exception("watching the clocks failed")
            await asyncio.sleep(CLOCK_WATCH)

    async def give_back_downtime(self) -> int:
        """At start-up: if no server process was alive for a while (the service was down), give every running
        real-time clock back the part of its turn that fell in that time, before any game is ended on time.
        Returns how many games got time back.

        With several processes, the first to start after the downtime does it; one that starts while
        another is alive finds no downtime, and two starting at once write each credit once (the event
        log's unique numbers).
        """
        games = self.games
        last = await asyncio.to_thread(games.store.last_beat)
        now = utc_now()
        if last is None or (now - last).total_seconds() < DOWNTIME:
            return 0
        log.info("no server ran for %.1f s: the clocks running then get that time back", (now - last).total_seconds())
        given = 0
        for game_id in await asyncio.to_thread(games.store.watched):
            try:
                async with games.holding(game_id) as stored:
                    running = rules.creditable(stored, now)
                    if running is None:
                        continue
                    lost = (now - max(last, stored.move_times[-1])).total_seconds()
                    await games.record(stored, stored.version, EventKind.CREDIT, credit_value(running, lost), None, None, now)
                    given += 1
            except (ProtocolError, StoreError, Refusal):  # gone, damaged, or another process just gave it back
                continue
        return given

    async def give_back_late_news(self, game_id: str, moves_known: int | None) -> StoredGame:
        """Redis is away, and polling the database brought this process news of a game it knew with
        ``moves_known`` moves (None: one it did not have in memory, whose news it cannot date): if the news began the turn of a real-time player seated here, that player could not see
        the move until now, so their clock gets the whole turn so far back (once a turn: a credit is news
        too, and the other process must not answer it with one). Returns the game as it is now.
        """
        games = self.games
        async with games.holding(game_id) as stored:
            now = utc_now()
            running = rules.creditable(stored, now)
            if running is None:
                return stored
            turn_began = stored.move_times[-1]
            seated = {connection.seat for connection in self.sockets.connections.get(game_id, ())}
            if stored.credited_this_turn() > 0 or not seated & {running, BOTH_SEATS}:
                return stored
            if moves_known is None or len(stored.game.moves) <= moves_known:
                return stored  # the move was heard here in time: what came late is something else
            late = (now - turn_began).total_seconds()
            if late >= 0.001:  # (credits are whole milliseconds)
                with contextlib.suppress(StoreError, Refusal):  # another writer came first: its news comes next poll
                    await games.record(stored, stored.version, EventKind.CREDIT, credit_value(running, late), None, None, now)
            return stored

    async def claim(self, game_id: str, connection: Connection) -> dict[str, Any]:
        """A correspondence game's player claims the win: the opponent, to move, is past their days."""
        stored = await self.games.load(game_id)
        seat = connection.seat if isinstance(connection.seat, int) else None
        try:
            rules.may_claim(stored, seat, utc_now())
        except Refusal as refusal:
            raise ProtocolError(refusal.code, str(refusal)) from None
        if not await self.end_on_time(game_id, claimed_by=seat):
            raise ProtocolError("stale", _("the game changed meanwhile; here is the new state"))
        return {"type": "ack", "version": stored.version}

    async def end_on_time(self, game_id: str, claimed_by: int | None = None) -> bool:
        """Write the timeout of a game whose side to move has run out of time; return whether this call wrote it.

        For a real-time game the server does it (``claimed_by`` None); for a
        correspondence game the opponent claims it. A game whose time has not run
        out only has its stored deadline put right.
        """
        games = self.games
        try:
            return await self._end_on_time(game_id, claimed_by)
        except ProtocolError:
            # Gone or damaged: stop watching it, or it would be looked at four times a second for ever.
            await asyncio.to_thread(games.store.clear_deadline, game_id)
            return False

    async def _end_on_time(self, game_id: str, claimed_by: int | None) -> bool:
        games = self.games
        async with games.holding(game_id) as stored:
            now = utc_now()
            clock = stored.clock_at(now)
            if clock is None:
                return False
            try:
                loser = rules.ended_by_the_server(stored, now) if claimed_by is None else rules.may_claim(stored, claimed_by, now)
            except Refusal:
                loser = None
            if loser is None:
                await asyncio.to_thread(games.store.set_deadline, game_id, clock)
                return False
            try:
                await games.record(stored, stored.version, EventKind.TIMEOUT, str(loser), claimed_by, None, now)
            except (StoreError, Refusal):  # another process (or a move just in time) took the version: it decided
                return False
        self.sockets.announce(stored)
        return True
