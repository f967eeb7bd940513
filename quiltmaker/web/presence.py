"""Who is here: the seats of a game with a socket open, in this process and, as they said lately, in the others."""

from __future__ import annotations

import asyncio
import contextlib
import time

from .bus import Bus, SeatsHere
from .pubsub import PRESENCE_EVERY, PRESENCE_FOR
from .live import LiveGames, Sockets
from .round.game import BOTH_SEATS, StoredGame



class Presence:
    """The seats that are here, for the states' ``presence`` (a socket open here or elsewhere; the AI's seat always is)."""

    def __init__(self, games: LiveGames, sockets: Sockets, bus: Bus) -> None:
        self.games = games
        self.sockets = sockets
        self.bus = bus
        # Who is here in other processes, as they said: game id -> process id -> (seats, until when, monotonic).
        self.elsewhere: dict[str, dict[str, tuple[set[int], float]]] = {}

    def seats_here(self, game_id: str) -> list[int]:
        """The seats with a socket open to this process in a game (pass-and-play's one token holds both)."""
        seats = {c.seat for c in self.sockets.connections.get(game_id, ())}
        return [seat for seat in (0, 1) if seat in seats or BOTH_SEATS in seats]

    def of(self, stored: StoredGame) -> list[bool]:
        """Whether each seat is here: a seated socket open in this process or, as they said lately, in another."""
        seats = set(self.seats_here(stored.id)) | self._heard(stored.id, time.monotonic())
        here = [0 in seats, 1 in seats]
        if stored.against_ai and stored.ai_seat is not None:
            here[stored.ai_seat] = True
        return here

    async def changed(self, game_id: str) -> None:
        """A seated player came or went: the other processes hear who is here now, and everyone watching
        the game here is sent its state again (same version)."""
        with contextlib.suppress(Exception):
            await self.bus.publish(SeatsHere(game_id, self.bus.origin, self.seats_here(game_id)))
        await self._rebroadcast(game_id)

    def _heard(self, game_id: str, now: float) -> set[int]:
        """The seats of a game that other processes said lately have a socket open to them."""
        return {seat for held, until in self.elsewhere.get(game_id, {}).values() if until > now for seat in held}

    async def on_presence(self, game_id: str, origin: str, seats: list[int]) -> None:
        """Another process said which seats of a game have a socket open to it: our sockets hear if that changed."""
        now = time.monotonic()
        before = self._heard(game_id, now)
        heard = self.elsewhere.setdefault(game_id, {})
        if seats:
            heard[origin] = (set(seats), now + PRESENCE_FOR)
        else:
            heard.pop(origin, None)
        if not heard:
            del self.elsewhere[game_id]
        if before != self._heard(game_id, now):
            await self._rebroadcast(game_id)

    async def run(self) -> None:
        """Every PRESENCE_EVERY seconds, say again who is here in each game (so that what others heard stays
        fresh), and forget what others said that has gone stale (a process that died)."""
        while True:
            await asyncio.sleep(PRESENCE_EVERY)
            now = time.monotonic()
            for game_id in [g for g, heard in self.elsewhere.items() if all(until <= now for _, until in heard.values())]:
                del self.elsewhere[game_id]
                await self._rebroadcast(game_id)  # a seat that was here elsewhere is away now
            for game_id in list(self.sockets.connections):
                seats = self.seats_here(game_id)
                if seats:
                    with contextlib.suppress(Exception):
                        await self.bus.publish(SeatsHere(game_id, self.bus.origin, seats))

    async def _rebroadcast(self, game_id: str) -> None:
        stored = self.games.cache.get(game_id)
        if stored is not None and self.sockets.connections.get(game_id):
            with contextlib.suppress(Exception):
                await self.sockets.broadcast(stored)
